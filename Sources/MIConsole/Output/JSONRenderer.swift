import MICommands

/// One JSON value per command: an object for a record, an array for a listing (written element
/// by element as rows arrive), `{"message": ...}` for a message. A run of several commands puts
/// them in one array, or one per line with `--json-lines` (``RunOutput``).
///
/// Characters TerminalText escapes are written as `\uXXXX` (the same value for a JSON reader).
/// The string escaper is hand-written because `JSONEncoder` encodes whole values; a streamed
/// listing needs to write each element as it comes.
final class JSONRenderer: RenderingSink {
    var state: RenderingState

    init(out: OutputStream, err: OutputStream) {
        state = RenderingState(out: out, err: err)
    }

    private var columns: [Column] = []
    private var first = true
    /// A listing's `[` is out and its `]` not yet.
    private var inRows = false
    /// Rows go on one line (`--json-lines`).
    private var oneLine: Bool { run.json == .lines }

    func record(_ columns: [Column], _ values: [Value]) {
        let text = unsaved ? object(columns + [Column("saved")], values + [.bool(false)]) : object(columns, values)
        out.write(run.jsonValueStarts() + text + run.jsonValueEnd)
    }

    func beginRows(_ columns: [Column]) {
        self.columns = columns
        first = true
        inRows = true
        out.write(run.jsonValueStarts() + "[")
    }

    func row(_ values: [Value]) {
        let separator = first ? (oneLine ? "" : "\n") : (oneLine ? "," : ",\n")
        out.append { bytes in
            bytes.append(contentsOf: separator.utf8)
            appendObject(columns, values, to: &bytes)
        }
        first = false
    }

    func endRows() {
        inRows = false
        out.write((first || oneLine ? "]" : "\n]") + run.jsonValueEnd)
    }

    func message(_ text: String) {
        out.write(run.jsonValueStarts() + "{\"message\":" + JSONRenderer.string(text) + "}" + run.jsonValueEnd)
    }

    func closingUnsaved(_ text: String) {
        out.write(run.jsonValueStarts() + "{\"saved\":false,\"message\":" + JSONRenderer.string(text) + "}" + run.jsonValueEnd)
        finish()
    }

    /// A listing an error or Ctrl-C cut short is closed where it stopped: the output stays JSON.
    func commandEnded() {
        if inRows { endRows() }
        finish()
    }

    private func object(_ columns: [Column], _ values: [Value]) -> String {
        var bytes: [UInt8] = []
        appendObject(columns, values, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A row as one JSON object, written into the output's buffer: strings and times need no
    /// `String` of their own (a million-row listing made a dozen per row).
    private func appendObject(_ columns: [Column], _ values: [Value], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, (column, value)) in zip(columns, values).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendString(column.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch value {
            case .string(let text): Self.appendString(text, to: &bytes)
            case .time(let date):
                bytes.append(UInt8(ascii: "\""))
                times.appendISO8601(date, to: &bytes)
                bytes.append(UInt8(ascii: "\""))
            default: bytes.append(contentsOf: Self.value(value, times: times).utf8)
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    static func value(_ value: Value, times: TimeText) -> String {
        switch value {
        case .string(let s): return string(s)
        case .time(let date): return string(times.iso8601(date))
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? value.text : "null"
        case .number(let literal): return literal
        case .grid(let table):
            // {"columns": [..], "rows": [..], "cells": [[string or null]], "noCells": [[row, column]]}
            let cells = table.cells.map { row in "[" + row.map { $0.map(string) ?? "null" }.joined(separator: ",") + "]" }
            return "{\"columns\":[" + table.columns.map(string).joined(separator: ",") + "],\"rows\":["
                + table.rows.map(string).joined(separator: ",") + "],\"cells\":[" + cells.joined(separator: ",")
                + "],\"noCells\":[" + table.noCells.map { "[\($0.row),\($0.column)]" }.joined(separator: ",") + "]}"
        case .bool(let b): return b ? "true" : "false"
        case .list(let items): return "[" + items.map { self.value($0, times: times) }.joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { string($0.key) + ":" + self.value($0.value, times: times) }.joined(separator: ",") + "}"
        case .null: return "null"
        }
    }

    static func string(_ s: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count + 2)
        appendString(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string literal. ASCII (nearly every value of a listing) is escaped byte by byte;
    /// other text character by character: controls and C1 controls as `\uXXXX`.
    static func appendString(_ s: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in s.utf8 { appendASCII(byte, to: &bytes) }
        } else {
            for scalar in s.unicodeScalars {
                if scalar.isASCII {
                    appendASCII(UInt8(scalar.value), to: &bytes)
                } else if isEscaped(scalar) {
                    appendUnicodeEscape(scalar.value, to: &bytes)
                } else {
                    UTF8.encode(scalar) { bytes.append($0) }
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A non-ASCII character written as `\uXXXX` rather than as itself.
    private static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        // TerminalText's rule, as JSON escapes: the value stays the same, but a terminal showing
        // the output is neither driven nor has its text reordered (bidi and other format characters).
        TerminalText.isUnsafe(scalar)
    }

    private static func appendASCII(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 10: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 13: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 9: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20, 0x7F: appendUnicodeEscape(UInt32(byte), to: &bytes)
        default: bytes.append(byte)
        }
    }

    /// `\uXXXX` (lower-case hex); a surrogate pair above U+FFFF.
    private static func appendUnicodeEscape(_ value: UInt32, to bytes: inout [UInt8]) {
        guard value <= 0xFFFF else {
            let v = value - 0x10000
            appendUnicodeEscape(0xD800 + (v >> 10), to: &bytes)
            appendUnicodeEscape(0xDC00 + (v & 0x3FF), to: &bytes)
            return
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), hex[Int(value >> 12)], hex[Int((value >> 8) & 0xF)],
                                  hex[Int((value >> 4) & 0xF)], hex[Int(value & 0xF)]])
    }
}
