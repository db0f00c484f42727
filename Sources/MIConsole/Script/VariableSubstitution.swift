/// psql's variable references in a script line, replaced before the line is tokenized:
///
/// - `:NAME` by the value as it is (it may hold several words, quotes, options);
/// - `:'NAME'` by the value quoted for ``Tokenizer`` (``Tokenizer/quote(_:)``), so whatever it
///   holds — spaces, quotes, `#`, a backslash — stays one word, the word it is written in;
/// - `:"NAME"` by the value double-quoted (psql's identifier quoting; `"` and `\` escaped with
///   a backslash), also one word;
/// - `:{?NAME}` by `true` or `false`: whether NAME is set.
///
/// Nothing inside quotes is replaced, nor after a backslash (`\:NAME` is the text `:NAME`), nor
/// in a comment. A colon right after a letter, a digit, `_` or another colon is text, not a
/// reference: times (`10:00`), a `host:port`, a URL keep working unchanged in scripts written
/// before variables existed. A name is ASCII letters, digits and `_`, not starting with a digit.
/// Values are not scanned again: a value holding `:OTHER` is that text.
public enum VariableSubstitution {
    /// A piece of a line: text as written, or a reference to replace.
    public enum Piece: Equatable, Sendable {
        case text(String)
        /// `atWordStart`: nothing of its word comes before it (a value that starts with `-`
        /// there would be read as an option).
        case reference(Reference, atWordStart: Bool)
    }

    public struct Reference: Equatable, Sendable {
        public enum Kind: Equatable, Sendable { case raw, quoted, identifier, isSet }
        public let kind: Kind
        public let name: String
    }

    /// `:NAME` names a variable that is not set: an error, never an empty string (a typo in a
    /// name must not quietly run `move  asmith`).
    public struct UnsetVariable: Error, CustomStringConvertible, Equatable {
        public let name: String
        public var description: String {
            "variable '\(name)' is not set (set it with \\set \(name) VALUE, or -v \(name)=VALUE on the command line)"
        }
    }

    /// `:'NAME'` starts a word and its value starts with `-`: the command would read it as an
    /// option, which a quoted value must never become.
    public struct ValueLooksLikeOption: Error, CustomStringConvertible, Equatable {
        public let name: String
        /// The quote it was written with: `'` or `"`.
        public var form = "'"
        public var description: String {
            "the value of :\(form)\(name)\(form) starts with '-' and would be read as an option; "
                + "give it after the option with '=' (as in --note=:\(form)\(name)\(form))"
        }
    }

    /// A value as one double-quoted word of the tokenizer: `"` and `\` escaped.
    static func doubleQuoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The line with every reference replaced by what `value` gives for its name.
    public static func apply(_ line: String, value: (String) throws -> String?) throws -> String {
        // Most lines hold no colon at all: no scan (a script of many thousand moves).
        guard line.utf8.contains(UInt8(ascii: ":")) else { return line }
        let pieces = parse(line)
        // The common line (no reference at all) comes back as it was.
        if pieces.count <= 1, case .text(let text)? = pieces.first { return text }
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text):
                result += text
            case .reference(let reference, let atWordStart):
                switch reference.kind {
                case .isSet:
                    result += try value(reference.name) == nil ? "false" : "true"
                case .raw:
                    guard let text = try value(reference.name) else { throw UnsetVariable(name: reference.name) }
                    result += text
                case .quoted, .identifier:
                    guard let text = try value(reference.name) else { throw UnsetVariable(name: reference.name) }
                    if atWordStart, text.hasPrefix("-") {
                        throw ValueLooksLikeOption(name: reference.name, form: reference.kind == .quoted ? "'" : "\"")
                    }
                    result += reference.kind == .quoted ? Tokenizer.quote(text) : doubleQuoted(text)
                }
            }
        }
        return result
    }

    /// The line's text and references, scanned with the tokenizer's quoting rules (by Unicode
    /// scalars, as ``Tokenizer`` scans).
    public static func parse(_ line: String) -> [Piece] {
        let scalars = Array(line.unicodeScalars)
        var pieces: [Piece] = []
        var text = String.UnicodeScalarView()
        var inWord = false
        var index = 0
        func flush() {
            if !text.isEmpty { pieces.append(.text(String(text))); text = String.UnicodeScalarView() }
        }
        func copy(to end: Int) {
            text.append(contentsOf: scalars[index..<min(end, scalars.count)])
            index = min(end, scalars.count)
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case " ", "\t", "\n", "\r":
                inWord = false
                copy(to: index + 1)
            case "#" where !inWord:
                copy(to: scalars.count)  // a comment: the rest of the line as it is
            case "'":
                inWord = true
                var end = index + 1
                while end < scalars.count, scalars[end] != "'" { end += 1 }
                copy(to: end + 1)
            case "\"":
                inWord = true
                var end = index + 1
                while end < scalars.count, scalars[end] != "\"" {
                    end += scalars[end] == "\\" ? 2 : 1
                }
                copy(to: end + 1)
            case "\\":
                inWord = true
                copy(to: index + 2)
            case ":":
                let previous = index > 0 ? scalars[index - 1] : nil
                if let previous, previous == ":" || previous == "_" || previous.properties.isAlphabetic
                    || previous.properties.numericType != nil {
                    copy(to: index + 1)
                } else if let (reference, end) = reference(in: scalars, at: index) {
                    flush()
                    pieces.append(.reference(reference, atWordStart: !inWord))
                    index = end
                } else {
                    copy(to: index + 1)
                }
                inWord = true
            default:
                inWord = true
                copy(to: index + 1)
            }
        }
        flush()
        return pieces
    }

    /// The reference that starts with the colon at `start`, and where it ends; nil when the
    /// colon starts none (`:` alone, `:-`, `:'x` without its closing quote).
    private static func reference(in scalars: [Unicode.Scalar], at start: Int) -> (Reference, Int)? {
        var index = start + 1
        guard index < scalars.count else { return nil }
        func name(from first: Int) -> (String, Int)? {
            guard first < scalars.count, isNameStart(scalars[first]) else { return nil }
            var end = first
            while end < scalars.count, isNameScalar(scalars[end]) { end += 1 }
            return (String(String.UnicodeScalarView(scalars[first..<end])), end)
        }
        switch scalars[index] {
        case "'", "\"":
            let quote = scalars[index]
            guard let (name, end) = name(from: index + 1), end < scalars.count, scalars[end] == quote else { return nil }
            return (Reference(kind: quote == "'" ? .quoted : .identifier, name: name), end + 1)
        case "{":
            index += 1
            guard index < scalars.count, scalars[index] == "?",
                  let (name, end) = name(from: index + 1), end < scalars.count, scalars[end] == "}" else { return nil }
            return (Reference(kind: .isSet, name: name), end + 1)
        default:
            guard let (name, end) = name(from: index) else { return nil }
            return (Reference(kind: .raw, name: name), end)
        }
    }

    /// Whether `name` may name a variable: ASCII letters, digits and `_`, not starting with a digit.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isNameStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isNameScalar)
    }

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || (scalar.isASCII && scalar.properties.isAlphabetic)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar)
    }
}
