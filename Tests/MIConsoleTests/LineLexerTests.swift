import Testing
@testable import MIConsole

@Suite("Tokenizer")
struct TokenizerTests {
    @Test(arguments: [
        ("move 'jdoe/Pump station 4' asmith", ["move", "jdoe/Pump station 4", "asmith"]),
        ("move \"jdoe/Pump \\\"4\\\"\" asmith", ["move", "jdoe/Pump \"4\"", "asmith"]),
        ("move jdoe/Pump\\ 4 asmith", ["move", "jdoe/Pump 4", "asmith"]),
        ("forms # a comment", ["forms"]),
        ("forms a#b", ["forms", "a#b"]),
        ("  \t ", []),
        ("comment 7 ''", ["comment", "7", ""]),
        ("say \"a\\nb\"", ["say", "a\\nb"]),
    ])
    func splits(line: String, words: [String]) throws {
        #expect(try LineLexer.split(line) == words)
        // A console line with no script syntax gives the same words.
        #expect(try LineLexer.lex(line).commands[0].words { _ in nil } == words)
    }

    @Test func unterminatedQuotesAreErrors() {
        #expect(throws: LineLexer.UnterminatedQuote.self) { try LineLexer.split("show 'jdoe/x") }
        #expect(throws: LineLexer.UnterminatedQuote.self) { try LineLexer.split("show \"jdoe/x") }
        #expect(throws: LineLexer.UnterminatedQuote(quote: "'")) { try LineLexer.lex("show 'jdoe/x").commands[0].words { _ in nil } }
    }

    @Test(arguments: ["plain", "with space", "it's", "#hash", "", "back\\slash", "new\nline", "Zoë Ångström", "a\"b"])
    func quoteRoundTrips(word: String) throws {
        #expect(try LineLexer.split(LineLexer.quote(word)) == [word])
    }

    @Test func lexTellsWhetherTheLineEndsInAWord() throws {
        #expect(LineLexer.lex("move jd").endsInWord)
        #expect(!LineLexer.lex("move ").endsInWord)
        #expect(LineLexer.lex("show 'jdoe/Pump st").endsInWord)
        #expect(LineLexer.lex("\\tim").endsInWord)
        #expect(!LineLexer.lex("\\timing ").endsInWord)
        #expect(!LineLexer.lex("forms # x").endsInWord)
    }
}

@Suite("Line lexer")
struct LineLexerTests {
    func command(_ line: String) -> LexedCommand {
        let commands = LineLexer.lex(line).commands
        #expect(commands.count == 1)
        return commands[0]
    }

    /// Words and the command's text as written keep every scalar, whatever its UTF-8 length.
    @Test func textBeyondASCIIKeepsItsScalars() throws {
        let line = "move 'Zoë/Straße 4' Ångström\\ 🛠 x\u{301}"
        let lexed = command(line)
        #expect(lexed.written == line)
        #expect(try lexed.words { _ in nil } == ["move", "Zoë/Straße 4", "Ångström 🛠", "x\u{301}"])
    }

    @Test func aBackslashWordStartsACommandAndKeepsItsBackslash() throws {
        let echo = command("  \\echo -n 'a b' c")
        #expect(echo.meta == "\\echo")
        #expect(try echo.words { _ in nil } == ["\\echo", "-n", "a b", "c"])
        // Later in the line a backslash quotes the next character, as in a shell.
        #expect(command("show \\x").meta == nil)
        #expect(try command("show \\x").words { _ in nil } == ["show", "x"])
    }

    @Test func wordsKeepTheirReferencesUntilLookedUp() {
        let lexed = command("move :'form' x:y :to --note=:\"n\" ':q' \\:r :{?s}")
        #expect(lexed.words == [
            LexedWord(parts: [.text("move")]),
            LexedWord(parts: [.reference(VariableReference(kind: .quoted, name: "form"))], quoted: true),
            LexedWord(parts: [.text("x:y")]),
            LexedWord(parts: [.reference(VariableReference(kind: .raw, name: "to"))]),
            LexedWord(parts: [.text("--note="), .reference(VariableReference(kind: .identifier, name: "n"))], quoted: true),
            LexedWord(parts: [.text(":q")], quoted: true),
            LexedWord(parts: [.text(":r")], quoted: true),
            LexedWord(parts: [.reference(VariableReference(kind: .isSet, name: "s"))]),
        ])
        #expect(lexed.words.map(\.written) == ["move", ":'form'", "x:y", ":to", "--note=:\"n\"", ":q", ":r", ":{?s}"])
    }

    @Test func separatorsCutTheLineIntoCommandsThatGiveItBack() throws {
        let line = "whoami \\gset p_ \\\\ \\echo :p_uid '\\\\' \\\\  forms # \\\\ in a comment"
        let commands = LineLexer.lex(line).commands
        #expect(commands.count == 3)
        #expect(commands.map(\.written).joined(separator: "\\\\") == line)
        #expect(try commands[0].words { _ in nil } == ["whoami"])
        #expect(try commands[0].gsetWords { _ in nil } == ["p_"])
        #expect(commands[1].meta == "\\echo")
        #expect(try commands[1].words { _ in "jdoe" } == ["\\echo", "jdoe", "\\\\"])
        #expect(try commands[2].words { _ in nil } == ["forms"])
        // A separator at the start, or the word `\\` only: `a\\\\b` is text.
        #expect(LineLexer.lex("\\\\ forms").commands.map(\.written) == ["", " forms"])
        #expect(LineLexer.lex("echo a\\\\b").commands.count == 1)
    }

    @Test func gsetIsAWordOfItsOwnOutsideQuotes() throws {
        #expect(try command("whoami \\gset").gsetWords { _ in nil } == [])
        #expect(try command("comment 7 '\\gset'").gsetWords { _ in nil } == nil)
        #expect(try command("comment 7 x\\gset").gsetWords { _ in nil } == nil)
        #expect(try command("forms # \\gset").gsetWords { _ in nil } == nil)
        // Before any word it is still `\gset` (the run loop says a command must come first).
        #expect(try command("\\gset p").gsetWords { _ in nil } == ["p"])
        #expect(command("\\gset p").meta == nil)
    }

    /// A value is looked up on the lexed words: whatever it holds, it cannot become a
    /// separator, a `\gset`, a quote or a comment of the line.
    @Test func aValueCannotBecomeLineSyntax() throws {
        let value = "x' \\\\ \\gset y # \"z"
        let lexed = LineLexer.lex("comment 7 :'v' --yes")
        #expect(lexed.commands.count == 1)
        #expect(try lexed.commands[0].words { _ in value } == ["comment", "7", value, "--yes"])
        #expect(try lexed.commands[0].gsetWords { _ in value } == nil)
        // A raw value is split into words, on its own: a quote in it does not reach the line.
        #expect(throws: LineLexer.UnterminatedQuote(quote: "'")) { try command("show :v 'b'").words { _ in "a'" } }
        #expect(try command("show :v").words { _ in "\\gset \\\\ x" } == ["show", "gset", "\\", "x"])
    }

    @Test func expressionPiecesAreTheTextAfterTheBackslashWord() {
        #expect(command("\\if :n > 0 AND :'s' = 'a :x'").pieces == [
            .text(" "), .reference(VariableReference(kind: .raw, name: "n")), .text(" > 0 AND "),
            .reference(VariableReference(kind: .quoted, name: "s")), .text(" = 'a :x'"),
        ])
    }

    @Test func scansScalarsNotCharacters() throws {
        // `'` followed by a combining mark is one Character but still the quote.
        #expect(try LineLexer.split("a '\u{301}b' c") == ["a", "\u{301}b", "c"])
    }
}
