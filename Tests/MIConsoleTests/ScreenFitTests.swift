import Foundation
import MICommands
@testable import MIConsole
import Testing

/// A grid at a terminal narrower than it: the columns' own priority (left out, then cut with
/// `…`), and blocks only when that is not enough; nothing changes where there is no screen.
@Suite struct ScreenFitTests {
    @Test func aGridThatFitsKeepsEveryColumnWhole() {
        let fit = GridFit.fitting(natural: [10, 50, 12], titles: [7, 11, 5], fits: [.whole, .cut, .leftOut], screen: 80)
        #expect(fit == GridFit(shown: [0, 1, 2], widths: [10, 50, 12]))
    }

    @Test func leftOutColumnsGoFirstTheRightmostFirst() {
        // 10 + 40 + 20 + 20 + 9 = 99 columns; without the last left-out one 76 fit 80.
        let fit = GridFit.fitting(natural: [10, 40, 20, 20], titles: [2, 4, 4, 4],
                                  fits: [.whole, .whole, .leftOut, .leftOut], screen: 80)
        #expect(fit == GridFit(shown: [0, 1, 2], widths: [10, 40, 20]))
    }

    @Test func thenCutColumnsShrinkTheWidestFirst() {
        // help at 80 columns: the roles go, then the description is cut to what is left.
        let fit = GridFit.fitting(natural: [13, 120, 38], titles: [7, 11, 5], fits: [.whole, .cut, .leftOut], screen: 80)
        #expect(fit == GridFit(shown: [0, 1], widths: [13, 64]))
        let two = GridFit.fitting(natural: [5, 60, 40], titles: [1, 1, 1], fits: [.whole, .cut, .cut], screen: 60)
        #expect(two == GridFit(shown: [0, 1, 2], widths: [5, 24, 25]), "the widest gives first, then both evenly")
    }

    @Test func noFitWhenEvenTheShortestCutsAreTooWide() {
        #expect(GridFit.fitting(natural: [30, 30, 30], titles: [2, 2, 2], fits: [.whole, .whole, .whole], screen: 80) == nil)
        // A cut column keeps at least twelve columns (or its title).
        #expect(GridFit.fitting(natural: [60, 40], titles: [2, 20], fits: [.whole, .cut], screen: 80) == nil)
        #expect(GridFit.fitting(natural: [60, 40], titles: [2, 5], fits: [.whole, .cut], screen: 80)
            == GridFit(shown: [0, 1], widths: [60, 17]))
    }

    @Test func cutEndsWithAnEllipsisAndCountsWideCharacters() {
        #expect(GridFit.cut("Move incomplete forms to another technician", to: 20) == "Move incomplete for…")
        #expect(GridFit.cut("short", to: 20) == "short")
        #expect(GridFit.cut("exactly ten", to: 11) == "exactly ten")
        // No space before the ellipsis; a two-column character that would cross the edge goes whole.
        #expect(GridFit.cut("one two three", to: 9) == "one two…")
        #expect(GridFit.cut("泵站泵站泵站", to: 6) == "泵站…")
        #expect(DisplayWidth.of(GridFit.cut("泵站泵站泵站", to: 6)) <= 6)
    }

    /// Writes a help-like listing with `screenColumns` (nil: not a terminal).
    func helpListing(screenColumns: Int?, wide: Bool = false, expanded: ExpandedDisplay = .auto) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fit-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        defer { close(fd); unlink(path) }
        var settings = DisplaySettings()
        settings.expanded = expanded
        settings.wide = wide
        var sink = settings.makeSink(stdout: OutputStream(fd: fd), stderr: OutputStream(fd: fd))
        sink.state.screenColumns = screenColumns
        sink.beginRows([Column("command"), Column("description", fit: .cut), Column("roles", fit: .leftOut)])
        sink.row([.string("move"), .string("Move incomplete forms to another technician (all of a technician's forms with "
                                           + "--all, or those a glob names), with a preview and a notice to each."),
                  .list([.string("foreman"), .string("sitelead"), .string("support")])])
        sink.row([.string("whoami"), .string("Show who you are logged in as."), .list([.string("foreman")])])
        sink.endRows()
        sink.finish()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func helpAtEightyColumnsIsOneLinePerCommand() throws {
        let text = try helpListing(screenColumns: 80)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 80 }, "\(text)")
        #expect(lines[0] == "command | description", "\(text)")
        #expect(lines[2].hasPrefix("move    | Move incomplete forms") && lines[2].hasSuffix("…") && DisplayWidth.of(lines[2]) == 80, "\(text)")
        #expect(lines[3] == "whoami  | Show who you are logged in as.", "\(text)")
        #expect(lines[4] == "(left out to fit the screen: roles; --wide shows every column)", "\(text)")
        #expect(lines[5] == "(2 rows)")
        #expect(!text.contains("RECORD"), "a grid that fits after cutting is not turned into blocks")
    }

    @Test func withoutAScreenOrWithWideNothingIsCut() throws {
        let piped = try helpListing(screenColumns: nil)
        #expect(piped.contains("with a preview and a notice to each. | foreman, sitelead, support\n"), "\(piped)")
        #expect(!piped.contains("…") && !piped.contains("left out"))
        let wide = try helpListing(screenColumns: 80, wide: true, expanded: .off)
        #expect(wide == piped, "--wide draws the whole grid")
        // The same listing with expanded off at a wide screen: the whole grid, as before.
        #expect(try helpListing(screenColumns: 400, expanded: .off) == piped)
    }

    @Test func aGridTooWideEvenWhenFittedBecomesBlocksUnderAuto() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fit-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        defer { close(fd); unlink(path) }
        var settings = DisplaySettings()
        settings.expanded = .auto
        var sink = settings.makeSink(stdout: OutputStream(fd: fd), stderr: OutputStream(fd: fd))
        sink.state.screenColumns = 30
        sink.beginRows([Column("id"), Column("name"), Column("template", fit: .leftOut)])
        sink.row([.int(1), .string("Pump station 4 weekly inspection"), .string("pump-weekly")])
        sink.endRows()
        sink.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("-[ RECORD 1 ]") && text.contains("template | pump-weekly"), "blocks carry every column: \(text)")
    }

    @Test func colourOnlyAtATerminalWithoutNoColourOrADumbTerminal() {
        let term = ["TERM": "xterm-256color"]
        #expect(ErrorStyle.colours(isTerminal: true, environment: term))
        #expect(!ErrorStyle.colours(isTerminal: false, environment: term), "never in a pipe or a file")
        #expect(!ErrorStyle.colours(isTerminal: true, environment: term.merging(["NO_COLOR": "1"]) { $1 }))
        #expect(ErrorStyle.colours(isTerminal: true, environment: term.merging(["NO_COLOR": ""]) { $1 }),
                "no-color.org: an empty NO_COLOR does not count")
        #expect(!ErrorStyle.colours(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(!ErrorStyle.colours(isTerminal: true, environment: [:]))
        #expect(ErrorStyle(colours: true).error("error:") == "\u{1B}[1;31merror:\u{1B}[0m")
        #expect(ErrorStyle(colours: false).warning("warning:") == "warning:")
    }
}
