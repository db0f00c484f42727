import Foundation
import MITestSupport
import Testing
@testable import MIStore

/// What only the PostgreSQL engine has: a connection the server can close under it.
@Suite struct PostgresEngineTests {
    let fixture = PostgresFixture.shared

    func admin() throws -> PostgresConnection {
        try PostgresConnection(target: try PostgresTarget(uri: fixture.adminURL), password: fixture.adminPassword)
    }

    /// The server ends the console's session between two commands (a restart, a failover, an
    /// idle timeout): the next command connects again, with the session settings, and works.
    @Test func aConnectionTheServerClosedIsOpenedAgainAtTheNextTransaction() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "asmith/Pump"])
        let before: Int64 = try #require(try store.read { try $0.value(Int64.self, "SELECT pg_backend_pid()") })
        let killed = try admin().execute("SELECT pg_terminate_backend($1::int)", [.int(before)])
        #expect(killed.string(0, 0) == "t")
        // The next command: a new backend, the busy timeout set again, the move done.
        let result = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        #expect(result.newName == "Pump (2)")
        let after: Int64 = try #require(try store.read { try $0.value(Int64.self, "SELECT pg_backend_pid()") })
        #expect(after != before)
        #expect(try store.read { try $0.value(String.self, "SHOW lock_timeout") } == "5s")
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
            try seed.write { try $0.execute("UPDATE forms SET version = version WHERE id = ?", [id]) }
            let started = Date()
            #expect { try impatient.move(.id(id), to: "asmith", actor: "mkhan") } throws: { error in
                let error = error as! StoreError
                return error.kind == .busy && error.sqlState == "55P03"
            }
            #expect(Date().timeIntervalSince(started) < 5)
        }
        #expect(try impatient.form(.id(id)).owner == "jdoe")
    }
}
