import Foundation
import MITestSupport
import Testing

/// A PostgreSQL store that authenticates the console with the user's Kerberos ticket: libpq's
/// own GSSAPI, reached through `store.url` options (`krbsrvname`, `gssencmode`) that miadmin
/// passes on unchanged. The server gets the AD fixture's `postgres/localhost` keytab, a role and
/// a database of this test's own and `gss` lines for them in pg_hba.conf, removed afterwards.
@Suite(.enabled(if: Fixture.activeDirectory != nil, "needs Scripts/ad-fixture (Scripts/test starts it)"))
struct KerberosPostgresTests {
    let fixture = Fixture.activeDirectory!

    /// Appends `line` to the server file `setting` names (hba_file, ident_file); returns a
    /// closure that takes it out again. Both reload the server's configuration.
    func addLine(_ pg: PostgresFixture, _ setting: String, _ line: String, first: Bool) throws -> () throws -> Void {
        let path = try pg.query("SHOW \(setting)", database: "postgres")
        let before = try String(contentsOfFile: path, encoding: .utf8)
        try (first ? line + "\n" + before : before + "\n" + line + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        _ = try pg.query("SELECT pg_reload_conf()", database: "postgres")
        return {
            let now = try String(contentsOfFile: path, encoding: .utf8)
            try now.replacingOccurrences(of: first ? line + "\n" : "\n" + line + "\n", with: "")
                .write(toFile: path, atomically: false, encoding: .utf8)
            _ = try pg.query("SELECT pg_reload_conf()", database: "postgres")
        }
    }

    @Test func aPostgresStoreAcceptsTheUsersTicket() throws {
        let pg = PostgresFixture.shared
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(10)
        let role = "mikrb_\(id)"
        // The server's key, readable by the server's account only.
        let keytab = pg.directory + "/\(role).keytab"
        try FileManager.default.copyItem(atPath: fixture["POSTGRES_KEYTAB_FILE"], toPath: keytab)
        if getuid() == 0, let postgres = getpwnam("postgres") { chown(keytab, postgres.pointee.pw_uid, postgres.pointee.pw_gid) }
        chmod(keytab, 0o600)
        _ = try pg.query("ALTER SYSTEM SET krb_server_keyfile = '\(keytab)'", database: "postgres")
        _ = try pg.query("CREATE ROLE \(role) LOGIN", database: "postgres")
        _ = try pg.query("CREATE DATABASE \(role) OWNER \(role)", database: "postgres")
        let removeHBA = try addLine(pg, "hba_file", "hostssl \(role) \(role) 127.0.0.1/32 gss include_realm=1 map=\(role)", first: true)
        defer { try? removeHBA() }
        let removeIdent = try addLine(pg, "ident_file", "\(role) mkhan@\(fixture["REALM"]) \(role)", first: false)
        defer { try? removeIdent() }

        var object = try #require(JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: fixture["MIADMIN_CONFIG_KERBEROS"]))) as? [String: Any])
        object["store"] = ["url": "postgresql://\(role)@localhost:\(pg["PG_PORT"])/\(role)?sslmode=verify-full"
                                  + "&sslrootcert=\(pg["PG_CA"])&gssencmode=disable&krbsrvname=postgres"]
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
