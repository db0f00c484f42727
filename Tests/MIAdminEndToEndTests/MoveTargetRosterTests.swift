import Foundation
import MITestSupport
import Testing

/// A script moving forms onto many different technicians checks its targets against one
/// roster of the technician role per run (TechnicianRoster), read from the real slapd; users
/// the roster does not list are still looked up and refused with the same messages.
@Suite(.tags(.endToEnd, .ldap)) struct MoveTargetRosterTests {
    let fixture = Fixture.shared

    /// The fixture's bulk technicians: u00001, u00002, ... (width as the first one in users.tsv).
    func bulkUID(_ n: Int) -> String {
        let first = fixture.users.keys.first { $0.hasPrefix("u") && $0.dropFirst().allSatisfy(\.isNumber) } ?? "u00001"
        let digits = String(n)
        return "u" + String(repeating: "0", count: max(0, first.count - 1 - digits.count)) + digits
    }

    @Test func manyTargetsAreCheckedAgainstOneRosterWithTheSameRefusals() throws {
        let bulk = Int(fixture["BULK_USERS"]) ?? 0
        try #require(bulk >= 40, "the fixture needs 40 bulk technicians")
        let tree = try DocumentsTree()
        for n in 1...40 { try tree.form("jdoe", "Pump \(n)") }
        let config = try fixture.store(importing: tree.root)

        // 40 different targets (the roster is read after 32), then users it does not list.
        var lines = (1...40).map { "move 'jdoe/Pump \($0)' \(bulkUID($0))" }
        lines += ["move 'u0003-not-a-user/x' asmith",  // a failing line that is not about the target
                  "move '\(bulkUID(1))/Pump 1' nbody",  // in the directory, no role
                  "move '\(bulkUID(1))/Pump 1' nosuchuser",
                  "move '\(bulkUID(1))/Pump 1' mkhan",  // a foreman, not a technician
                  "move '\(bulkUID(1))/Pump 1' ZANGSTROM",  // a named technician, by another case
                  "move '\(bulkUID(2))/Pump 2' tpatel"]  // foreman and technician
        let dir = try TempDir.make()
        let script = dir + "/moves.mi"
        try lines.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "--format", "csv", "--on-error", "continue",
                                      "-f", script],
                                     password: fixture.password("mkhan"), environment: ["MIADMIN_LOG_LEVEL": "debug"])
        #expect(result.status == 3, "four lines fail")
        // The roster was read once, from the directory, after 32 different targets.
        let rosterLines = result.stderr.split(separator: "\n").filter { $0.contains("technician roster: read") }
        #expect(rosterLines.count == 1, "\(result.stderr)")
        #expect(rosterLines.first?.contains("after 32 different users") == true, "\(rosterLines)")
        // Refusals as without a roster.
        #expect(result.stderr.contains("\(script):42: 'nbody' is not a technician (roles: none)"), "\(result.stderr)")
        #expect(result.stderr.contains("\(script):43: no user 'nosuchuser' in the directory"), "\(result.stderr)")
        #expect(result.stderr.contains("\(script):44: 'mkhan' is not a technician (roles: foreman)"), "\(result.stderr)")
        #expect(result.stderr.contains("\(script):41: "), "the line with a missing form fails too")
        #expect(!result.stderr.contains("\(script):45:") && !result.stderr.contains("\(script):46:"), "\(result.stderr.suffix(2000))")

        // Every move the script made is in the store, with the owner the directory names.
        let forms = try MIAdmin.as_("mkhan", config: config, format: "json", ["forms"])
        let owners = try (JSONSerialization.jsonObject(with: Data(forms.stdout.utf8)) as! [[String: Any]])
            .reduce(into: [String: String]()) { $0[$1["name"] as! String] = $1["owner"] as? String }
        for n in 3...40 { #expect(owners["Pump \(n)"] == bulkUID(n)) }
        #expect(owners["Pump 1"] == "zangstrom")
        #expect(owners["Pump 2"] == "tpatel")
    }

    @Test func fewTargetsNeverReadTheRoster() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump")
        let config = try fixture.store(importing: tree.root)
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "--format", "csv",
                                      "-c", "move jdoe/Pump asmith", "-c", "move asmith/Pump sobrien"],
                                     password: fixture.password("mkhan"), environment: ["MIADMIN_LOG_LEVEL": "debug"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("technician roster"))
    }
}
