import Foundation
import MITestSupport
import Testing

/// The installed, setgid miadmin on a PostgreSQL store that logs in with the user's Kerberos
/// ticket (`krbsrvname` in `store.url`, no store password), against the MIT KDC fixture and the
/// PostgreSQL fixture given the KDC's `postgres/localhost` key, run by real Unix accounts: libpq's
/// GSSAPI reads (and writes) the user's credential cache, so the store is opened only after the
/// group is given up. The setgid binary's Kerberos library reads only /etc/krb5.conf, so the
/// fixture's realm is put there for the run and the machine's file back afterwards.
@Suite(.tags(.endToEnd, .ldap, .postgres), .serialized,
       .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"),
       .enabled(if: Fixture.kerberosUnavailable == nil, "\(Fixture.kerberosUnavailable ?? "")"),
       .enabled(if: PostgresFixture.unavailable == nil, "\(PostgresFixture.unavailable ?? "")"))
struct PrivilegeKerberosStoreTests {
    let fixture = try! Fixture.kerberos.get()
    let pg = PostgresFixture.shared

    /// An installation whose store is a database that takes `mkhan@MI.TEST`'s ticket only, with
    /// the fixture's krb5.conf as /etc/krb5.conf and the foreman's account holding mkhan's
    /// ticket in its default cache (`/tmp/krb5cc_<uid>`); all of it removed afterwards.
    func withInstallation(_ body: (Installation, PostgresKerberosDatabase) throws -> Void) throws {
        try MachineKerberosConfig.with(fixture["KRB5_CONFIG_FILE"]) { try withInstalledStore(body) }
    }

    private func withInstalledStore(_ body: (Installation, PostgresKerberosDatabase) throws -> Void) throws {
        let database = try PostgresKerberosDatabase(pg, keytab: fixture["POSTGRES_KEYTAB_FILE"],
                                                    principal: "mkhan@\(fixture["REALM"])")
        let install = try Installation(tag: "kpg", groupOf: nil)
        defer {
            for account in Account.allCases {
                if let uid = try? install.uid(account) { unlink("/tmp/krb5cc_\(uid)") }
            }
            install.remove()
            database.remove()
        }
        try install.runInstall([])
        let ca = install.configDir + "/db-ca.pem"
        try install.writeConfig(fixture: fixture) { object in
            setKey(&object, "store.path", nil)
            setKey(&object, "store.url", database.url(pg, ca: ca))
        }
        try FileManager.default.copyItem(atPath: pg["PG_CA"], toPath: ca)
        chmod(ca, 0o644)
        let kinit = try install.runAs(.foreman, ["/bin/sh", "-c", "printf '%s\\n' \"$PW\" | /usr/bin/kinit \"$PRINCIPAL\""],
                                      environment: ["PW": try fixture.principalPassword("mkhan@\(fixture["REALM"])"),
                                                    "PRINCIPAL": "mkhan@\(fixture["REALM"])"])
        try #require(kinit.status == 0, "kinit: \(kinit.stderr)")
        try body(install, database)
    }

    /// Traced from its start to the group drop: nothing of Kerberos' or the user's is opened
    /// while privileged (the table in docs/security.md, "What the privileged part opens"); the
    /// user's cache is opened after the drop, and the store is the ticket's.
    @Test func aStoreThatTakesTheUsersTicketIsOpenedOnlyAfterTheGroupIsGivenUp() throws {
        try withInstallation { install, database in
            let cache = "/tmp/krb5cc_\(try install.uid(.foreman))"
            let trace = try TempDir.make() + "/trace"
            let run = try install.traced(.foreman, ["-c", "store info"], output: trace)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").contains { $0.hasPrefix("engine") && $0.hasSuffix("postgres") },
                    "\(run.stdout)")
            let opened = try PrivilegePostgresTests.privilegedOpens(trace)
            #expect(!opened.isEmpty, "the trace shows no privileged part: \(run.stderr)")
            let home = install.home(.foreman)
            let forbidden = opened.filter { path in
                path.hasPrefix(home) || path.hasPrefix("/tmp/krb5cc") || path.hasPrefix("/etc/krb5") || path.hasPrefix("/etc/gss")
            }
            #expect(forbidden.isEmpty, "Kerberos' or the user's files opened while privileged: \(forbidden)")
            let documented = PrivilegePostgresTests.documentedPrivilegedFiles(prefix: install.prefix)
            let unexpected = opened.filter { path in !documented.contains { path.hasPrefix($0) } }
            #expect(unexpected.isEmpty, "opened while privileged and not in docs/security.md: \(unexpected)")
            // The ticket did reach the store: its cache was read, after the drop.
            let text = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(text.contains("\"\(cache)\""), "the user's cache was never opened")
            #expect(try pg.query("SELECT count(*) FROM pg_tables WHERE tableowner = '\(database.name)'",
                                 database: database.name) != "0")
        }
    }

    /// Root's `--init-store` on such a store applies the schema after the drop too, with root's
    /// own default cache (here holding mkhan's ticket, the one principal the database maps).
    @Test func rootsInitStoreAppliesTheSchemaWithRootsOwnTicket() throws {
        try withInstallation { install, database in
            let cache = "/tmp/krb5cc_0"
            try #require(!FileManager.default.fileExists(atPath: cache), "root has a cache of its own at \(cache)")
            defer { unlink(cache) }
            let principal = "mkhan@\(fixture["REALM"])"
            let kinit = try Shell.run("/usr/bin/kinit", [principal], environment: ["KRB5CCNAME": "FILE:" + cache],
                                      input: try fixture.principalPassword(principal) + "\n")
            try #require(kinit.status == 0, "\(kinit.stderr)")
            let tables = "SELECT count(*) FROM pg_tables WHERE tableowner = '\(database.name)'"
            try #require(try pg.query(tables, database: database.name) == "0")
            let run = try Shell.run(install.binary, ["--init-store"])
            #expect(run.status == 0 && run.stdout.contains("is ready"), "\(run.stdout) \(run.stderr)")
            #expect(try pg.query(tables, database: database.name) != "0")
        }
    }

    /// A store password file beside a URL that logs in with the ticket would be read with the
    /// group's rights for a connection made without them: the installed binary refuses the pair.
    @Test func aStorePasswordFileBesideATicketLoginIsRefused() throws {
        try withInstallation { install, _ in
            let password = install.configDir + "/db.pw"
            try FileManager.default.copyItem(atPath: pg["PG_PASSWORD_FILE"], toPath: password)
            chown(password, 0, install.gid)
            chmod(password, 0o640)
            let config = URL(fileURLWithPath: install.configPath)
            var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: config)) as? [String: Any])
            setKey(&object, "store.passwordFile", password)
            try JSONSerialization.data(withJSONObject: object).write(to: config)
            chown(install.configPath, 0, install.gid)
            chmod(install.configPath, 0o640)
            let run = try install.run(.foreman, ["-c", "store info"])
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("store.passwordFile names a password"), "\(run.stderr)")
            #expect(run.stdout.isEmpty, "\(run.stdout)")
        }
    }
}
