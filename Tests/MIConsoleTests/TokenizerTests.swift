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
        #expect(try Tokenizer.split(line) == words)
    }

    @Test func unterminatedQuotesAreErrors() {
        #expect(throws: Tokenizer.UnterminatedQuote.self) { try Tokenizer.split("show 'jdoe/x") }
        #expect(throws: Tokenizer.UnterminatedQuote.self) { try Tokenizer.split("show \"jdoe/x") }
    }

    @Test(arguments: ["plain", "with space", "it's", "#hash", "", "back\\slash", "new\nline", "Zoë Ångström", "a\"b"])
    func quoteRoundTrips(word: String) throws {
        #expect(try Tokenizer.split(Tokenizer.quote(word)) == [word])
    }

    @Test func scanTellsWhetherTheLineEndsInAWord() throws {
        #expect(try Tokenizer.scan("move jd").endsInWord)
        #expect(try !Tokenizer.scan("move ").endsInWord)
    }
}
