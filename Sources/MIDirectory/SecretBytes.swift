import Foundation

/// Passwords as bytes, wiped after use: the user's password, the service account's, and the
/// copies libldap's bind calls need.
public enum SecretBytes {
    /// Overwrites `buffer` in place with zeros (through a pointer, so the writes are not
    /// optimised away as stores to a value about to die).
    public static func wipe(_ buffer: inout [UInt8]) {
        buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            memset(base, 0, raw.count)
        }
    }
}
