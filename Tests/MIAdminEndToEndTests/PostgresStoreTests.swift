import Foundation
import MITestSupport
import Testing

/// The console on a PostgreSQL store (store.url), through the built binary, against the real
/// throwaway server of Scripts/pg-fixture: the same commands as on SQLite, moving a store from
/// one engine to the other, and the errors a site admin meets when the server says no.
@Suite(.tags(.endToEnd, .ldap, .postgres)) struct PostgresStoreTests {
    let fixture = Fixture.shared
    let pg = PostgresFixture.shared

    /// A config whose store is a new, empty PostgreSQL database.
    func postgresConfig(url: String? = nil, passwordFile: String? = nil,
                        _ edit: (inout [String: Any]) -> Void = { _ in }) throws -> (config: String, url: String) {
        try fixture.postgresConfig(pg, url: url, passwordFile: passwordFile, edit)
    }

    /// `mi` of `postgresql://miadmin@127.0.0.1:5432/mi?sslmode=...`.
    func database(of url: String) -> String {
        let path = url.split(separator: "?").first!
        return String(path.split(separator: "/").last!)
    }

    func json(_ result: ProcessResult) throws -> Any { try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) }

    @Test func theSameCommandsOnPostgres() throws {
        let (config, url) = try postgresConfig()
        let tree = try Paths.copyOfSampleTree()
        let imported = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(tree))"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let info = try MIAdmin.as_("mkhan", config: config, format: "json", ["store info"])
        #expect(info.status == 0, "\(info.stderr)")
        let record = try json(info) as! [String: Any]
        #expect(record["engine"] as? String == "postgres")
        #expect((record["location"] as? String)?.hasPrefix("127.0.0.1:\(pg["PG_PORT"])/") == true)
        #expect(record["forms"] as? Int == 5 && record["media"] as? Int == 4 && record["schema"] as? String == "v4-write-ids")
        // A move renames on the collision and leaves both notices, as on SQLite.
        let move = try MIAdmin.as_("mkhan", config: config, format: "json", ["move 'jdoe/Pump station 4' asmith"])
        #expect(move.status == 0, "\(move.stderr)")
        #expect(move.stdout.contains("Pump station 4 (3)"))
        let notices = try MIAdmin.as_("jdoe", config: config, format: "csv", ["notices"])
        #expect(notices.stdout.contains("was reassigned to asmith as 'Pump station 4 (3)' by foreman mkhan"))
        // The rows really are in the server's database.
        #expect(try pg.query("SELECT owner || '/' || name FROM forms WHERE name = 'Pump station 4 (3)'",
                             database: database(of: url)) == "asmith/Pump station 4 (3)")
        // --atomic: one failing command, nothing saved; the same exit status as on SQLite.
        let commands = ["move 'asmith/Pump station 4' jdoe", "move 999 jdoe"]
        let atomic = try MIAdmin.as_("mkhan", config: config, commands, extra: ["--atomic"])
        let onSQLite = try MIAdmin.as_("mkhan", config: try fixture.store(importing: try Paths.copyOfSampleTree()),
                                       commands, extra: ["--atomic"])
        #expect(atomic.status != 0 && atomic.status == onSQLite.status, "\(atomic.stderr)")
        #expect(atomic.stderr.contains("nothing was saved"))
        #expect(try pg.query("SELECT count(*) FROM forms WHERE owner = 'jdoe' AND trashed_at IS NULL",
                             database: database(of: url)) == "2")
        // Expire, restore and the audit trail.
        let expire = try MIAdmin.as_("mkhan", config: config, ["expire --yes"])
        #expect(expire.status == 0, "\(expire.stderr) \(expire.stdout)")
        let audit = try MIAdmin.as_("mkhan", config: config, format: "csv", ["audit --form 'asmith/Pump station 4 (3)'"])
        #expect(audit.status == 0 && audit.stdout.contains("move"), "\(audit.stderr)")
    }

    @Test func aStoreMovesFromSQLiteToPostgresAndIsVerified() throws {
        let sqliteConfig = try fixture.store(importing: try Paths.copyOfSampleTree())
        let url = try pg.newDatabase()
        let passwordFile = pg["PG_PASSWORD_FILE"]
        let copy = try MIAdmin.as_("mkhan", config: sqliteConfig, format: "json",
                                   ["store copy --to \(shellQuote(url)) --password-file \(shellQuote(passwordFile)) --yes"])
        #expect(copy.status == 0, "\(copy.stderr)")
        let rows = try json(copy) as! [[String: Any]]
        let byTable = Dictionary(uniqueKeysWithValues: rows.map { ($0["table"] as! String, $0) })
        #expect(byTable["forms"]?["source"] as? Int == 5 && byTable["forms"]?["copied"] as? Int == 5)
        #expect(byTable["media"]?["copied"] as? Int == 4)
        #expect(byTable["media sha256"]?["copied"] as? Int == 4, "every media file hashed again on the target")
        // The target is a working store: the same listing as the source.
        let (pgConfig, _) = try postgresConfig(url: url)
        let listed = try MIAdmin.as_("mkhan", config: pgConfig, format: "csv", ["forms"])
        let original = try MIAdmin.as_("mkhan", config: sqliteConfig, format: "csv", ["forms"])
        #expect(listed.status == 0 && listed.stdout == original.stdout, "\(listed.stderr)")
        // New rows get new ids after the copied ones (the identity sequences moved on).
        let moved = try MIAdmin.as_("mkhan", config: pgConfig, ["move 'jdoe/Pump station 4' asmith"])
        #expect(moved.status == 0, "\(moved.stderr)")
        // A second copy into the now non-empty target is refused; --append refuses clashing ids.
        let again = try MIAdmin.as_("mkhan", config: sqliteConfig,
                                    ["store copy --to \(shellQuote(url)) --password-file \(shellQuote(passwordFile)) --yes"])
        #expect(again.status == 1 && again.stderr.contains("is not empty"), "\(again.stderr)")
        let append = try MIAdmin.as_("mkhan", config: sqliteConfig,
                                     ["store copy --to \(shellQuote(url)) --password-file \(shellQuote(passwordFile)) --append --yes"])
        #expect(append.status == 1 && append.stderr.contains("are in both stores"), "\(append.stderr)")
        // Without --yes a script is refused before anything is copied.
        let unconfirmed = try MIAdmin.as_("mkhan", config: sqliteConfig, ["store copy --to \(shellQuote(url))"])
        #expect(unconfirmed.status == 1 && unconfirmed.stderr.contains("--yes"))
    }

    @Test func serverErrorsAreOneLineNamingTheHostWithExitCodes() throws {
        // Wrong password: authentication, exit 4, the host named, the password never printed.
        let wrong = try TempDir.make() + "/wrong.pw"
        try "not-the-password\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        chmod(wrong, 0o600)
        let (badPassword, _) = try postgresConfig(passwordFile: wrong)
        let denied = try MIAdmin.as_("mkhan", config: badPassword, ["store info"])
        #expect(denied.status == 4, "\(denied.stderr)")
        #expect(denied.stderr.contains("127.0.0.1") && !denied.stderr.contains("not-the-password"))
        // Nobody listening: unreachable, exit 2.
        let closedPort = pg.url.replacingOccurrences(of: ":\(pg["PG_PORT"])/", with: ":1/")
        let (down, _) = try postgresConfig(url: closedPort)
        let unreachable = try MIAdmin.as_("mkhan", config: down, ["store info"])
        #expect(unreachable.status == 2 && unreachable.stderr.contains("127.0.0.1:1"), "\(unreachable.stderr)")
        // A database that is not there: exit 2.
        let (missing, _) = try postgresConfig(url: pg.url(database: "no_such_db"))
        let gone = try MIAdmin.as_("mkhan", config: missing, ["store info"])
        #expect(gone.status == 2 && gone.stderr.contains("no_such_db"), "\(gone.stderr)")
        // TLS: a CA that did not sign the server's certificate, exit 2.
        let (wrongCA, _) = try postgresConfig(url: pg.url.replacingOccurrences(of: pg["PG_CA"], with: pg["PG_WRONG_CA"]))
        let tls = try MIAdmin.as_("mkhan", config: wrongCA, ["store info"])
        #expect(tls.status == 2, "\(tls.stderr)")
        // An account the server knows but that has no rights on the store's database: exit 4.
        let (owned, ownedURL) = try postgresConfig()
        #expect(try MIAdmin.as_("mkhan", config: owned, ["store info"]).status == 0, "the schema, made by the store account")
        let outsider = "outsider_" + UUID().uuidString.prefix(8).lowercased()
        _ = try pg.query("CREATE ROLE \(outsider) LOGIN PASSWORD 'outsider-pw'", database: "postgres")
        let outsiderPassword = try TempDir.make() + "/outsider.pw"
        try "outsider-pw\n".write(toFile: outsiderPassword, atomically: true, encoding: .utf8)
        chmod(outsiderPassword, 0o600)
        let (noRights, _) = try postgresConfig(url: ownedURL.replacingOccurrences(of: "//miadmin@", with: "//\(outsider)@"),
                                               passwordFile: outsiderPassword)
        let refusedAccount = try MIAdmin.as_("mkhan", config: noRights, ["store info"])
        #expect(refusedAccount.status == 4 && refusedAccount.stderr.contains("permission denied"), "\(refusedAccount.stderr)")
        #expect(!refusedAccount.stderr.contains("outsider-pw"))
        // Cleartext is a config error unless the config allows it; both engines at once too.
        let (cleartext, _) = try postgresConfig(url: pg.url.replacingOccurrences(of: "sslmode=verify-full", with: "sslmode=disable"))
        let refused = try MIAdmin.as_("mkhan", config: cleartext, ["store info"])
        #expect(refused.status == 1 && refused.stderr.contains("store.allowCleartext"), "\(refused.stderr)")
        let both = try fixture.config { setKey(&$0, "store.url", pg.url) }
        let twice = try MIAdmin.as_("mkhan", config: both, ["store info"])
        #expect(twice.status == 1 && twice.stderr.contains("store.path and store.url are both set"), "\(twice.stderr)")
    }

    /// PostgreSQL's text holds no NUL and libpq would cut the value at it ("T\u0000x" stored
    /// as "T"): a form.json with one is refused naming the field, and the rest of the tree is
    /// imported. (Commands get the same check from the engine: PostgresTextCheckTests.)
    @Test func textWithANulIsRefusedNamingTheFieldNotCutShort() throws {
        let (config, url) = try postgresConfig()
        let tree = try Paths.copyOfSampleTree()
        let form = tree + "/jdoe/Pump station 4/form.json"
        let original = try String(contentsOfFile: form, encoding: .utf8)
        let templateLine = try #require(original.split(separator: "\n").first { $0.contains("\"template\":") })
        try original.replacingOccurrences(of: String(templateLine), with: "  \"template\": \"T\\u0000x\",")
            .write(toFile: form, atomically: true, encoding: .utf8)
        let imported = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(tree))"])
        #expect(imported.stdout.contains("NUL") || imported.stderr.contains("NUL"), "\(imported.stdout) \(imported.stderr)")
        #expect((imported.stdout + imported.stderr).contains("forms.template"), "\(imported.stdout) \(imported.stderr)")
        let database = database(of: url)
        #expect(try pg.query("SELECT count(*) FROM forms WHERE template = 'T'", database: database) == "0")
        #expect(try pg.query("SELECT count(*) FROM forms WHERE owner = 'jdoe' AND name = 'Pump station 4'", database: database) == "0")
        #expect(try pg.query("SELECT count(*) FROM forms", database: database) == "4")
    }
}
