import Foundation
import MIStore

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
/// The JSON itself is read by the store's strict parser (line and column in errors, duplicate
/// keys refused).
struct ConfigReader {
    let file: String
    private let root: JSONObject
    private var read: Set<String> = []

    init(file: String, data: Data) throws {
        self.file = file
        let object: JSONValue
        do {
            object = try JSONValue.parse(data)
        } catch {
            throw ConfigError(file: file, message: error.description)
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
        guard let number = value.doubleValue else { throw fail(path, "a number") }
        return number
    }

    /// A number within `range` (and whole, with `whole`), or nil when the key is absent. Anything
    /// else — `1e300`, a negative timeout, 2.5 days — is an error naming the key and its range,
    /// never a crash further on.
    mutating func number(_ path: String, in range: ClosedRange<Double>, whole: Bool = false, unit: String = "") throws -> Double? {
        guard let value = try number(path) else { return nil }
        let suffix = unit.isEmpty ? "" : " " + unit
        guard value.isFinite, range.contains(value), !whole || value == value.rounded() else {
            throw fail(path, "\(whole ? "a whole number" : "a number") from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))\(suffix)")
        }
        return value
    }

    /// A whole number within `range`, or nil when the key is absent.
    mutating func integer(_ path: String, in range: ClosedRange<Int>, unit: String = "") throws -> Int? {
        try number(path, in: Double(range.lowerBound)...Double(range.upperBound), whole: true, unit: unit).map { Int($0) }
    }

    /// One of `choices`, or nil when the key is absent.
    mutating func choice(_ path: String, _ choices: [String]) throws -> String? {
        guard let value = try string(path) else { return nil }
        guard choices.contains(value) else { throw fail(path, "one of \(choices.joined(separator: ", "))") }
        return value
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    mutating func integerList(_ path: String) throws -> [Int]? {
        read.insert(path)
        guard let value = lookup(path) else { return nil }
        let numbers: [Double]? = {
            guard case .array(let list) = value else { return nil }
            let numbers = list.compactMap { item -> Double? in
                if let n = item.doubleValue, n == n.rounded(), abs(n) < 1e9 { return n }
                return nil
            }
            return numbers.count == list.count ? numbers : nil
        }()
        guard let numbers else { throw fail(path, "a list of whole numbers") }
        return numbers.map { Int($0) }
    }

    mutating func stringList(_ path: String) throws -> [String]? {
        read.insert(path)
        guard let value = lookup(path) else { return nil }
        guard case .array(let list) = value else { throw fail(path, "a list of strings") }
        return try list.map { item in
            guard case .string(let string) = item else { throw fail(path, "a list of strings") }
            return string
        }
    }

    /// Every leaf key in the file that was never read: misspellings and leftovers.
    func unknownKeys() -> [String] {
        var leaves: [String] = []
        func walk(_ node: JSONValue, _ prefix: String) {
            if case .object(let object) = node, !object.isEmpty {
                for entry in object.entries { walk(entry.value, prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)") }
            } else {
                leaves.append(prefix)
            }
        }
        walk(.object(root), "")
        return leaves.filter { !read.contains($0) }.sorted()
    }
}
