import Foundation

/// Why the config file cannot be used. Names the file and the key path (`ldap.uri`).
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let message: String
    public var description: String { "\(file): \(message)" }
}

/// Reads typed values out of the config's nested JSON objects by dotted key path, remembering
/// which keys were read so that a misspelt key (`ldap.startTls`) is reported instead of ignored.
///
/// Hand-written instead of `Codable` because we want one error per wrong key naming its full
/// path and type, and a list of unknown keys — which synthesized decoding does not give.
struct ConfigReader {
    let file: String
    private let root: [String: JSONValue]
    private var read: Set<String> = []

    init(file: String, data: Data) throws {
        self.file = file
        let object: JSONValue
        do {
            object = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigError(file: file, message: "not valid JSON")
        }
        guard case .object(let root) = object else {
            throw ConfigError(file: file, message: "the top level must be a JSON object")
        }
        self.root = root
    }

    private func lookup(_ path: String) -> JSONValue? {
        var node: JSONValue? = .object(root)
        for part in path.split(separator: ".") {
            guard case .object(let object)? = node else { return nil }
            node = object[String(part)]
        }
        return node == .null ? nil : node
    }

    private func fail(_ path: String, _ expected: String) -> ConfigError {
        ConfigError(file: file, message: "key \(path) must be \(expected)")
    }

    mutating func string(_ path: String) throws -> String? {
        read.insert(path)
        guard let value = lookup(path) else { return nil }
        guard case .string(let string) = value else { throw fail(path, "a string") }
        return string
    }

    mutating func requiredString(_ path: String) throws -> String {
        guard let value = try string(path), !value.isEmpty else {
            throw ConfigError(file: file, message: "missing required key \(path)")
        }
        return value
    }

    mutating func bool(_ path: String) throws -> Bool? {
        read.insert(path)
        guard let value = lookup(path) else { return nil }
        guard case .bool(let flag) = value else { throw fail(path, "true or false") }
        return flag
    }

    mutating func number(_ path: String) throws -> Double? {
        read.insert(path)
        guard let value = lookup(path) else { return nil }
        guard case .number(let number) = value else { throw fail(path, "a number") }
        return number
    }

    mutating func integerList(_ path: String) throws -> [Int]? {
        read.insert(path)
        guard let value = lookup(path) else { return nil }
        let numbers: [Double]? = {
            guard case .array(let list) = value else { return nil }
            let numbers = list.compactMap { item -> Double? in
                if case .number(let n) = item, n == n.rounded(), abs(n) < 1e9 { return n }
                return nil
            }
            return numbers.count == list.count ? numbers : nil
        }()
        guard let numbers else { throw fail(path, "a list of whole numbers") }
        return numbers.map { Int($0) }
    }

    /// Every leaf key in the file that was never read: misspellings and leftovers.
    func unknownKeys() -> [String] {
        var leaves: [String] = []
        func walk(_ node: JSONValue, _ prefix: String) {
            if case .object(let object) = node, !object.isEmpty {
                for (key, value) in object { walk(value, prefix.isEmpty ? key : "\(prefix).\(key)") }
            } else {
                leaves.append(prefix)
            }
        }
        walk(.object(root), "")
        return leaves.filter { !read.contains($0) }.sorted()
    }
}

/// A JSON document as a plain enum. `JSONDecoder` keeps `true` and `1` apart, which
/// `JSONSerialization`'s `NSNumber` does not on Linux.
enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let string = try? container.decode(String.self) { self = .string(string) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }
}
