import Foundation
import MITestSupport
import Testing

/// The installed, setgid miadmin on a PostgreSQL store (issue 9), run by real Unix accounts:
/// the store password is the group's alone, and nothing the invoking user controls (their
/// `~/.pgpass`, `PG*` variables) reaches libpq while the console is privileged.
@Suite(.tags(.endToEnd, .ldap, .postgres), .serialized, .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"))
struct PrivilegePostgresTests {
    let install: Installation
    let pg = PostgresFixture.shared

    /// A second install (own prefix, the shared accounts and group) whose system config names a
    /// new PostgreSQL database, with the store password 0640 root:group and the CA beside it.
    init() throws {
        let shared = try Installation.shared.get()
        install = try Installation(tag: "pg", groupOf: shared)
        let first = try install.runInstall([])
        try #require(first.status == 0, "Scripts/install: \(first.stderr)")
        let ca = install.configDir + "/db-ca.pem"
        try FileManager.default.copyItem(atPath: pg["PG_CA"], toPath: ca)
        chmod(ca, 0o644)
        let password = install.configDir + "/db.pw"
        try FileManager.default.copyItem(atPath: pg["PG_PASSWORD_FILE"], toPath: password)
        chown(password, 0, install.gid)
        chmod(password, 0o640)
        let url = try pg.newDatabase().replacingOccurrences(of: pg["PG_CA"], with: ca)
        try install.writeConfig()   // the directory's part: bind password and LDAP CA in place
        try writeConfig(url: url, passwordFile: password)
    }

    func writeConfig(url: String, passwordFile: String?) throws {
        var object = try install.configObject()
        setKey(&object, "store.path", nil)
        setKey(&object, "store.url", url)
        setKey(&object, "store.passwordFile", passwordFile)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted])
            .write(to: URL(fileURLWithPath: install.configPath))
        chown(install.configPath, 0, install.gid)
        chmod(install.configPath, 0o640)
    }

    var configObject: [String: Any] {
        get throws {
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: install.configPath))) as! [String: Any]
        }
    }

    @Test func accountsUseTheStoreThroughTheGroupAndCannotReadItsPassword() throws {
        let info = try install.run(.foreman, ["--format", "json", "-c", "store info"])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"engine\":\"postgres\"") || info.stdout.contains("\"engine\": \"postgres\""), "\(info.stdout)")
        // A PG* variable of the user's changes nothing: it never reaches libpq (scrubbed).
        // PGTARGETSESSIONATTRS=standby would make libpq refuse this primary server (the URI
        // names no target_session_attrs), as it does for psql (checked below).
        let steered = try install.run(.technician, ["-c", "forms"], environment: ["PGTARGETSESSIONATTRS": "standby"])
        #expect(steered.status == 0, "\(steered.stderr)")
        let url = try #require(try configObject.value(at: "store.url") as? String)
        let psql = try Shell.run("/usr/bin/psql", [url, "-Xqc", "SELECT 1"],
                                 environment: ["PGTARGETSESSIONATTRS": "standby", "PGPASSWORD": pg.password])
        #expect(psql.status != 0 && psql.stderr.contains("standby"), "\(psql.stderr)")
        // The store password is the group's: the account itself cannot read it.
        let password = try #require(try configObject.value(at: "store.passwordFile") as? String)
        let cat = try install.runAs(.technician, ["/bin/cat", password])
        #expect(cat.status != 0 && cat.stdout.isEmpty)
    }

    @Test func theUsersPgpassIsNotReadAndALoosePasswordFileIsRefused() throws {
        let url = try #require(try configObject.value(at: "store.url") as? String)
        let password = try #require(try configObject.value(at: "store.passwordFile") as? String)
        defer { try? writeConfig(url: url, passwordFile: password) }
        // No store.passwordFile: the account's own ~/.pgpass holds the right password, and a
        // psql of theirs would use it; the privileged console must not (authentication, exit 4).
        let pgpass = install.home(.foreman) + "/.pgpass"
        let line = "*:*:*:*:" + (try String(contentsOfFile: pg["PG_PASSWORD_FILE"], encoding: .utf8))
        try line.write(toFile: pgpass, atomically: true, encoding: .utf8)
        try install.chown(pgpass, to: .foreman)
        chmod(pgpass, 0o600)
        defer { try? FileManager.default.removeItem(atPath: pgpass) }
        // The control: psql, run as that account, does log in with that ~/.pgpass.
        let control = try install.runAs(.foreman, ["/usr/bin/psql", url, "-Xqtc", "SELECT 42"])
        #expect(control.status == 0 && control.stdout.contains("42"), "\(control.stderr)")
        try writeConfig(url: url, passwordFile: nil)
        let withoutFile = try install.run(.foreman, ["-c", "store info"])
        #expect(withoutFile.status == 4, "\(withoutFile.stderr)")
        #expect(withoutFile.stderr.contains("127.0.0.1"))
        // A store password others can read is refused before anything is opened.
        chmod(password, 0o644)
        defer { chmod(password, 0o640) }
        try writeConfig(url: url, passwordFile: password)
        let loose = try install.run(.foreman, ["-c", "store info"])
        #expect(loose.status == 1 && loose.stderr.contains("store.passwordFile") && loose.stderr.contains("readable by other users"),
                "\(loose.stderr)")
        // The fix it names is for this installation's group, not the default one.
        #expect(loose.stderr.contains("give it to the \(install.group) group: chgrp \(install.group) '\(password)'"), "\(loose.stderr)")
    }

    /// Creating or migrating the shared store is root's on PostgreSQL as on SQLite: an account
    /// running the installed binary is refused before anything is opened; root's run works.
    @Test func initStoreIsRootsOnPostgresToo() throws {
        let refused = try install.runAs(.foreman, [install.binary, "--init-store"])
        #expect(refused.status == 1 && refused.stderr.contains("--init-store of the installed miadmin is for root"),
                "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        let root = try Shell.run(install.binary, ["--init-store"])
        #expect(root.status == 0 && root.stdout.contains("is ready"), "\(root.stderr)")
    }
}
