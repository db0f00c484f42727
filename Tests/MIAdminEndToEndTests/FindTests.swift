import Foundation
import MITestSupport
import Testing

/// "My form vanished": `find` says where a form is now and how it got there, and `show` of a
/// form that went somewhere points there, through the built binary on the sample forms.
@Suite struct FindTests {
    let fixture = Fixture.shared

    func run(_ config: String, _ command: String, as uid: String = "mkhan", format: String = "json",
             now: String = "2026-11-21T09:00:00Z") throws -> ProcessResult {
        try MIAdmin.run(["--config", config, "--user", uid, "--format", format, "-c", command],
                        password: fixture.password(uid), environment: ["MIADMIN_NOW": now])
    }

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// The one form `find` found, as its JSON object.
    func record(_ result: ProcessResult) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func aMovedAndATrashedFormAreFoundAndShowPointsToThem() throws {
        let config = try fixture.config()
        let imported = try run(config, "import --yes " + shellQuote(Paths.copyOfSampleTree()), now: "2026-11-20T09:00:00Z")
        #expect(imported.status == 0, "\(imported.stderr)")
        // asmith holds 'Pump station 4' and 'Pump station 4 (2)': jdoe's arrives as '(3)'.
        let move = try run(config, "move 'jdoe/Pump station 4' asmith --note 'jdoe on leave'")
        #expect(move.status == 0, "\(move.stderr)")

        let moved = try record(run(config, "find 'jdoe/Pump station 4'"))
        #expect(moved["now"] as? String == "with asmith" && moved["name"] as? String == "Pump station 4 (3)", "\(moved)")
        let history = moved["history"] as? [[String: Any]] ?? []
        #expect(history.first?["event"] as? String == "import.insert", "\(history)")
        let last = try #require(history.last)
        #expect(last["at"] as? String == "2026-11-21T09:00:00Z" && last["event"] as? String == "move" && last["by"] as? String == "mkhan"
                && last["from"] as? String == "jdoe/'Pump station 4'" && last["to"] as? String == "asmith/'Pump station 4 (3)'"
                && last["note"] as? String == "jdoe on leave", "\(last)")
        let id = try #require(moved["id"] as? Int)
        // At a terminal's table, one event a line.
        let table = try run(config, "find 'jdoe/Pump station 4'", format: "table")
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("import.insert") } && lines.contains { $0.contains("jdoe on leave") }, "\(table.stdout)")
        #expect(!lines.contains { $0.contains("import.insert") && $0.contains("jdoe on leave") }, "not one joined line: \(table.stdout)")

        let show = try run(config, "show 'jdoe/Pump station 4'", format: "table")
        #expect(show.status == 1)
        #expect(show.stderr == "error: jdoe has no form named 'Pump station 4'; it is now asmith's, as 'Pump station 4 (3)'; "
                + "see 'find \(id)'\n", "\(show.stderr)")
        // A technician is told nothing of other people's forms.
        let own = try run(config, "show 'jdoe/Pump station 4'", as: "jdoe", format: "table")
        #expect(own.status == 1 && !own.stderr.contains("find"), "\(own.stderr)")

        // asmith's own 'Pump station 4' (created 2026-11-10) expires into the trash.
        let expired = try run(config, "expire --yes", now: "2026-11-26T10:00:00Z")
        #expect(expired.status == 0, "\(expired.stderr)")
        let trashed = try record(run(config, "find 'asmith/Pump station 4'", now: "2026-11-26T10:05:00Z"))
        #expect(trashed["now"] as? String == "in the trash" && trashed["trashed"] as? String == "2026-11-26T10:00:00Z",
                "\(trashed)")
        let trashedId = try #require(trashed["id"] as? Int)
        #expect(trashed["next"] as? String == "restore \(trashedId)")
        let showTrashed = try run(config, "show 'asmith/Pump station 4'", format: "table", now: "2026-11-26T10:05:00Z")
        #expect(showTrashed.stderr == "error: asmith has no form named 'Pump station 4'; it is in the trash since "
                + "2026-11-26 10:00:00+00:00 ('restore \(trashedId)'); see 'find \(trashedId)'\n", "\(showTrashed.stderr)")

        // A name alone finds every form that has or had it.
        let byName = try rows(run(config, "find 'Pump station 4'", now: "2026-11-26T10:05:00Z"))
        #expect(Set(byName.compactMap { $0["id"] as? Int }) == [id, trashedId], "\(byName)")
        // As 'forms --name' takes a name: either case, and globs; several are listed as candidates.
        let lower = try run(config, "find 'pump station 4'", now: "2026-11-26T10:05:00Z")
        #expect(Set(try rows(lower).compactMap { $0["id"] as? Int }) == [id, trashedId], "\(lower.stdout)")
        #expect(lower.stderr.contains("2 forms match 'pump station 4'; 'find ID' shows where one is and how it got there"),
                "\(lower.stderr)")
        let glob = try rows(run(config, "find 'Pump*'", now: "2026-11-26T10:05:00Z"))
        #expect(glob.count > 2 && Set(glob.compactMap { $0["id"] as? Int }).isSuperset(of: [id, trashedId]), "\(glob)")
        #expect(glob.allSatisfy { $0["history"] == nil && ($0["name"] as? String ?? "").hasPrefix("Pump") }, "\(glob)")
        let owned = try record(run(config, "find 'jdoe/pump STATION*'", now: "2026-11-26T10:05:00Z"))
        #expect(owned["id"] as? Int == id && owned["owner"] as? String == "asmith", "the name jdoe's form had: \(owned)")

        // media and move of the moved form say where it went.
        for line in ["media 'jdoe/Pump station 4' --out \(shellQuote(try TempDir.make()))", "move 'jdoe/Pump station 4' zangstrom"] {
            let result = try run(config, line, format: "table", now: "2026-11-26T10:05:00Z")
            #expect(result.status == 1 && result.stderr.contains("it is now asmith's, as 'Pump station 4 (3)'; see 'find \(id)'"),
                    "\(line): \(result.stderr)")
        }

        let none = try run(config, "find 'nobody/Nothing'")
        #expect(none.status == 1 && none.stderr.contains("no form 'nobody/Nothing' now, in the trash or in the audit trail"))
    }
}
