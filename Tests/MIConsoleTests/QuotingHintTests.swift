@testable import MIConsole
import Testing

/// The hint added to a parse error for extra words: a forgotten `--note` is not told to quote
/// three words into one form name, and `comment 13 Looks fine` gets a hint.
@Suite struct QuotingHintTests {
    @Test(arguments: [
        // A quoted name, then a quoted phrase: the --note was forgotten.
        (["move", "jdoe/Valve check – north", "asmith", "on leave"],
         "; to give a reason use --note, as in: move 'jdoe/Valve check – north' asmith --note 'on leave'"),
        (["submit", "12", "all checked"], "; to give a reason use --note, as in: submit 12 --note 'all checked'"),
        // The comment's text in several words.
        (["comment", "13", "Looks", "fine"], "; the comment's text must be quoted, as in: comment 13 'Looks fine'"),
        (["comment", "jdoe/Pump station 4", "Gauge", "photo", "missing", "--note", "x"],
         "; the comment's text must be quoted, as in: comment 'jdoe/Pump station 4' 'Gauge photo missing'"),
        // A name split into words: quote it (as before).
        (["show", "jdoe/Pump", "station", "4"], "; a form name with spaces must be quoted, as in: show 'jdoe/Pump station 4'"),
    ])
    func theHintSaysWhatToType(example: (words: [String], hint: String)) {
        #expect(CommandRunner.quotingHint(example.words) == example.hint)
    }

    @Test func noHintWithoutExtraWords() {
        #expect(CommandRunner.quotingHint(["move", "12"]) == nil)
        #expect(CommandRunner.quotingHint(["whoami", "x", "y"]) == nil)
    }
}
