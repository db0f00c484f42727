import Foundation
import MITestSupport
import Testing

/// A PostgreSQL store that authenticates the console with the user's Kerberos ticket: libpq's
/// own GSSAPI, reached through `store.url` options (`krbsrvname`, `gssencmode`) that miadmin
/// passes on unchanged. The server gets the AD fixture's `postgres/localhost` keytab, a role and
/// a database of this test's own and `gss` lines for them in pg_hba.conf, removed afterwards
/// (``PostgresKerberosDatabase``).
@Suite(.enabled(if: Fixture.activeDirectory != nil, "needs Scripts/ad-fixture (Scripts/test starts it)"))
struct KerberosPostgresTests {
    let fixture = Fixture.activeDirectory!

    @Test func aPostgresStoreAcceptsTheUsersTicket() throws {
        let pg = PostgresFixture.shared
        let database = try PostgresKerberosDatabase(pg, keytab: fixture["POSTGRES_KEYTAB_FILE"],
                                                    principal: "mkhan@\(fixture["REALM"])")
        defer { database.remove() }
        let role = database.name

        var object = try #require(JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: fixture["MIADMIN_CONFIG_KERBEROS"]))) as? [String: Any])
        object["store"] = ["url": database.url(pg, ca: pg["PG_CA"])]
        let dir = try TempDir.make()
        let config = dir + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let environment = ["KRB5_CONFIG": fixture["KRB5_CONFIG_FILE"], "KRB5CCNAME": "FILE:\(dir)/krb5cc"]
        let kinit = try Shell.run("/usr/bin/kinit", ["mkhan@\(fixture["REALM"])"], environment: environment,
                                  input: fixture.password("mkhan") + "\n")
        try #require(kinit.status == 0, "\(kinit.stderr)")

        // No password anywhere: the directory and the store both take the ticket.
        let created = try MIAdmin.run(["--config", config, "--init-store"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let used = try MIAdmin.run(["--config", config, "-c", "whoami", "-c", "store info"], environment: environment)
        #expect(used.status == 0, "\(used.stderr)")
        #expect(used.lines.contains("auth   kerberos"), "\(used.stdout)")
        #expect(used.lines.contains { $0.hasPrefix("engine") && $0.hasSuffix("postgres") }, "\(used.stdout)")
        #expect(try pg.query("SELECT count(*) FROM pg_tables WHERE tableowner = '\(role)'", database: role) != "0")
    }
}
