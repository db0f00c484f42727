import Foundation
import Synchronization
import MITestSupport
import Testing

/// Several console processes on one store file at once, and a console killed mid-move.
@Suite(.tags(.endToEnd, .ldap)) struct ConcurrencyTests {
    let fixture = Fixture.shared

    @Test func concurrentOverlappingMovesLoseNothing() throws {
        let tree = try DocumentsTree()
        for i in 1...20 {
            try tree.form("jdoe", "Form \(i)")
            try tree.form("asmith", "Form \(i)")
        }
        let config = try fixture.store(importing: tree.root)
        let store = try fixture.storePath(config)
        // Four consoles all try to take every one of jdoe's forms, each for a different technician.
        let targets = ["asmith", "sobrien", "zangstrom", "tpatel"]
        let results = Mutex<[Int32]>([])
        let scripts = try targets.map { target -> String in
            let path = try TempDir.make() + "/moves.mi"
            try (1...20).map { "move 'jdoe/Form \($0)' \(target)" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        DispatchQueue.concurrentPerform(iterations: targets.count) { i in
            let r = try? MIAdmin.run(["--config", config, "--user", "mkhan", "--on-error", "continue", "-f", scripts[i]],
                                     password: fixture.password("mkhan"))
            results.withLock { $0.append(r?.status ?? -1) }
        }
        // Each form moved exactly once; the losers got a clear error, not a second move.
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms") == "40")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms WHERE owner = 'jdoe'") == "0")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM audit WHERE command = 'move'") == "20")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM notices WHERE uid = 'jdoe'") == "20")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM (SELECT owner, name FROM forms GROUP BY owner, name HAVING COUNT(*) > 1)") == "0")
        // asmith already had Form 1..20, so any form she won was renamed, never duplicated.
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms WHERE owner = 'asmith' AND name NOT LIKE 'Form %'") == "0")
        let statuses = results.withLock { $0 }
        #expect(statuses.count == targets.count)
        #expect(statuses.allSatisfy { $0 == 0 || $0 == 3 }, "\(statuses)")
    }

    @Test func killedMidMoveLeavesTheStoreConsistent() throws {
        let tree = try DocumentsTree()
        for i in 1...30 {
            try tree.form("jdoe", "Pump \(i)", media: ["Qid0(1).jpg": "photo \(i)"])
            try tree.form("asmith", "Pump \(i)")
        }
        let config = try fixture.store(importing: tree.root)
        let store = try fixture.storePath(config)
        // Every form to asmith, then every form to jdoe, and so on: half of each round are real
        // moves (renamed on collision), long enough to be killed in the middle.
        var lines: [String] = []
        for round in 0..<40 {
            let target = round % 2 == 0 ? "asmith" : "jdoe"
            for id in 1...60 { lines.append("move \(id) \(target)") }
        }
        let script = try TempDir.make() + "/moves.mi"
        try lines.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let pid = try Shell.start(Paths.binary, ["--config", config, "--user", "mkhan", "--on-error", "continue", "-f", script],
                                  environment: ["MIADMIN_PASSWORD": fixture.password("mkhan"), "HOME": try TempDir.make()])
        // Wait until some moves have committed, then kill -9 at whatever instant that is.
        try waitUntil("25 moves committed", every: 0.02) {
            (Int(try sqlite(store, "SELECT COUNT(*) FROM audit WHERE command = 'move'")) ?? 0) >= 25
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)

        #expect(try sqlite(store, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms") == "60")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM media") == "30")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM media WHERE form_id NOT IN (SELECT id FROM forms)") == "0")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM (SELECT owner, name FROM forms GROUP BY owner, name HAVING COUNT(*) > 1)") == "0")
        // Every committed move has its notice: form, notice and audit row commit together.
        let moves = try sqlite(store, "SELECT COUNT(*) FROM audit WHERE command = 'move'")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM notices WHERE source = 'move'") == moves)
        #expect(Int(moves) ?? 0 >= 25)
    }
}
