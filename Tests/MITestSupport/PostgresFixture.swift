import Foundation

/// The throwaway PostgreSQL server the tests run against (Scripts/pg-fixture): port, CA and the
/// store account's password file, read from its fixture.env.
///
/// Uses `$MIADMIN_TEST_PG` when a script (Scripts/test) already started one; otherwise starts its
/// own once per test process and stops it when the process exits.
public struct PostgresFixture: Sendable {
    public let directory: String
    public let values: [String: String]

    public subscript(key: String) -> String { values[key] ?? "" }
    /// `postgresql://miadmin@127.0.0.1:PORT/mi?sslmode=verify-full&sslrootcert=CA` (no password).
    public var url: String { self["PG_URL"] }
    public var password: String { firstLine(of: self["PG_PASSWORD_FILE"]) }
    /// The superuser `pgadmin`'s URL and password, for setting up (a database per test).
    public var adminURL: String { self["PG_ADMIN_URL"] }
    public var adminPassword: String { firstLine(of: self["PG_ADMIN_PASSWORD_FILE"]) }

    /// `PG_URL` pointed at another database of the same server.
    public func url(database: String) -> String { url.replacingOccurrences(of: "/mi?", with: "/\(database)?") }

    /// Creates an empty database owned by the store account (through psql as the superuser) and
    /// returns its URL, for a test that needs a store of its own.
    public func newDatabase() throws -> String {
        url(database: try createDatabase(template: nil))
    }

    /// Runs `body` with the URL of a new database copied from `template` (which no session may
    /// be using), and drops it after.
    public func withDatabase<T>(copiedFrom template: String, _ body: (String) throws -> T) throws -> T {
        let name = try createDatabase(template: template)
        defer { _ = try? query("DROP DATABASE \(name) WITH (FORCE)", database: "postgres") }
        return try body(url(database: name))
    }

    /// A new database owned by the store account, under a name of its own: its name.
    private func createDatabase(template: String?) throws -> String {
        let name = "e2e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        _ = try query("CREATE DATABASE \(name) OWNER miadmin" + (template.map { " TEMPLATE \($0)" } ?? ""), database: "postgres")
        return String(name)
    }

    /// Runs one SQL statement as the superuser in `database` and returns psql's unaligned output.
    public func query(_ sql: String, database: String) throws -> String {
        let admin = adminURL.replacingOccurrences(of: "/postgres?", with: "/\(database)?")
        let result = try Shell.run("/usr/bin/psql", [admin, "-v", "ON_ERROR_STOP=1", "-XAtqc", sql],
                                   environment: ["PGPASSWORD": adminPassword])
        guard result.status == 0 else { throw ShellError(description: "psql failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func firstLine(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    /// The server of this test process, started on first use; or why there is none.
    /// The statements that make every write transaction on the store in `schema` fail with a
    /// serialization failure (40001) at its first COMMIT and go through at its second: a
    /// deferred constraint trigger on `write_ids` (one row per write transaction) raises it
    /// whenever a sequence, which no rollback takes back, hands out an odd number.
    public static func commitFaultStatements(schema: String) -> [String] {
        [
            "CREATE SEQUENCE \(schema).commit_faults",
            """
            CREATE FUNCTION \(schema).fail_odd_commits() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = \(schema) AS $$
            BEGIN
              IF nextval('commit_faults') % 2 = 1 THEN
                RAISE EXCEPTION 'forced serialization failure at COMMIT' USING ERRCODE = '40001';
              END IF;
              RETURN NULL;
            END $$
            """,
            """
            CREATE CONSTRAINT TRIGGER fail_odd_commits AFTER INSERT ON \(schema).write_ids DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION \(schema).fail_odd_commits()
            """,
        ]
    }

    public static let started: Result<PostgresFixture, FixtureUnavailable> = {
        do { return .success(try start()) } catch { return .failure(FixtureUnavailable(.postgres, error)) }
    }()

    /// Why this run has no PostgreSQL server (nil: it has one, started now if need be). A test
    /// that needs one asks this first and is skipped with the reason.
    public static var unavailable: String? {
        if case .failure(let why) = started { return why.description }
        return nil
    }

    /// The server; only for tests that checked ``unavailable``.
    public static var shared: PostgresFixture {
        switch started {
        case .success(let fixture): return fixture
        case .failure(let why): preconditionFailure("a test used PostgreSQL without checking PostgresFixture.unavailable: \(why)")
        }
    }

    private static func start() throws -> PostgresFixture {
        if let dir = ProcessInfo.processInfo.environment["MIADMIN_TEST_PG"], !dir.isEmpty {
            return try load(dir)
        }
        guard TestServer.mayStart else { throw TestServer.postgres.notStarted() }
        // The server runs as `postgres` when the tests run as root: it must be able to enter the
        // folder, so the folder is made o+x (its files keep their own modes).
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-pg-\(getpid())").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o711])
        let dir = parent + "/pg"
        let result = try Shell.run(Paths.repoRoot + "/Scripts/pg-fixture", ["start", dir], deadline: 120)
        guard result.status == 0 else {
            throw ShellError(description: "Scripts/pg-fixture start failed (\(result.status)): \(result.stderr)")
        }
        let fixture = try load(dir)
        ownedPostgresDirectory = parent
        atexit {
            guard let parent = ownedPostgresDirectory else { return }
            _ = try? Shell.run(Paths.repoRoot + "/Scripts/pg-fixture", ["stop", parent + "/pg"])
            try? FileManager.default.removeItem(atPath: parent)
        }
        return fixture
    }

    /// A server that `Scripts/pg-fixture start dir` started for someone else (the demo's).
    public static func load(_ dir: String) throws -> PostgresFixture {
        PostgresFixture(directory: dir, values: try EnvFile.read(dir + "/fixture.env"))
    }
}

nonisolated(unsafe) private var ownedPostgresDirectory: String?

/// A fixture's sourceable `KEY=value` file (single-quoted values as the scripts write them).
public enum EnvFile {
    public static func read(_ path: String) throws -> [String: String] {
        let env = try String(contentsOfFile: path, encoding: .utf8)
        var values: [String: String] = [:]
        for line in env.split(separator: "\n") where !line.hasPrefix("#") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            var value = String(line[line.index(after: eq)...])
            if value.hasPrefix("'") && value.hasSuffix("'") && value.count >= 2 {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "'\\''", with: "'")
            }
            values[String(line[..<eq])] = value
        }
        return values
    }
}

extension Fixture {
    /// A config of this directory whose store is a new, empty PostgreSQL database of `pg` (or
    /// the one at `url`), and the database's URL.
    public func postgresConfig(_ pg: PostgresFixture = .shared, url: String? = nil, passwordFile: String? = nil,
                               _ edit: (inout [String: Any]) -> Void = { _ in }) throws -> (config: String, url: String) {
        let url = try url ?? pg.newDatabase()
        let config = try config { object in
            setKey(&object, "store.path", nil)
            setKey(&object, "store.url", url)
            setKey(&object, "store.passwordFile", passwordFile ?? pg["PG_PASSWORD_FILE"])
            edit(&object)
        }
        return (config, url)
    }

    /// ``postgresConfig(_:url:passwordFile:_:)`` with the sample tree imported by mkhan.
    public func postgresStoreWithSampleTree(_ pg: PostgresFixture = .shared) throws -> (config: String, url: String) {
        let store = try postgresConfig(pg)
        let imported = try MIAdmin.as_("mkhan", config: store.config, ["import --yes \(shellQuote(try Paths.copyOfSampleTree()))"],
                                       fixture: self)
        guard imported.status == 0 else { throw ShellError(description: "import failed: \(imported.stderr)") }
        return store
    }
}
