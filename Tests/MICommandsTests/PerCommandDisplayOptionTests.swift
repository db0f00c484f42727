import MICommands
import Testing

/// The display options any command takes for itself (`show 12 --format json`, `forms -o csv -x`):
/// taken out of the line before the command's own parser sees it.
@Suite("Per-command display options")
struct PerCommandDisplayOptionTests {
    let session = DisplaySettings()

    @Test func formatInEachSpellingSetsTheFormatAndLeavesTheRest() throws {
        for line in [["show", "12", "--format", "json"], ["show", "--format=json", "12"], ["show", "-o", "json", "12"]] {
            let (settings, words) = try session.applyingPerCommandOptions(to: line)
            #expect(settings.format == .json, "\(line)")
            #expect(words == ["show", "12"], "\(line)")
        }
        let (settings, words) = try session.applyingPerCommandOptions(to: ["forms", "-x", "--csv-raw", "-o", "csv", "--no-pager", "--state", "completed"])
        #expect(settings.format == .csv && settings.expanded == .on && settings.csvRaw && !settings.pager)
        #expect(words == ["forms", "--state", "completed"])
    }

    @Test func aBadOrMissingValueIsRefusedWithTheAcceptedValues() {
        #expect(throws: CommandError.failed("--format: 'xml' is not one of table, csv, json")) {
            try session.applyingPerCommandOptions(to: ["forms", "--format", "xml"])
        }
        #expect(throws: CommandError.failed("-o needs a value: table, csv, json")) {
            try session.applyingPerCommandOptions(to: ["forms", "-o"])
        }
        #expect(throws: CommandError.failed("--no-pager takes no value")) {
            try session.applyingPerCommandOptions(to: ["forms", "--no-pager=yes"])
        }
    }

    @Test func theCommandNameAndWordsAfterDoubleDashAreTheCommands() throws {
        let (settings, words) = try session.applyingPerCommandOptions(to: ["comment", "12", "--", "-o", "json"])
        #expect(settings == session)
        #expect(words == ["comment", "12", "--", "-o", "json"])
        #expect(try session.applyingPerCommandOptions(to: ["-x"]).words == ["-x"])
    }

    @Test func everyCommandsHelpListsThem() throws {
        let text = try #require(CommandRegistry.helpText(for: ["show"]))
        #expect(text.contains("DISPLAY OPTIONS"))
        #expect(text.contains("-o, --format <table|csv|json>"))
        #expect(text.contains("-x, --expanded"))
    }
}
