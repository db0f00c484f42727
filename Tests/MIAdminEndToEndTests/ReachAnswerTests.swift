import Foundation
import MITestSupport
import Testing

/// Outside his crews a foreman gets one answer for a form reference, whatever the store holds
/// (docs/security.md): through the built binary on the crews' slapd and a real SQLite store,
/// the answers to another crew's existing, trashed, handed-over and purged forms are compared
/// byte for byte (exit status, stdout, stderr) with the answer to a form that never existed.
@Suite(.tags(.endToEnd, .ldap)) struct ReachAnswerTests {
    let fixture = CrewDirectory.fixture

    func run(_ uid: String, _ config: String, format: String? = nil, _ commands: [String]) throws -> ProcessResult {
        try MIAdmin.as_(uid, config: config, format: format, commands, fixture: fixture)
    }

    /// The south crew's forms (tpatel's crew: asmith, sobrien) in every place a form can be:
    /// live, in the trash, handed over inside the crew, purged; and one of the north crew.
    func site() throws -> (config: String, ids: [String: Int64]) {
        let config = try CrewDirectory.groupsConfig()
        let tree = try DocumentsTree()
        func daysAgo(_ days: Double) -> String { Date().addingTimeInterval(-days * 86_400).formatted(.iso8601) }
        for name in ["South pump", "South handed"] { try tree.form("asmith", name, created: daysAgo(1)) }
        try tree.form("asmith", "South old", created: daysAgo(10))
        try tree.form("asmith", "South gone", created: daysAgo(20))
        try tree.form("jdoe", "North pump", created: daysAgo(1))
        let imported = try run("lchen", config, ["import --yes " + shellQuote(tree.root)])
        #expect(imported.status == 0, "\(imported.stderr)")
        let south = try run("tpatel", config, ["expire --days 15 --yes", "purge --older-than 0 --yes", "expire --days 7 --yes"])
        #expect(south.status == 0, "\(south.stderr)")
        let handed = try run("lchen", config, ["move 'asmith/South handed' sobrien"])
        #expect(handed.status == 0, "\(handed.stderr)")
        var ids: [String: Int64] = [:]
        for name in ["South pump", "South old", "South handed", "South gone", "North pump"] {
            let id = try sqlite(fixture.storePath(config), "SELECT form_id FROM audit WHERE command = 'import.insert' "
                                + "AND object LIKE '%/\(name)' ORDER BY id LIMIT 1")
            ids[name] = try #require(Int64(id), "no import row for \(name)")
        }
        return (config, ids)
    }

    /// One answer, the reference in it written as REF, so answers to different ids compare.
    struct Answer: Equatable, CustomStringConvertible {
        let status: Int32, stdout: String, stderr: String
        var description: String { "exit \(status), stdout «\(stdout)», stderr «\(stderr)»" }
    }

    func answer(_ config: String, _ line: String, _ reference: String) throws -> Answer {
        let result = try run("mkhan", config, [line.replacingOccurrences(of: "REF", with: reference)])
        func masked(_ text: String) -> String {
            text.replacingOccurrences(of: "\\b\(NSRegularExpression.escapedPattern(for: reference))\\b", with: "REF",
                                      options: .regularExpression)
        }
        return Answer(status: result.status, stdout: masked(result.stdout), stderr: masked(result.stderr))
    }

    static let commands = ["find REF", "show REF", "audit --form REF", "deliveries --form REF", "media REF --out /nonexistent-dir",
                           "report REF --pdf /nonexistent-dir/x.pdf", "comment REF fine", "move REF jdoe"]

    @Test func anIdOutsideTheCrewsIsAnsweredAsAMissingOne() throws {
        let (config, ids) = try site()
        let before = try sqlite(fixture.storePath(config), ".dump")
        let missing = String(ids.values.max()! + 1000)
        for line in Self.commands {
            let none = try answer(config, line, missing)
            for name in ["South pump", "South old", "South handed", "South gone"] {
                let other = try answer(config, line, String(ids[name]!))
                #expect(other == none, "\(line) for \(name): \(other)\n  a missing id: \(none)")
            }
        }
        #expect(try sqlite(fixture.storePath(config), ".dump") == before)
        // His own crew's form is still found.
        let own = try run("mkhan", config, ["show \(ids["North pump"]!)"])
        #expect(own.status == 0 && own.stdout.contains("North pump"), "\(own.stderr)")
    }

    @Test func aNameOfAnotherCrewsOwnerIsRefusedAlikeWhetherOrNotTheFormExists() throws {
        let (config, _) = try site()
        for line in Self.commands {
            let none = try answer(config, line, "'asmith/No such form'")
            #expect(none.status == 1 && none.stderr.contains("asmith is not in your crews (Kolonne Nord)"), "\(line): \(none)")
            for name in ["South pump", "South old", "South handed", "South gone"] {
                let other = try answer(config, line, "'asmith/\(name)'")
                #expect(other == none, "\(line) for \(name): \(other)\n  a missing name: \(none)")
            }
        }
    }

    /// A form's history holds the rows made while it was in the crews; `audit` alone holds his
    /// crews' rows and the site-wide ones, not another crew's policy or other people's notices.
    @Test func theAuditTrailHoldsOnlyRowsOfTheCrews() throws {
        let (config, ids) = try site()
        let store = try fixture.storePath(config)
        // A south form handed to the north crew: its import row was the south's, the move is the north's too.
        #expect(try run("lchen", config, ["move 'asmith/South pump' jdoe"]).status == 0)
        let history = try run("mkhan", config, format: "csv", ["audit --form \(ids["South pump"]!)"])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.contains(",move,") && !history.stdout.contains("import.insert"), "\(history.stdout)")

        #expect(try run("tpatel", config, ["policy set --team 'Kolonne Süd' expiry-days 5 --note south-only"]).status == 0)
        #expect(try run("sitelead", config, ["policy set expiry-days 40 --note whole-site"]).status == 0)
        _ = try sqlite(store, """
            INSERT INTO audit (at, actor, command, form_id, object, before, after, note) VALUES
              (1, 'asmith', 'notices.read', NULL, 'notices 1', NULL, '{"read":[1]}', NULL),
              (1, 'jdoe', 'notices.read', NULL, 'notices 2', NULL, '{"read":[2]}', NULL),
              (1, 'lchen', 'import.notices', NULL, 'notices of asmith', NULL, '{"added":1}', 'from /south/Error'),
              (1, 'lchen', 'import.notices', NULL, 'notices of jdoe', NULL, '{"added":1}', 'from /north/Error');
            """)
        let trail = try run("mkhan", config, format: "csv", ["audit"])
        #expect(trail.status == 0, "\(trail.stderr)")
        for hidden in ["south-only", "notices 1", "notices of asmith", "/south/Error", "South gone", "South handed", "South old"] {
            #expect(!trail.stdout.contains(hidden), "\(hidden) shown: \(trail.stdout)")
        }
        for shown in ["whole-site", "notices 2", "notices of jdoe", "North pump"] {
            #expect(trail.stdout.contains(shown), "\(shown) missing: \(trail.stdout)")
        }
    }
}
