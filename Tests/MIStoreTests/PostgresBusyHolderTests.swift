import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// "The store is busy" names the session that holds the lock the change waited for, whoever it
/// is: here psql holding `LOCK TABLE forms IN ACCESS EXCLUSIVE MODE`, named by its role and
/// `application_name`, also while another console waits behind it (that one only waits: it is
/// never the one named).
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresBusyHolderTests {
    let fixture = PostgresFixture.shared

    /// A store with jdoe's `Pump` (its id returned) and asmith's `Valve`, and a psql-like session
    /// on its schema holding the forms table locked.
    func setUp(_ dir: TempDir) throws -> (pump: Int64, holder: PostgresConnection, pid: Int32, role: String) {
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "asmith/Valve"])
        let pump = try store.form(ref("jdoe/Pump")).id
        let schema = try #require(try store.read { try $0.value(String.self, literal: "SELECT current_schema()") })
        let holder = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try holder.execute("SET search_path = \(schema)")
        try holder.execute("SET application_name = 'psql'")
        let pid = try #require(Int32(holder.execute("SELECT pg_backend_pid()").string(0, 0) ?? ""))
        let role = try #require(holder.execute("SELECT current_user").string(0, 0))
        try holder.execute("BEGIN")
        try holder.execute("LOCK TABLE forms IN ACCESS EXCLUSIVE MODE")
        return (pump, holder, pid, role)
    }

    func expectNamed(_ error: any Error, pid: Int32, role: String) -> Bool {
        guard let error = error as? StoreError, error.kind == .busy, let holder = error.holder else { return false }
        return holder.pid == pid && holder.who == "role \(role)" && holder.command == "psql"
            && error.message.contains("probably role \(role) in psql, server process \(pid)")
    }

    @Test func aTableLockOfPsqlIsNamed() throws {
        let dir = try TempDir()
        let (_, holder, pid, role) = try setUp(dir)
        let impatient = try makeStore(dir, engine: .postgres, busyTimeout: 0.3)
        #expect { try impatient.move(ref("jdoe/Pump"), to: "asmith", actor: "lchen") } throws: { expectNamed($0, pid: pid, role: role) }
        try holder.execute("ROLLBACK")
    }

    @Test func aConsoleWaitingBehindTheSameLockIsNotNamed() throws {
        let dir = try TempDir()
        let (pump, holder, pid, role) = try setUp(dir)
        let waiter = try makeStore(dir, engine: .postgres, busyTimeout: 30)
        let waiterPid = try #require(try waiter.read { try $0.value(Int64.self, literal: "SELECT pg_backend_pid()") })
        let waiting = PostgresRaceTests.MoveInBackground(waiter, pump)
        try PostgresRaceTests().waitUntilBlocked(waiterPid, on: "relation")
        let impatient = try makeStore(dir, engine: .postgres, busyTimeout: 0.3)
        #expect { try impatient.move(ref("asmith/Valve"), to: "jdoe", actor: "lchen") } throws: { expectNamed($0, pid: pid, role: role) }
        try holder.execute("ROLLBACK")
        #expect(try waiting.result().moved)
    }
}
