/// The one reader of a console line, in the manner of psql's `psqlscan.l`: a single pass over the
/// line that yields its commands (psql's `\\` separates several), each with its backslash word
/// (`\if`, `\echo`), its words with their quoting undone and the variable references left in
/// place (`:x`, `:'x'`, `:"x"`, `:{?x}`), and the words after a trailing `\gset`. The prompt,
/// `-c`, script files, pipes, `source`/`\i`/`\ir` and Tab completion all read lines with it.
///
/// Words use shell-like quoting, so form names with spaces can be typed (`move 'jdoe/Pump
/// station 4' asmith`): `'...'` is literal; `"..."` allows `\"` and `\\`; a backslash outside
/// quotes makes the next character literal; an unquoted `#` at the start of a word begins a
/// comment, which ends the line. Hand-written: no library tokenizes shell words, and `wordexp(3)`
/// would run expansions.
///
/// Variables are looked up later, on the words (``LexedCommand/words(value:)``), so a value
/// never becomes quoting, a separator, a `\gset` or a comment of the line it lands in.
///
/// Scans Unicode scalars, not Characters: a combining mark after a quote, a space or a backslash
/// (`'\u{301}`) would otherwise glue to it into one Character that is no longer the quote, and
/// `quote` then `split` would lose a word (the tokenizer fuzz target checks it).
public enum LineLexer {
    public struct UnterminatedQuote: Error, CustomStringConvertible, Equatable {
        public let quote: Character
        public var description: String { "unterminated \(quote) quote" }
    }

    /// A line's commands, and whether the line ends inside an unfinished word (for completion:
    /// the last word is the one being typed). A line with no `\\` is one command.
    public static func lex(_ line: String) -> (commands: [LexedCommand], endsInWord: Bool) {
        var scanner = Scanner(line, script: true)
        scanner.run()
        return (scanner.commands, scanner.inWord)
    }

    /// The words of text that holds no script syntax (no variables, backslash words or `\\`):
    /// a `-c` line's first word, a raw variable's value, an example in the docs.
    public static func split(_ text: String) throws -> [String] {
        let command = plain(text).command
        if let quote = command.openQuote { throw UnterminatedQuote(quote: quote) }
        return command.words.map(\.written)
    }

    /// `text` read as ``split(_:)`` reads it, and whether it ends inside a word.
    static func plain(_ text: String) -> (command: LexedCommand, endsInWord: Bool) {
        var scanner = Scanner(text, script: false)
        scanner.run()
        return (scanner.commands[0], scanner.inWord)
    }

    /// Quotes a word so the lexer gives it back unchanged (for completion and history).
    public static func quote(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./@:+=,%".contains($0) }
        guard !plain else { return word }
        // By scalars, like the scan: a `'` followed by a combining mark is still a quote to it.
        var quoted = String.UnicodeScalarView(["'"])
        for scalar in word.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: "'\\''".unicodeScalars) } else { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    /// `scalars` as a String, made from their UTF-8 bytes. (`String.UnicodeScalarView`'s append
    /// of a collection of scalars maps them through an unspecialised generic path, several
    /// hundred instructions a scalar: lexing a `move ID TECHNICIAN` line cost more than
    /// argument-parser's parse of it.)
    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar.isASCII {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The one pass. `script`: the line is a console line (variables, a leading backslash word,
    /// `\\`, `\gset`); otherwise plain words.
    private struct Scanner {
        let scalars: [Unicode.Scalar]
        let script: Bool
        var index = 0
        var commands: [LexedCommand] = []
        var command = LexedCommand()
        /// Where the current command's text begins, and its text as written not yet in a piece.
        var commandStart = 0
        var pieceStart = 0
        var parts: [LexedWord.Part] = []
        /// The text of the word part being read.
        var text: [Unicode.Scalar] = []
        var inWord = false
        /// The word being read holds a quote or a backslash.
        var quotedWord = false
        var inGset = false
        /// The line ends in a backslash word (completion is still in it).
        var inMeta = false

        init(_ line: String, script: Bool) {
            scalars = Array(line.unicodeScalars)
            self.script = script
        }

        mutating func run() {
            while index < scalars.count {
                let scalar = scalars[index]
                switch scalar {
                case _ where LineLexer.isSpace(scalar):
                    endWord()
                    index += 1
                case "#" where !inWord:
                    index = scalars.count  // a comment: the rest of the line
                case "'", "\"":
                    quoted(by: scalar)
                case "\\":
                    backslash()
                case ":" where script:
                    colon()
                default:
                    inWord = true
                    text.append(scalar)
                    index += 1
                }
            }
            let open = inWord || inMeta
            endCommand(at: scalars.count)
            inWord = open
        }

        private mutating func quoted(by quote: Unicode.Scalar) {
            inWord = true
            quotedWord = true
            index += 1
            while index < scalars.count, scalars[index] != quote {
                if quote == "\"", scalars[index] == "\\", index + 1 < scalars.count {
                    let next = scalars[index + 1]
                    if next != "\"" && next != "\\" { text.append("\\") }
                    text.append(next)
                    index += 2
                } else {
                    text.append(scalars[index])
                    index += 1
                }
            }
            if index < scalars.count {
                index += 1
            } else if command.openQuote == nil {
                command.openQuote = Character(quote)
            }
        }

        private mutating func backslash() {
            if script && !inWord {
                if isWord("\\\\") {
                    endCommand(at: index)
                    index += 2
                    commandStart = index
                    pieceStart = index
                    return
                }
                if !inGset && isWord("\\gset") {
                    inGset = true
                    command.gset = []
                    index += 5
                    return
                }
                if command.meta == nil && command.words.isEmpty && !inGset {
                    let start = index
                    while index < scalars.count, scalars[index] != " ", scalars[index] != "\t" { index += 1 }
                    command.meta = LineLexer.string(scalars[start..<index])
                    pieceStart = index
                    inMeta = index == scalars.count
                    return
                }
            }
            inWord = true
            quotedWord = true
            index += 1
            if index < scalars.count {
                text.append(scalars[index])
                index += 1
            }
        }

        /// A variable reference, or a colon that is text: right after a letter, a digit, `_` or
        /// another colon (`10:00`, `host:5432`, a URL), or starting no reference (`:`, `:-`,
        /// `:'x` without its closing quote).
        private mutating func colon() {
            let previous = index > 0 ? scalars[index - 1] : nil
            let isText = previous.map { $0 == ":" || $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil } ?? false
            guard !isText, let (reference, end) = reference(at: index) else {
                inWord = true
                text.append(":")
                index += 1
                return
            }
            // An empty quoted start (`'':x`) is still a start: the word is there even when empty.
            if inWord && parts.isEmpty && text.isEmpty { parts.append(.text("")) }
            flushText()
            parts.append(.reference(reference))
            inWord = true
            // A quoted reference is a value, never an option word.
            if reference.kind == .quoted || reference.kind == .identifier { quotedWord = true }
            addPiece(.text(LineLexer.string(scalars[pieceStart..<index])))
            command.pieces.append(.reference(reference))
            index = end
            pieceStart = end
        }

        private func reference(at start: Int) -> (VariableReference, Int)? {
            var index = start + 1
            guard index < scalars.count else { return nil }
            func name(from first: Int) -> (String, Int)? {
                guard first < scalars.count, VariableReference.isNameStart(scalars[first]) else { return nil }
                var end = first
                while end < scalars.count, VariableReference.isNameScalar(scalars[end]) { end += 1 }
                return (LineLexer.string(scalars[first..<end]), end)
            }
            switch scalars[index] {
            case "'", "\"":
                let quote = scalars[index]
                guard let (name, end) = name(from: index + 1), end < scalars.count, scalars[end] == quote else { return nil }
                return (VariableReference(kind: quote == "'" ? .quoted : .identifier, name: name), end + 1)
            case "{":
                index += 1
                guard index < scalars.count, scalars[index] == "?",
                      let (name, end) = name(from: index + 1), end < scalars.count, scalars[end] == "}" else { return nil }
                return (VariableReference(kind: .isSet, name: name), end + 1)
            default:
                guard let (name, end) = name(from: index) else { return nil }
                return (VariableReference(kind: .raw, name: name), end)
            }
        }

        /// Whether the word starting here is `word` (followed by a space or the end).
        private func isWord(_ word: String) -> Bool {
            let wanted = Array(word.unicodeScalars)
            let end = index + wanted.count
            return end <= scalars.count && Array(scalars[index..<end]) == wanted
                && (end == scalars.count || LineLexer.isSpace(scalars[end]))
        }

        private mutating func flushText() {
            if !text.isEmpty { parts.append(.text(LineLexer.string(text[...]))); text.removeAll(keepingCapacity: true) }
        }

        private mutating func endWord() {
            guard inWord else { return }
            flushText()
            // An empty quoted word (`''`) is a word.
            let word = LexedWord(parts: parts.isEmpty ? [.text("")] : parts, quoted: quotedWord)
            if inGset { command.gset!.append(word) } else { command.words.append(word) }
            parts = []
            inWord = false
            quotedWord = false
        }

        private mutating func addPiece(_ piece: LexedCommand.Piece) {
            if case .text(let text) = piece, text.isEmpty { return }
            command.pieces.append(piece)
        }

        private mutating func endCommand(at end: Int) {
            endWord()
            addPiece(.text(LineLexer.string(scalars[min(pieceStart, end)..<end])))
            command.written = LineLexer.string(scalars[commandStart..<end])
            commands.append(command)
            command = LexedCommand()
            inGset = false
        }
    }
}
