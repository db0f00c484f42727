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
        // A name split into words that form an existing form's name: quote it.
        (["show", "jdoe/Pump", "station", "4"], "; a form name with spaces must be quoted, as in: show 'jdoe/Pump station 4'"),
        // A space after (or before) a comma split a list of technicians.
        (["move", "jdoe/*", "zangstrom,", "jdoe"],
         "; a space after a comma splits the list, write it without, as in: move 'jdoe/*' zangstrom,jdoe"),
        (["move", "jdoe/*", "zangstrom", ",jdoe", "--balance"],
         "; a space after a comma splits the list, write it without, as in: move 'jdoe/*' zangstrom,jdoe --balance"),
    ])
    func theHintSaysWhatToType(example: (words: [String], hint: String)) {
        #expect(CommandRunner.quotingHint(example.words, formExists: { $0 == "jdoe/Pump station 4" }) == example.hint)
    }

    @Test func noHintWithoutExtraWords() {
        #expect(CommandRunner.quotingHint(["move", "12"], formExists: { _ in true }) == nil)
        #expect(CommandRunner.quotingHint(["whoami", "x", "y"], formExists: { _ in true }) == nil)
    }

    /// Quoting is offered only when the quoted words name a form: `move 'jdoe/*' zangstrom jdoe`
    /// quoted would be a form named "* zangstrom jdoe", which fails too.
    @Test func noQuotingHintForANameNoFormHas() {
        #expect(CommandRunner.quotingHint(["show", "jdoe/Pump", "station", "99"], formExists: { _ in false }) == nil)
        #expect(CommandRunner.quotingHint(["move", "jdoe/*", "zangstrom", "jdoe"], formExists: { _ in false }) == nil)
    }

    /// A comma inside a form's name is the name's, not a list's.
    @Test func aCommaInAFormNameIsNotAList() {
        #expect(CommandRunner.quotingHint(["show", "jdoe/Pump,", "north"], formExists: { _ in false }) == nil)
    }

    @Test func onlyTheParsersRefusalOfExtraWordsGetsAHint() {
        #expect(CommandRunner.refusedExtraWords("Unexpected argument 'jdoe'"))
        #expect(CommandRunner.refusedExtraWords("2 unexpected arguments: 'station', '4'"))
        #expect(!CommandRunner.refusedExtraWords("a technician is named twice"))
    }
}
