import Foundation
import MIConsole

enum TerminalTargets {
    /// Any text, escaped as every value from the directory or the store is before it reaches a
    /// terminal: nothing that moves the cursor, changes colours, reorders text or starts a new
    /// line survives, and escaping twice changes nothing more.
    static func terminal(_ data: Data) throws(FuzzFinding) {
        let text = String(decoding: data, as: UTF8.self)
        for keepNewlines in [false, true] {
            let escaped = TerminalText.escape(text, keepNewlines: keepNewlines)
            for scalar in escaped.unicodeScalars where scalar != "\n" || !keepNewlines {
                try check(!TerminalText.isUnsafe(scalar), "U+\(String(scalar.value, radix: 16)) survived escaping")
            }
            try check(TerminalText.escape(escaped, keepNewlines: keepNewlines) == escaped, "escaping is not idempotent")
        }
    }
}
