import Foundation
import MITestSupport
import Testing

/// A session that only reads holds back no checkpoint: a technician's `--atomic` run fed from a
/// pipe that has listed its forms and waits for its next line, while another console makes many
/// moves, leaves the store's `-wal` file small.
@Suite(.tags(.endToEnd, .ldap)) struct ReaderWALTests {
    let fixture = Fixture.shared

    func walSize(_ store: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: store + "-wal"))?[.size] as? Int) ?? 0
    }

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
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, ((try? String(contentsOfFile: listed, encoding: .utf8)) ?? "").isEmpty { usleep(50_000) }
        #expect(try String(contentsOfFile: listed, encoding: .utf8).contains("Pump station 4"), "the reader listed its forms")

        // 1,500 moves of one form back and forth, each its own transaction, by a foreman.
        let moves = (0..<750).map { _ in "move 'jdoe/Pump station 4' asmith\nmove 'asmith/Pump station 4' jdoe\n" }.joined()
        try moves.write(toFile: dir + "/moves.mi", atomically: true, encoding: .utf8)
        let moved = try MIAdmin.run(["--config", config, "--user", "mkhan", "--format", "csv", "-f", dir + "/moves.mi"],
                                    password: fixture.password("mkhan"))
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM audit WHERE command = 'move'") == "1500")
        #expect(kill(pid, 0) == 0, "the reading session was still open")
        let size = walSize(store)
        #expect(size < 16 << 20, "the -wal file is \(size) bytes after 1,500 moves beside a waiting reader")
    }
}
