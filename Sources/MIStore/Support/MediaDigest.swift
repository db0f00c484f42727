import Crypto
import Foundation

/// The SHA-256 recorded for every media file (lower-case hex), computed by swift-crypto.
enum MediaDigest {
    static func hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
