import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// What only the PostgreSQL engine has: a connection the server can close under it.
@Suite(.tags(.postgres), .needsPostgres) struct PostgresEngineTests {
    let fixture = PostgresFixture.shared

    func admin() throws -> PostgresConnection {
        try PostgresConnection(target: try PostgresTarget(uri: fixture.adminURL), password: fixture.adminPassword)
    }

    /// The server ends the console's session between two commands (a restart, a failover, an
    /// idle timeout): the next command connects again, with the session settings, and works.
    @Test func aConnectionTheServerClosedIsOpenedAgainAtTheNextTransaction() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "asmith/Pump"])
        let before: Int64 = try #require(try store.read { try $0.value(Int64.self, literal: "SELECT pg_backend_pid()") })
        let killed = try admin().execute("SELECT pg_terminate_backend($1::int)", [.int(before)])
        #expect(killed.string(0, 0) == "t")
        // The next command: a new backend, the busy timeout set again, the move done.
        let result = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        #expect(result.newName == "Pump (2)")
        let after: Int64 = try #require(try store.read { try $0.value(Int64.self, literal: "SELECT pg_backend_pid()") })
        #expect(after != before)
        #expect(try store.read { try $0.value(String.self, literal: "SHOW lock_timeout") } == "5s")
    }

    /// A move's round trips to the server (each also a hop through a pooler): BEGIN with the
    /// lookup of the form and the target's names ahead of it and the policy's read, the form at
    /// its place, the update with its notices and audit row, COMMIT. A rename costs none more.
    /// Counted once the statements are prepared.
    @Test func aMoveTakesFourRoundTrips() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "jdoe/Valve", "asmith/Valve", "jdoe/Pipe"])
        let engine = try #require(store.engine as? PostgresEngine)
        _ = try store.move(ref("jdoe/Pipe"), to: "asmith", actor: "mkhan")  // prepares the statements
        var before = engine.roundTrips
        #expect(try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan").newName == "Pump")
        #expect(engine.roundTrips - before == 4)
        before = engine.roundTrips
        #expect(try store.move(ref("jdoe/Valve"), to: "asmith", actor: "mkhan").newName == "Valve (2)")
        #expect(engine.roundTrips - before == 4)
    }

    /// A listing reads through a cursor whose FETCH grows while its batches stay small: every
    /// row once, in order, in few round trips (500, 1,000, 2,000, 4,000, 8,000, then the rest,
    /// which is short and ends it: no empty FETCH), with BEGIN and DECLARE in the first and
    /// CLOSE and COMMIT after.
    @Test func aListingFetchesMoreRowsPerRoundTripAsItGoes() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump"])
        let engine = try #require(store.engine as? PostgresEngine)
        let before = engine.roundTrips
        var seen: [Int64] = []
        try store.read { db in
            try db.forEachRow(literal: "SELECT n FROM generate_series(1, 20000) AS n ORDER BY n") { seen.append($0["n"]) }
        }
        #expect(seen == Array(1...20000))
        #expect(engine.roundTrips - before == 8)
    }

    /// The next FETCH is on its way while a batch's rows are handed out: a statement the
    /// listing's body runs meanwhile gets its own answer, and the listing every row in order.
    @Test func aListingsBodyRunsStatementsWhileTheNextBatchIsOnItsWay() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump"])
        var seen: [Int64] = []
        var doubled: [Int64] = []
        try store.read { db in
            try db.forEachRow(literal: "SELECT n FROM generate_series(1, 4000) AS n ORDER BY n") { row in
                let n: Int64 = row["n"]
                seen.append(n)
                // In every batch (500, 1,000, 2,000, then the short rest), early and late.
                if n % 250 == 1 { doubled.append(try #require(try db.value(Int64.self, literal: "SELECT \(n) * 2"))) }
            }
        }
        #expect(seen == Array(1...4000))
        #expect(doubled == stride(from: 1, through: 4000, by: 250).map { $0 * 2 })
    }

    /// A listing stopped by its body while the next FETCH is on its way: the read ends, and the
    /// connection answers the next read and lists again from the start.
    @Test func aListingStoppedWithABatchOnItsWayLeavesTheConnectionUsable() throws {
        struct Stop: Error {}
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump"])
        var seen = 0
        #expect(throws: Stop.self) {
            try store.read { db in
                try db.forEachRow(literal: "SELECT n FROM generate_series(1, 4000) AS n") { _ in
                    seen += 1
                    if seen == 300 { throw Stop() }
                }
            }
        }
        #expect(seen == 300)
        #expect(try store.read { try $0.value(Int64.self, literal: "SELECT 41 + 1") } == 42)
        var again = 0
        try store.read { db in try db.forEachRow(literal: "SELECT n FROM generate_series(1, 4000) AS n") { _ in again += 1 } }
        #expect(again == 4000)
    }

    /// Another console holds a row lock longer than the busy timeout: `.busy`, as on SQLite,
    /// after about the timeout (PostgreSQL's lock_timeout), and nothing changed.
    @Test func aRowLockHeldPastTheBusyTimeoutIsBusy() throws {
        let dir = try TempDir()
        let seed = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump"])
        let impatient = try makeStore(dir, engine: .postgres, busyTimeout: 0.2)
        let id = try seed.form(ref("jdoe/Pump")).id
        try seed.withSessionTransaction(end: .rollback) {
            // Held by the seed console's open transaction until the end of this block.
            try seed.write { try $0.execute(literal: "UPDATE forms SET version = version WHERE id = \(id)") }
            // 55P03 (lock_not_available) is what lock_timeout raises: the wait ended by itself.
            #expect { try impatient.move(.id(id), to: "asmith", actor: "mkhan") } throws: { error in
                let error = error as! StoreError
                return error.kind == .busy && error.sqlState == "55P03"
            }
        }
        #expect(try impatient.form(.id(id)).owner == "jdoe")
    }
}

/// The busy error names who holds the store.
@Suite struct BusyHolderTests {
    /// A console's write transaction carries who runs what in `application_name`; another
    /// console kept waiting names it, with the server process and since when.
    @Test func postgresNamesTheConsoleHoldingTheRows() throws {
        let dir = try TempDir()
        let seed = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump"])
        let impatient = try makeStore(dir, engine: .postgres, busyTimeout: 0.2)
        let id = try seed.form(ref("jdoe/Pump")).id
        seed.setActivity("mkhan expire")
        try seed.withSessionTransaction(end: .rollback) {
            try seed.write { try $0.execute(literal: "UPDATE forms SET version = version WHERE id = \(id)") }
            let backend: Int64 = try #require(try seed.read { try $0.value(Int64.self, literal: "SELECT pg_backend_pid()") })
            #expect(try seed.read { try $0.value(String.self, literal: "SELECT current_setting('application_name')") }
                    == "miadmin: mkhan expire")
            #expect { try impatient.move(.id(id), to: "asmith", actor: "lchen") } throws: { error in
                let error = error as! StoreError
                return error.kind == .busy && error.holder?.pid == Int32(backend)
                    && error.message.contains("longer than the busy timeout: probably mkhan running 'expire', server process "
                                              + "\(backend), in a transaction since ")
            }
        }
        // Nobody holds anything now: a read does not carry the label, the next write works.
        #expect(try impatient.move(.id(id), to: "asmith", actor: "lchen").moved)
    }

    /// SQLite: the process holding the write lock (here the sqlite3 shell), from /proc/locks.
    @Test func sqliteNamesTheProcessHoldingTheWriteLock() throws {
        let dir = try TempDir()
        let seed = try MoveTests.store(dir, ["jdoe/Pump"])
        let impatient = try makeStore(dir, busyTimeout: 0.2)
        let path = dir.path + "/store.sqlite"
        let holder = try Shell.start("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", path, "BEGIN IMMEDIATE;", ".shell sleep 20"],
                                     environment: [:])
        defer { kill(holder, SIGKILL); var status: Int32 = 0; waitpid(holder, &status, 0) }
        try waitUntil("the sqlite3 shell holds the store's write lock", deadline: 20, every: 0.02) {
            SQLiteLockHolder.find(storePath: path) != nil
        }
        #expect { try impatient.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan") } throws: { error in
            let error = error as! StoreError
            return error.kind == .busy && error.holder?.pid == holder
                && error.message.contains("held it for more than 0.2 s: process \(holder) of \(NSUserName()) (/usr/bin/sqlite3 -cmd")
                && error.message.contains("), running since ")
        }
        _ = seed
    }

    @Test func theWriteLockIsFoundInProcLocks() {
        // st_dev 0xfe00 is fe:00; 0x10301 (major 259, minor 1) is 103:01.
        let table = """
            17: POSIX  ADVISORY  READ 22628 fe:00:16221693 128 128
            18: POSIX  ADVISORY  WRITE 22628 fe:00:16221693 120 120
            18: -> POSIX  ADVISORY  WRITE 22700 fe:00:16221693 120 120
            19: POSIX  ADVISORY  WRITE 31000 103:01:77 0 EOF
            20: OFDLCK ADVISORY  WRITE -1 fe:00:5 120 120
            """
        #expect(SQLiteLockHolder.holder(in: table, device: 0xfe00, inode: 16_221_693, byte: 120) == 22628)
        #expect(SQLiteLockHolder.holder(in: table, device: 0xfe00, inode: 16_221_693, byte: 128) == nil, "a read lock holds nothing")
        #expect(SQLiteLockHolder.holder(in: table, device: 0x10301, inode: 77, byte: 120) == 31000)
        #expect(SQLiteLockHolder.holder(in: table, device: 0xfe01, inode: 16_221_693, byte: 120) == nil)
        #expect(SQLiteLockHolder.holder(in: table, device: 0xfe00, inode: 5, byte: 120) == nil)
    }
}
