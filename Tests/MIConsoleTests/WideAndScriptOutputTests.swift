import Foundation
import MICommands
@testable import MIConsole
import Testing

/// Output for people (expanded auto, show's empty columns) and for scripts (one JSON
/// document, one CSV header, unique CSV headers), at the renderers.
@Suite struct WideAndScriptOutputTests {
    /// Runs `body` with sinks made by `make` (one per format change, as the runner makes them)
    /// writing to a temporary file; returns what was written.
    func written(_ body: (_ make: (DisplaySettings) -> any RenderingSink) -> Void, run: RunOutput = .perCommand,
                 screenColumns: Int? = nil) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wide-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        defer { close(fd); unlink(path) }
        let out = OutputStream(fd: fd), err = OutputStream(fd: fd)
        body { settings in
            var sink = settings.makeSink(stdout: out, stderr: err, run: run)
            sink.state.screenColumns = screenColumns
            return sink
        }
        out.flush()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func settings(_ format: DisplayFormat, expanded: ExpandedDisplay = .off) -> DisplaySettings {
        var settings = DisplaySettings()
        settings.format = format
        settings.expanded = expanded
        return settings
    }

    let wideColumns = (1...8).map { Column("column\($0)") }
    func wideRow(_ n: Int) -> [Value] { (1...8).map { .string("value \(n) of a rather long cell \($0)") } }

    @Test func expandedAutoDrawsBlocksOnlyWhenTheGridIsWiderThanTheScreen() throws {
        let listing: (any RenderingSink) -> Void = { sink in
            sink.beginRows(self.wideColumns)
            sink.row(self.wideRow(1))
            sink.row(self.wideRow(2))
            sink.endRows()
        }
        let narrowScreen = try written({ listing($0(settings(.table, expanded: .auto))) }, screenColumns: 120)
        #expect(narrowScreen.contains("-[ RECORD 1 ]") && narrowScreen.contains("-[ RECORD 2 ]"), "\(narrowScreen)")
        #expect(narrowScreen.contains("column3 | value 2 of a rather long cell 3"))
        #expect(narrowScreen.hasSuffix("(2 rows)\n"))
        let wideScreen = try written({ listing($0(settings(.table, expanded: .auto))) }, screenColumns: 400)
        #expect(!wideScreen.contains("RECORD") && wideScreen.contains("column1 "), "a grid that fits: \(wideScreen)")
        let notATerminal = try written({ listing($0(settings(.table, expanded: .auto))) }, screenColumns: nil)
        #expect(!notATerminal.contains("RECORD"), "auto draws grids where there is no screen")
        let off = try written({ listing($0(settings(.table))) }, screenColumns: 120)
        #expect(!off.contains("RECORD"))
        // A narrow listing after a wide one is a grid again: auto decides per listing.
        let both = try written({ make in
            let sink = make(settings(.table, expanded: .auto))
            listing(sink)
            sink.beginRows([Column("uid")])
            sink.row([.string("jdoe")])
            sink.endRows()
        }, screenColumns: 120)
        #expect(both.contains("-[ RECORD 2 ]") && both.contains("uid\n----\njdoe\n(1 row)\n"), "\(both)")
    }

    /// A detail column (forms' `created`) is left out of a grid so a listing fits a screen;
    /// `--wide` shows it, and blocks and CSV always carry it.
    @Test func aGridLeavesOutDetailColumnsUnlessWide() throws {
        let columns = [Column("id"), Column("created", detail: true), Column("name")]
        let listing: (any RenderingSink) -> Void = { sink in
            sink.beginRows(columns)
            sink.row([.int(12), .string("2026-11-20"), .string("Pump station 4")])
            sink.endRows()
        }
        let grid = try written { listing($0(settings(.table))) }
        #expect(grid == "id | name\n---+---------------\n12 | Pump station 4\n(1 row)\n", "\(grid)")
        var wide = settings(.table)
        wide.wide = true
        let all = try written { listing($0(wide)) }
        #expect(all.hasPrefix("id | created    | name\n"), "\(all)")
        let blocks = try written { listing($0(settings(.table, expanded: .on))) }
        #expect(blocks.contains("created | 2026-11-20"), "\(blocks)")
        let csv = try written { listing($0(settings(.csv))) }
        #expect(csv.split(whereSeparator: \.isNewline).first == "id,created,name", "\(csv)")
    }

    /// `--wide` is a display option every command takes, for that command only.
    @Test func wideIsAPerCommandOption() throws {
        let (settings, words) = try DisplaySettings().applyingPerCommandOptions(to: ["forms", "--wide", "--owner", "jdoe"])
        #expect(settings.wide)
        #expect(words == ["forms", "--owner", "jdoe"])
        #expect(!DisplaySettings().wide)
    }

    @Test func showsQuestionsLeaveOutColumnsEmptyInEveryRow() throws {
        let questions: [Value] = (1...2).map { n in
            .object([.init("#", .int(Int64(n))), .init("question", .string("Q\(n)")), .init("answer", n == 1 ? .string("yes") : .null),
                     .init("media", .list([])), .init("help", .null), .init("comment", .string(""))])
        }
        let text = try written { make in
            make(settings(.table)).record([Column("id"), Column("questions")], [.int(6), .list(questions)])
        }
        #expect(text.contains("# | question | answer\n"), "\(text)")
        #expect(!text.contains("media |") && !text.contains("| help"))
        #expect(text.contains("(empty in every row, left out: media, help, comment)"), "\(text)")
    }

    @Test func csvHeadersOfARecordWithAListAreUnique() throws {
        let questions: [Value] = [.object([.init("#", .int(1)), .init("media", .list([.string("Qid0(1).jpg")])),
                                           .init("violations", .list([]))])]
        let text = try written { make in
            make(settings(.csv)).record([Column("id"), Column("media"), Column("questions"), Column("violations")],
                                        [.int(6), .int(1), .list(questions), .list([])])
        }
        let header = try #require(text.split(separator: "\r\n").first)
        #expect(header == "id,media,violations,#,questions.media,questions.violations", "\(text)")
        let keys = header.split(separator: ",")
        #expect(Set(keys).count == keys.count)
    }

    /// Three commands' results, one of them a listing an error cut short.
    func threeCommands(_ make: (DisplaySettings) -> any RenderingSink) {
        let sink = make(settings(.json))
        sink.record([Column("uid")], [.string("mkhan")])
        sink.commandEnded()
        sink.message("moved 'Pump' to asmith")
        sink.commandEnded()
        sink.beginRows([Column("name")])
        sink.row([.string("A")])
        sink.commandEnded()  // the command failed here: no endRows
    }

    @Test func aScriptsJSONIsOneDocumentEvenWhenAListingIsCutShort() throws {
        let run = RunOutput(json: .document, oneCSVHeader: true)
        let text = try written({ make in
            threeCommands(make)
            make(settings(.json)).commandEnded()
        }, run: run) + run.closeDocument(always: true)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any], "\(text)")
        #expect(document.count == 3)
        #expect((document[0] as? [String: String])?["uid"] == "mkhan")
        #expect((document[1] as? [String: String])?["message"] == "moved 'Pump' to asmith")
        #expect((document[2] as? [[String: String]])?.first?["name"] == "A")
        #expect(RunOutput(json: .document, oneCSVHeader: true).closeDocument(always: true) == "[]\n", "a run with no result is []")
    }

    @Test func jsonLinesWritesEachValueOnItsOwnLine() throws {
        let text = try written({ threeCommands($0) }, run: RunOutput(json: .lines, oneCSVHeader: true))
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3, "\(text)")
        for line in lines { #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(line.utf8)) } }
        #expect(lines[2] == "[{\"name\":\"A\"}]")
    }

    @Test func aScriptsCSVHasOneHeaderUntilTheColumnsChange() throws {
        let text = try written({ make in
            let sink = make(settings(.csv))
            for name in ["A", "B"] {
                sink.beginRows([Column("name"), Column("owner")])
                sink.row([.string(name), .string("jdoe")])
                sink.endRows()
            }
            sink.message("moved")
            sink.message("moved again")
        }, run: RunOutput(json: .document, oneCSVHeader: true))
        #expect(text == "name,owner\r\nA,jdoe\r\nB,jdoe\r\n\r\nmessage\r\nmoved\r\nmoved again\r\n", "\(text)")
        let perCommand = try written { make in
            let sink = make(settings(.csv))
            sink.message("one")
            sink.message("two")
        }
        #expect(perCommand == "message\r\none\r\nmessage\r\ntwo\r\n", "the prompt: each result has its header")
    }
}
