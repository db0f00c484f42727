import Testing
@testable import MIConsole

@Suite("The one escaping rule")
struct TerminalTextTests {
    @Test(arguments: [
        ("\u{1b}]0;pwned\u{07}", "\\x1b]0;pwned\\x07"),
        ("red\u{1b}[31m", "red\\x1b[31m"),
        ("\u{9b}31m", "\\u{009b}31m"),
        ("abc\u{202E}cba", "abc\\u{202e}cba"),
        ("x\u{2066}y\u{2069}", "x\\u{2066}y\\u{2069}"),
        ("a\u{200B}b\u{FEFF}c\u{00AD}d\u{200E}e", "a\\u{200b}b\\u{feff}c\\u{00ad}d\\u{200e}e"),
        ("line\u{2028}sep", "line\\u{2028}sep"),
        ("name\nerror: fake", "name\\x0aerror: fake"),
        ("tab\there", "tab\\x09here"),
        ("del\u{7F}", "del\\x7f"),
    ])
    func escapes(text: String, expected: String) {
        #expect(TerminalText.escape(text, keepNewlines: false) == expected)
    }

    @Test(arguments: ["plain ASCII", "Zoë Ångström", "日本語", "👨‍👩‍👧 family", "کتاب‌ها", "O'Brien, Seán"])
    func leavesOrdinaryTextAlone(text: String) {
        #expect(TerminalText.escape(text, keepNewlines: false) == text)
    }

    @Test func keepsNewlinesOnlyWhenAsked() {
        #expect(TerminalText.escape("a\nb", keepNewlines: true) == "a\nb")
        #expect(TerminalText.escape("a\r\nb", keepNewlines: true) == "a\\x0d\nb")
    }

    @Test func isIdempotent() {
        let text = "\u{1b}[2J\u{202E}x\ny\u{9b}"
        let once = TerminalText.escape(text, keepNewlines: false)
        #expect(TerminalText.escape(once, keepNewlines: false) == once)
    }
}
