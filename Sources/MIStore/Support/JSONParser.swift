import Foundation

/// Why a JSON text could not be read, with the 1-based line and column of the problem.
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let reason: String

    public var description: String { "invalid JSON at line \(line), column \(column): \(reason)" }
}

/// How much a JSON text may hold. A form.json from the field app is a few kilobytes, about five
/// levels deep, with tens of keys per object; the caps are far above that and low enough that a
/// hostile file is refused in well under a second instead of eating memory and time.
public struct JSONLimits: Sendable, Equatable {
    /// Bytes in the whole text.
    public var maximumBytes: Int
    /// Arrays and objects inside each other.
    public var maximumDepth: Int
    /// Keys in one object.
    public var maximumKeys: Int
    /// Elements in one array.
    public var maximumArrayLength: Int
    /// UTF-8 bytes in one string (a key or a value), after unescaping.
    public var maximumStringBytes: Int

    public init(maximumBytes: Int, maximumDepth: Int, maximumKeys: Int, maximumArrayLength: Int, maximumStringBytes: Int) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumKeys = maximumKeys
        self.maximumArrayLength = maximumArrayLength
        self.maximumStringBytes = maximumStringBytes
    }

    /// The caps for a form.json and the config file (docs/store.md, "Limits of form.json").
    public static let standard = JSONLimits(maximumBytes: 8 << 20, maximumDepth: 64, maximumKeys: 10_000,
                                            maximumArrayLength: 100_000, maximumStringBytes: 1 << 20)
}

/// A small strict JSON reader (RFC 8259) that keeps object key order and number literals.
///
/// Duplicate keys in one object are an error: a form must not say two things at once. Linear in
/// the size of the text (keys are found by hashing, 2026-11: a 710 KB file of keys took 93 s when
/// each key was compared with all before it) and bounded by ``JSONLimits``.
struct JSONParser {
    private let bytes: [UInt8]
    private let limits: JSONLimits
    private var index = 0
    private var depth = 0

    static func parse(_ data: Data, limits: JSONLimits = .standard) throws(JSONSyntaxError) -> JSONValue {
        guard data.count <= limits.maximumBytes else {
            throw JSONSyntaxError(line: 1, column: 1, reason: "the text is \(data.count) bytes; at most \(limits.maximumBytes) are allowed")
        }
        var parser = JSONParser(bytes: Array(data), limits: limits)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }  // UTF-8 byte order mark
        guard String(validating: parser.bytes, as: UTF8.self) != nil else {
            throw JSONSyntaxError(line: 1, column: 1, reason: "the file is not valid UTF-8")
        }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        var line = 1, column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected a value")
        }
        index += expected.count
        return value
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of file, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try nested { (p) throws(JSONSyntaxError) in try p.parseObject() }
        case UInt8(ascii: "["): return try nested { (p) throws(JSONSyntaxError) in try p.parseArray() }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("expected a value")
        }
    }

    private mutating func nested(_ body: (inout JSONParser) throws(JSONSyntaxError) -> JSONValue) throws(JSONSyntaxError) -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.maximumDepth else {
            throw error("nested more than \(limits.maximumDepth) levels deep")
        }
        return try body(&self)
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        index += 1  // {
        var entries: [(String, JSONValue)] = []
        var seen = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(JSONObject()) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let keyStart = index
            let key = try parseString()
            guard seen.insert(key).inserted else {
                index = keyStart
                let shown = key.count > 80 ? String(key.prefix(80)) + "…" : key
                throw error("duplicate key \"\(shown)\"")
            }
            guard entries.count < limits.maximumKeys else {
                index = keyStart
                throw error("more than \(limits.maximumKeys) keys in one object")
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after the key") }
            index += 1
            skipWhitespace()
            entries.append((key, try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(JSONObject(uniqueEntries: entries))
            case nil: throw error("unexpected end of file inside an object")
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            guard elements.count < limits.maximumArrayLength else {
                throw error("more than \(limits.maximumArrayLength) elements in one array")
            }
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            case nil: throw error("unexpected end of file inside an array")
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.index
            while let byte = parser.current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { parser.index += 1 }
            return parser.index - from
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            throw error("expected a digit")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unexpected end of file inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("control character inside a string (escape it)")
            default:
                utf8.append(byte)
                index += 1
            }
            guard utf8.count <= limits.maximumStringBytes else {
                throw error("a string longer than \(limits.maximumStringBytes) bytes")
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = current else { throw error("unexpected end of file inside a string") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired UTF-16 surrogate in \\u escape")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired UTF-16 surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            index -= 1
            throw error("invalid escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    /// Exactly four hex digits. (Not `UInt32(_:radix:)`, which also takes a sign: `\\u+fff`.)
    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("expected four hex digits after \\u") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}

extension JSONValue {
    /// Parses a JSON document strictly (RFC 8259; duplicate keys refused), keeping key order and
    /// number literals. Errors give the line and column.
    public static func parse(_ data: Data, limits: JSONLimits = .standard) throws(JSONSyntaxError) -> JSONValue {
        try JSONParser.parse(data, limits: limits)
    }
}
