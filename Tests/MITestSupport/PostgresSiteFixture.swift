import Foundation

/// A PostgreSQL set-up as sites run it, for the failover and pooler tests: a primary, its
/// synchronous streaming hot standby, and optionally PgBouncer in front of the primary, each a
/// real server started by `Scripts/pg-fixture` (start, standby, pgbouncer) in a folder of its
/// own. A test that fails the primary over owns its site; ``stop()`` ends every server.
public final class PostgresSiteFixture: @unchecked Sendable {
    public let parent: String
    public var directory: String { parent + "/pg" }
    public private(set) var fixture: PostgresFixture

    /// Starts a primary and a standby, and PgBouncer (`pool_mode = bouncerMode`) when given.
    public init(bouncerMode: String? = nil) throws {
        parent = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-site-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o711])
        let dir = parent + "/pg"
        var steps = [["start", dir], ["standby", dir]]
        if let bouncerMode { steps.append(["pgbouncer", dir, "--mode", bouncerMode]) }
        fixture = PostgresFixture(directory: dir, values: [:])
        for step in steps {
            let result = try Shell.run(Paths.repoRoot + "/Scripts/pg-fixture", step, deadline: 120)
            guard result.status == 0 else {
                stop()
                throw ShellError(description: "Scripts/pg-fixture \(step[0]) failed (\(result.status)): \(result.stderr)")
            }
        }
        fixture = PostgresFixture(directory: dir, values: try EnvFile.read(dir + "/fixture.env"))
    }

    /// Both hosts with `target_session_attrs=read-write`: the URL a site gives the console.
    public var failoverURL: String { fixture["PG_FAILOVER_URL"] }
    /// Through PgBouncer (empty without one).
    public var bouncerURL: String { fixture["PG_BOUNCER_URL"] }

    /// `directory`'s console config with the store at `url` (one of this site's), its password
    /// file and `store.reconnectSeconds`.
    public func config(_ directory: Fixture, url: String, reconnectSeconds: Int) throws -> String {
        try directory.config { object in
            setKey(&object, "store.path", nil)
            setKey(&object, "store.url", url)
            setKey(&object, "store.passwordFile", fixture["PG_PASSWORD_FILE"])
            setKey(&object, "store.reconnectSeconds", reconnectSeconds)
        }
    }
    public var standbyPort: String { fixture["PG_STANDBY_PORT"] }

    /// Stops the primary with `-m immediate` (a crash) and, unless `promote` is false, promotes
    /// the standby (Scripts/pg-fixture failover).
    public func failover(promote: Bool = true) throws {
        let result = try Shell.run(Paths.repoRoot + "/Scripts/pg-fixture",
                                   ["failover", directory] + (promote ? [] : ["--no-promote"]), deadline: 60)
        guard result.status == 0 else { throw ShellError(description: "failover failed: \(result.stderr)") }
    }

    /// Starts the primary again with its data (after `failover(promote: false)`): its standby
    /// streams from it again (Scripts/pg-fixture start --keep).
    public func startPrimaryAgain() throws {
        let result = try Shell.run(Paths.repoRoot + "/Scripts/pg-fixture", ["start", directory, "--keep"], deadline: 60)
        guard result.status == 0 else { throw ShellError(description: "starting the primary again failed: \(result.stderr)") }
    }

    /// Runs SQL as the superuser on the standby (after a failover: the new primary).
    public func queryStandby(_ sql: String, database: String = "mi") throws -> String {
        let url = fixture.adminURL.replacingOccurrences(of: ":\(fixture["PG_PORT"])/postgres?", with: ":\(standbyPort)/\(database)?")
        let result = try Shell.run("/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-XAtqc", sql],
                                   environment: ["PGPASSWORD": fixture.adminPassword])
        guard result.status == 0 else { throw ShellError(description: "psql failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func stop() {
        _ = try? Shell.run(Paths.repoRoot + "/Scripts/pg-fixture", ["stop", directory])
        try? FileManager.default.removeItem(atPath: parent)
    }

    deinit { stop() }
}

extension PostgresSiteFixture {
    /// One site with PgBouncer in transaction pooling for the tests that only go through it (no
    /// failover), started on first use and stopped when the test process exits.
    public static let pooled: PostgresSiteFixture = {
        do {
            let site = try PostgresSiteFixture(bouncerMode: "transaction")
            pooledSite = site
            atexit { pooledSite?.stop() }
            return site
        } catch {
            fatalError("cannot start the PostgreSQL site fixture: \(error)")
        }
    }()
}

nonisolated(unsafe) private var pooledSite: PostgresSiteFixture?
