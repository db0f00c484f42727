import CPostgres
import Foundation

/// A statement parameter: text (its type left for the server to infer from the statement),
/// `bigint` and `double precision` (sent as their decimal text, typed, so `? IS NULL` or a
/// comparison with a column of another numeric type never leaves the server guessing), or binary
/// `bytea`.
public enum PostgresValue: Sendable, Equatable {
    case text(String)
    case int(Int64)
    case double(Double)
    case bytes([UInt8])

    /// The parameter's type OID for `PQexecParams` (0: let the server infer it).
    var typeOid: Oid {
        switch self {
        case .text: 0
        case .int: 20      // int8
        case .double: 701  // float8
        case .bytes: 17    // bytea
        }
    }

    /// Lays out parameters the way `PQexecParams` wants them, for the duration of `body`.
    static func withBound<R>(_ parameters: [PostgresValue?],
                             _ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
                                      UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> R) throws -> R {
        var storage: [UnsafeMutableRawPointer?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var types: [Oid] = []
        defer { storage.forEach { free($0) } }
        for parameter in parameters {
            types.append(parameter?.typeOid ?? 0)
            switch parameter {
            case nil:
                storage.append(nil); lengths.append(0); formats.append(0)
            case .text(let string):
                storage.append(UnsafeMutableRawPointer(strdup(string))); lengths.append(0); formats.append(0)
            case .int(let value):
                storage.append(UnsafeMutableRawPointer(strdup(String(value)))); lengths.append(0); formats.append(0)
            case .double(let value):
                // Swift prints the shortest text that reads back as the same Double; PostgreSQL's
                // float8 input reads it exactly ("inf" and "nan" are not store values).
                storage.append(UnsafeMutableRawPointer(strdup(String(value)))); lengths.append(0); formats.append(0)
            case .bytes(let bytes):
                let buffer = malloc(max(bytes.count, 1))
                bytes.withUnsafeBytes { if let base = $0.baseAddress { buffer?.copyMemory(from: base, byteCount: bytes.count) } }
                storage.append(buffer); lengths.append(Int32(bytes.count)); formats.append(1)
            }
        }
        let values = storage.map { $0.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) } }
        return try values.withUnsafeBufferPointer { v in
            try lengths.withUnsafeBufferPointer { l in
                try formats.withUnsafeBufferPointer { f in
                    try types.withUnsafeBufferPointer { t in
                        try body(Int32(parameters.count), t.baseAddress, v.baseAddress, l.baseAddress, f.baseAddress)
                    }
                }
            }
        }
    }
}
