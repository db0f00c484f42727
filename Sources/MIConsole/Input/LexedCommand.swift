/// psql's variable reference in a line, as ``LineLexer`` finds it:
///
/// - `:NAME`, the value as it is: it may hold several words or options, split by the lexer's
///   quoting rules on its own (its quotes and backslashes end within it; it is not scanned for
///   variables again);
/// - `:'NAME'`, the value as the one word it is written in, whatever it holds;
/// - `:"NAME"`, the same (psql's identifier quoting);
/// - `:{?NAME}`, `true` or `false`: whether NAME is set.
///
/// Nothing inside quotes is a reference, nor after a backslash (`\:NAME`), nor in a comment. A
/// name is ASCII letters, digits and `_`, not starting with a digit.
public struct VariableReference: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case raw, quoted, identifier, isSet }
    public let kind: Kind
    public let name: String

    /// The reference as it is written in a line.
    public var written: String {
        switch kind {
        case .raw: ":" + name
        case .quoted: ":'" + name + "'"
        case .identifier: ":\"" + name + "\""
        case .isSet: ":{?" + name + "}"
        }
    }

    /// Whether `name` may name a variable: ASCII letters, digits and `_`, not starting with a digit.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, isNameStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(isNameScalar)
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || (scalar.isASCII && scalar.properties.isAlphabetic)
    }

    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar)
    }

    /// `:NAME` names a variable that is not set: an error, never an empty string (a typo in a
    /// name must not quietly run `move  asmith`).
    public struct Unset: Error, CustomStringConvertible, Equatable {
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
}

/// One word of a line: its text with the quoting undone, and the variable references in it.
public struct LexedWord: Equatable, Sendable {
    public enum Part: Equatable, Sendable {
        case text(String)
        case reference(VariableReference)
    }

    public var parts: [Part]
    /// Written with a quote or a backslash in it: `'-n'` is text where `-n` is an option.
    public var quoted = false

    /// The word with each reference as it is written (`:x`): what completion sees.
    public var written: String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .reference(let reference): reference.written
            }
        }.joined()
    }
}

/// One command of a line (a line holds several when psql's `\\` separates them).
public struct LexedCommand: Equatable, Sendable {
    /// Text as written, or a reference: what follows the backslash word, for an expression
    /// (``ScriptExpression``), which reads its operators from the text and takes each variable
    /// as one operand.
    public enum Piece: Equatable, Sendable {
        case text(String)
        case reference(VariableReference)
    }

    /// The backslash word it starts with (`\if`, `\echo`), as written; nil for a command.
    public var meta: String?
    /// The words after the backslash word, up to `\gset`.
    public var words: [LexedWord] = []
    /// The words after a `\gset`; nil when it has none.
    public var gset: [LexedWord]?
    /// What follows the backslash word (all of the command when it has none), as written.
    public var pieces: [Piece] = []
    /// The quote left open at the end (an error when the words are used).
    public var openQuote: Character?
    /// The command's text as written (the line's, joined by `\\`, give the line).
    public var written = ""

    /// The backslash word and the words, each variable replaced by what `value` gives for its
    /// name (nil: not set), in the word it is written in.
    public func words(value: (String) throws -> String?) throws -> [String] {
        if let openQuote { throw LineLexer.UnterminatedQuote(quote: openQuote) }
        return (meta.map { [$0] } ?? []) + (try Self.resolve(words, value: value, backslashWordFirst: meta == nil))
    }

    /// The words after `\gset`, variables replaced; nil when there is no `\gset`.
    public func gsetWords(value: (String) throws -> String?) throws -> [String]? {
        if let openQuote { throw LineLexer.UnterminatedQuote(quote: openQuote) }
        return try gset.map { try Self.resolve($0, value: value) }
    }

    /// `backslashWordFirst`: a raw value that starts the command may start with a backslash
    /// word (`-v 'cond=\if true'`, then `:cond`), kept with its backslash as the lexer keeps
    /// one written there, so the run loop can name it.
    static func resolve(_ words: [LexedWord], value: (String) throws -> String?,
                        backslashWordFirst: Bool = false) throws -> [String] {
        var result: [String] = []
        var current: String?
        func endWord() {
            if let word = current { result.append(word) }
            current = nil
        }
        for word in words {
            for (index, part) in word.parts.enumerated() {
                switch part {
                case .text(let text):
                    current = (current ?? "") + text
                case .reference(let reference):
                    if reference.kind == .isSet {
                        current = (current ?? "") + (try value(reference.name) == nil ? "false" : "true")
                        continue
                    }
                    guard let text = try value(reference.name) else { throw VariableReference.Unset(name: reference.name) }
                    if reference.kind != .raw {
                        if index == 0, text.hasPrefix("-") {
                            throw VariableReference.ValueLooksLikeOption(name: reference.name,
                                                                         form: reference.kind == .quoted ? "'" : "\"")
                        }
                        current = (current ?? "") + text
                        continue
                    }
                    // A raw value's own words: the first joins what comes before it in its
                    // word unless the value starts with a space, the last what follows.
                    guard !text.isEmpty else { continue }
                    var rest = Substring(text)
                    if backslashWordFirst, result.isEmpty, current == nil {
                        let start = rest.drop { $0 == " " || $0 == "\t" }
                        if start.first == "\\" {
                            let word = start.prefix { $0 != " " && $0 != "\t" }
                            result.append(String(word))
                            rest = start.dropFirst(word.count)
                        }
                    }
                    let (command, endsInWord) = LineLexer.plain(String(rest))
                    if let quote = command.openQuote { throw LineLexer.UnterminatedQuote(quote: quote) }
                    if let first = rest.unicodeScalars.first, LineLexer.isSpace(first) { endWord() }
                    for (position, piece) in command.words.enumerated() {
                        if position > 0 { endWord() }
                        current = (current ?? "") + piece.written
                    }
                    if !endsInWord { endWord() }
                }
            }
            endWord()
        }
        return result
    }
}
