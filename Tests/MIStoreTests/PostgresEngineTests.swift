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
}
