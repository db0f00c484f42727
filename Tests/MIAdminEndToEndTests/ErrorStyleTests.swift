import Foundation
import MITestSupport
import Testing

/// One style for every error the console prints: lower case, no trailing period, no parser
/// placeholder ('<setting>') or "Please provide" leaking through, whichever part refused the
/// line (the parser, a command's own check, the store).
@Suite struct ErrorStyleTests {
    let fixture = Fixture.shared

    static let badLines = [
        "show 999",                      // the store: no such form
        "show 1 2",                      // the parser: an extra word
        "move 1",                        // the parser: a missing argument
        "reopen 1",                      // the parser: a missing option (--note)
        "report 1 --pdf",                // the parser: an option without its value
        "forms --state nope",            // the parser: a value not in the list
        "policy set foo 3",              // the parser: a value not in the list, without an option name
        "forms --bogus",                 // the parser: an unknown option
        "policy set expiry-days",        // the command's own check: no value
        "deliveries retry 999",          // the store: no such delivery
        "reopen 'jdoe/Pump station 4' --note again",  // the store: not completed
        "set expanded maybe",
        "help nosuch",
    ]

    @Test func everyRefusalIsInTheHouseStyle() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        for line in Self.badLines {
            let result = try MIAdmin.as_("mkhan", config: config, [line])
            #expect(result.status != 0, "\(line)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
            #expect(errors.count == 1, "\(line): \(result.stderr)")
            for error in errors {
                let message = error.dropFirst("error: ".count)
                let firstWord = message.prefix { $0.isLetter }
                #expect(!(firstWord.first?.isUppercase ?? false) || firstWord.dropFirst().contains(where: \.isUppercase),
                        "\(line): starts with a capital: \(message)")
                #expect(!message.hasSuffix("."), "\(line): ends with a period: \(message)")
                #expect(!message.contains("'<") && !message.contains("Please provide"), "\(line): the parser's words: \(message)")
            }
        }
    }

    /// The parser's words as the console says them.
    @Test func theParsersRefusalsNameTheFix() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let setting = try MIAdmin.as_("mkhan", config: config, ["policy set foo 3"])
        #expect(setting.stderr.contains("'foo' is not a setting: give one of 'expiry-days'"), "\(setting.stderr)")
        let note = try MIAdmin.as_("mkhan", config: config, ["reopen 1"])
        #expect(note.stderr.contains("reopen: missing --note <text> (see 'help reopen')"), "\(note.stderr)")
        let form = try MIAdmin.as_("mkhan", config: config, ["show 999"])
        #expect(form.stderr == "error: no form 999\n", "\(form.stderr)")
    }
}
