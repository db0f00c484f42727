import Foundation
import MITestSupport
import Testing

/// A session that only reads holds back no checkpoint: a technician's `--atomic` run fed from a
/// pipe that has listed its forms and waits for its next line, while another console makes many
/// moves, leaves the store's `-wal` file small.
@Suite(.tags(.endToEnd, .ldap)) struct ReaderWALTests {
    let fixture = Fixture.shared

    @Test func aWaitingAtomicReaderDoesNotGrowTheWAL() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let store = try fixture.storePath(config)
        let dir = try TempDir.make()
        let listed = dir + "/listed.txt"
        let reader = "(echo forms; sleep 600) | \(shellQuote(Paths.binary)) --atomic --config \(shellQuote(config)) "
            + "--user jdoe > \(shellQuote(listed))"
        let pid = try Shell.start("/usr/bin/setsid", ["/bin/bash", "-c", reader],
                                  environment: ["MIADMIN_PASSWORD": fixture.password("jdoe")])
        defer { kill(-pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
        try waitUntil("the reader listed its forms") { !((try? String(contentsOfFile: listed, encoding: .utf8)) ?? "").isEmpty }
        #expect(try String(contentsOfFile: listed, encoding: .utf8).contains("Pump station 4"), "the reader listed its forms")

        // 1,500 moves of one form back and forth, each its own transaction, by a foreman.
        let moves = (0..<750).map { _ in "move 'jdoe/Pump station 4' asmith\nmove 'asmith/Pump station 4' jdoe\n" }.joined()
        try moves.write(toFile: dir + "/moves.mi", atomically: true, encoding: .utf8)
        let moved = try MIAdmin.run(["--config", config, "--user", "mkhan", "--format", "csv", "-f", dir + "/moves.mi"],
                                    password: fixture.password("mkhan"))
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM audit WHERE command = 'move'") == "1500")
        #expect(kill(pid, 0) == 0, "the reading session was still open")
        let size = walSize(store) ?? 0
        #expect(size < 16 << 20, "the -wal file is \(size) bytes after 1,500 moves beside a waiting reader")
    }

    /// One command that reads for longer than `limits.snapshotSeconds` (here a listing whose
    /// output nobody reads for 3 s, so it stops in a write with its snapshot open) ends with an
    /// error naming the key, at its next row once the output moves, instead of holding the
    /// snapshot for as long as the reader of its output pleases.
    @Test func aListingHeldPastTheSnapshotLimitEndsNamingTheKey() throws {
        let imported = try fixture.store(importing: try Paths.copyOfSampleTree())
        let store = try fixture.storePath(imported)
        // 3,000 more forms of jdoe: a listing far larger than a pipe holds.
        let columns = try sqlite(store, "SELECT group_concat(name, ',') FROM pragma_table_info('forms') WHERE name <> 'id'")
        let copied = columns.split(separator: ",").map { $0 == "name" ? "name || ' ' || n.i" : "forms.\($0)" }.joined(separator: ",")
        _ = try sqlite(store, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
                       + "INSERT INTO forms (\(columns)) SELECT \(copied) FROM forms, n WHERE forms.id = "
                       + "(SELECT min(id) FROM forms WHERE owner = 'jdoe' AND trashed_at IS NULL)")
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: imported))) as? [String: Any])
        setKey(&object, "limits.snapshotSeconds", 1)
        let config = try TempDir.make() + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let dir = try TempDir.make()
        let line = "\(shellQuote(Paths.binary)) --config \(shellQuote(config)) --user jdoe --format csv -c forms "
            + "2> \(shellQuote(dir + "/err")); echo $? > \(shellQuote(dir + "/status"))"
        let run = try Shell.run("/bin/bash", ["-c", "(\(line)) | (sleep 3; cat > /dev/null)"],
                                environment: ["MIADMIN_PASSWORD": fixture.password("jdoe")])
        #expect(run.status == 0, "\(run.stderr)")
        let status = try String(contentsOfFile: dir + "/status", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let stderr = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(status == "1", "\(stderr)")
        #expect(stderr.contains("in one snapshot, longer than the 1 s allowed (limits.snapshotSeconds in the config)"), "\(stderr)")

        setKey(&object, "limits.snapshotSeconds", 0)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let checked = try MIAdmin.run(["--config", config, "--check-config"])
        #expect(checked.status != 0 && checked.stderr.contains("limits.snapshotSeconds must be a whole number of seconds from 1 to 86400"),
                "\(checked.stdout) \(checked.stderr)")
    }
}
