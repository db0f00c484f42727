import Foundation
import MITestSupport

/// The demo's store as its first console found it, copied afresh for each example that runs
/// against it: a SQLite file (`sqlite3 .backup`), or on PostgreSQL a template database made from
/// the demo's (`CREATE DATABASE … TEMPLATE`), from which each copy is a database of its own.
struct DemoStoreSnapshot {
    let engine: String
    private let file: String
    private let postgres: PostgresFixture?
    private static let template = "demo_snapshot"

    init(engine: String, demo: String) throws {
        self.engine = engine
        file = try TempDir.make() + "/demo-store.sqlite"
        guard engine == "postgres" else {
            postgres = nil
            let backup = try Shell.run("/usr/bin/sqlite3", [demo + "/store.sqlite", ".backup '\(file)'"])
            guard backup.status == 0 else { throw DemoTestError(description: "sqlite3 .backup: \(backup.stderr)") }
            return
        }
        let server = try PostgresFixture.load(demo + "/pg")
        postgres = server
        // A template may have no session open: the demo's console keeps one, which is ended here
        // (the console connects again at its next command). It runs nothing meanwhile; a
        // session opened in between makes the copy fail, and it is tried again.
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                _ = try server.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                     + "WHERE datname = 'mi' AND pid <> pg_backend_pid()", database: "postgres")
                _ = try server.query("CREATE DATABASE \(Self.template) TEMPLATE mi", database: "postgres")
                return
            } catch {
                lastError = error
                usleep(200_000)
            }
        }
        throw lastError!
    }

    /// Runs `body` with the config's `store` settings pointed at a new copy (a file under
    /// `root`, or a new database, dropped after `body`).
    func withCopy<T>(of store: [String: Any], root: String, _ body: ([String: Any]) throws -> T) throws -> T {
        var store = store
        guard let postgres else {
            try FileManager.default.copyItem(atPath: file, toPath: root + "/store.sqlite")
            store["path"] = root + "/store.sqlite"
            return try body(store)
        }
        return try postgres.withDatabase(copiedFrom: Self.template) { url in
            store["url"] = url
            return try body(store)
        }
    }
}
