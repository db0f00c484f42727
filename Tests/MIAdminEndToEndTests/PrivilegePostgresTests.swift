import Foundation
import MITestSupport
import Testing

/// The installed, setgid miadmin on a PostgreSQL store, run by real Unix accounts:
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

    /// The store URL pointed at another server (port), with the CA the installation trusts.
    private func url(port: Int) -> String {
        "postgresql://miadmin@127.0.0.1:\(port)/mi?sslmode=verify-full&sslrootcert=\(install.configDir)/db-ca.pem"
    }

    /// Waits until the impostor recorded `count` connections (each is recorded when it ends).
    private func waitFor(_ impostor: PostgresImpostor, connections count: Int) throws {
        try waitUntil("the impostor saw \(count) connection(s)", deadline: 15) { impostor.connections.count >= count }
    }

    /// A server that proved the configured certificate (here: the real server's certificate and
    /// key, on another port) but asks for the password in cleartext, as MD5, or offers SCRAM and
    /// then asks for cleartext in the same breath, gets nothing from the console; psql, the
    /// control, answers each of them.
    @Test func aServerThatAsksForThePasswordOtherThanByScramGetsNothing() throws {
        let saved = try #require(try configObject.value(at: "store.url") as? String)
        let passwordFile = try #require(try configObject.value(at: "store.passwordFile") as? String)
        defer { try? writeConfig(url: saved, passwordFile: passwordFile) }
        let tls = pg["PG_FIXTURE_DIR"] + "/tls"
        for ask in [PostgresImpostor.Ask.cleartext, .md5, .scram] {
            let impostor = try PostgresImpostor(ask: ask, certificate: tls + "/server.pem", key: tls + "/server.key")
            defer { impostor.stop() }
            try writeConfig(url: url(port: impostor.port), passwordFile: passwordFile)
            let run = try install.run(.foreman, ["-c", "store info"])
            #expect(run.status == 2, "\(ask): \(run.stderr)")
            #expect(run.stderr.contains(ask == .md5 ? "MD5" : "cleartext") && run.stderr.contains("SCRAM"), "\(ask): \(run.stderr)")
            try waitFor(impostor, connections: 1)
            let seen = impostor.connections
            #expect(seen.count >= 1 && seen.allSatisfy { $0.tls && $0.received.isEmpty },
                    "\(ask): the console answered: \(seen.map(\.received))")
            // The control: libpq left to itself answers with the password (or its MD5 hash).
            let psql = try Shell.run("/usr/bin/psql", [url(port: impostor.port), "-Xqc", "SELECT 1"],
                                     environment: ["PGPASSWORD": pg.password])
            #expect(psql.status != 0)
            try waitFor(impostor, connections: seen.count + 1)
            let answered = impostor.connections.dropFirst(seen.count).flatMap(\.received)
            #expect(answered.contains { $0.type == "p" && ($0.payload.contains(pg.password) || $0.payload.hasPrefix("md5")) },
                    "\(ask): psql sent \(answered)")
        }
    }

    /// An account's `~/.postgresql/root.crl` holding a CA of its own: OpenSSL loads certificates
    /// from a CRL file too, so libpq would trust a server certificate from that CA on a
    /// store.url port the account listens on (a failed primary's, a pooler's during a restart).
    /// The console reads no file of the account's: the handshake fails, nothing is sent. psql,
    /// run by the account, trusts the planted CA (the control).
    @Test func aCertificateAuthorityPlantedInTheUsersRootCrlIsNotTrusted() throws {
        let saved = try #require(try configObject.value(at: "store.url") as? String)
        let passwordFile = try #require(try configObject.value(at: "store.passwordFile") as? String)
        defer { try? writeConfig(url: saved, passwordFile: passwordFile) }
        let attacker = try TempDir.make()
        let made = try Shell.run(Paths.repoRoot + "/Scripts/lib/make-tls", [attacker, "--ca-name", "attacker CA"])
        try #require(made.status == 0, "\(made.stderr)")
        // OpenSSL checks revocation for the whole chain once a CRL file is loaded, so the
        // planted file carries the attacker's CA and an empty CRL it signed.
        let crl = try Shell.run("/bin/sh", ["-c", """
            cd '\(attacker)' && : > index.txt && printf '[ca]\\ndefault_ca=x\\n[x]\\ndatabase=index.txt\\ndefault_md=sha256\\ndefault_crl_days=30\\n' > ca.cnf \\
              && openssl ca -gencrl -config ca.cnf -keyfile ca.key -cert ca.pem -out crl.pem 2>&1 && cat ca.pem crl.pem > root.crl
            """])
        try #require(crl.status == 0, "\(crl.stdout)")
        let impostor = try PostgresImpostor(ask: .cleartext, certificate: attacker + "/server.pem", key: attacker + "/server.key")
        defer { impostor.stop() }
        let folder = install.home(.foreman) + "/.postgresql"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: attacker + "/root.crl", toPath: folder + "/root.crl")
        try install.chown(folder, to: .foreman)
        // The control: the account's own psql trusts the planted CA and gives its password away.
        let psql = try install.runAs(.foreman, ["/usr/bin/psql", url(port: impostor.port), "-Xqc", "SELECT 1"],
                                     environment: ["PGPASSWORD": "psql-control-secret"])
        #expect(psql.status != 0)
        try waitFor(impostor, connections: 1)
        #expect(impostor.received("psql-control-secret"), "the control did not reach the impostor: \(psql.stderr)")
        let before = impostor.connections.count
        try writeConfig(url: url(port: impostor.port), passwordFile: passwordFile)
        let run = try install.run(.foreman, ["-c", "store info"])
        #expect(run.status == 2 && run.stderr.contains("certificate verify failed"), "\(run.stderr)")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!impostor.received(pg.password))
        #expect(impostor.connections.dropFirst(before).allSatisfy { !$0.tls || $0.received.isEmpty })
    }

    /// Every file the privileged part opens (from the start to giving the group up), traced
    /// with strace on the installed binary run by an account whose home holds libpq's files
    /// (`~/.pgpass`, `~/.postgresql/`) and whose `/tmp/krb5cc_<uid>` exists: none of those, no
    /// Kerberos file, and nothing but what docs/security.md lists ("What the privileged part
    /// opens").
    @Test func thePrivilegedPartOpensOnlyTheFilesTheSecurityDocumentLists() throws {
        let home = install.home(.foreman)
        let uid = try install.uid(.foreman)
        try FileManager.default.createDirectory(atPath: home + "/.postgresql", withIntermediateDirectories: true)
        for name in ["root.crl", "root.crt", "postgresql.crt", "postgresql.key"] {
            FileManager.default.createFile(atPath: home + "/.postgresql/" + name, contents: Data("x\n".utf8))
        }
        FileManager.default.createFile(atPath: home + "/.pgpass", contents: Data("*:*:*:*:wrong\n".utf8))
        let cache = "/tmp/krb5cc_\(uid)"
        FileManager.default.createFile(atPath: cache, contents: Data())
        defer {
            try? FileManager.default.removeItem(atPath: home + "/.postgresql")
            try? FileManager.default.removeItem(atPath: home + "/.pgpass")
            try? FileManager.default.removeItem(atPath: cache)
        }
        try install.chown(home + "/.postgresql", to: .foreman)
        try install.chown(home + "/.pgpass", to: .foreman)
        chmod(home + "/.pgpass", 0o600)
        try install.chown(cache, to: .foreman)
        let trace = try TempDir.make() + "/trace"
        let run = try install.traced(.foreman, ["-c", "store info"], output: trace)
        #expect(run.status == 0, "\(run.stderr)")
        let opened = try Self.privilegedOpens(trace)
        #expect(!opened.isEmpty, "the trace shows no privileged part: \(run.stderr)")
        let unexpected = opened.filter { path in !Self.documentedPrivilegedFiles(prefix: install.prefix).contains { path.hasPrefix($0) } }
        #expect(unexpected.isEmpty, "opened while privileged and not in docs/security.md: \(unexpected)")
        let forbidden = opened.filter { $0.hasPrefix(home) || $0.hasPrefix("/tmp/krb5cc") || $0.hasPrefix("/etc/krb5") || $0.contains(".pgpass") }
        #expect(forbidden.isEmpty, "the user's files opened while privileged: \(forbidden)")
    }

    /// What docs/security.md says the privileged part opens, as path prefixes (the install's
    /// own files under `prefix`).
    static func documentedPrivilegedFiles(prefix: String) -> [String] {
        [
            prefix + "/etc/miadmin/",
            "/etc/ld.so.cache", "/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/gconv/",
            "/proc/self/maps", "/proc/filesystems", "/sys/devices/system/cpu/possible",
            "/usr/lib/ssl/openssl.cnf",
            // libldap's defaults, read while privileged from `/` with no HOME, so that no user
            // ldaprc is: its `./ldaprc` is `/ldaprc`. SASL started without plug-ins looks in a
            // folder that does not exist.
            "/etc/ldap/ldap.conf", "ldaprc", "/nonexistent/miadmin-uses-no-sasl-plugins",
            // The working folder, kept open to go back to it.
            ".",
            "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
            "/etc/hosts", "/etc/resolv.conf", "/etc/host.conf", "/etc/gai.conf",
            "/usr/lib/locale/", "/usr/share/locale/locale.alias", "/etc/localtime",
            // The file libpq is given for each file it must not look for (it stats or opens it).
            "/nonexistent/miadmin-no-file",
            // A debug build (the tests') searches its toolchain's libraries first (its run path).
            "/opt/swift/usr/lib/swift/",
        ]
    }

    /// The paths a trace shows opened after the execve of miadmin and before it first set its
    /// group ids (the drop), in order, without repeats.
    static func privilegedOpens(_ trace: String) throws -> [String] {
        var started = false
        var paths: [String] = []
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            if line.contains("execve(") && line.contains("/bin/miadmin") { started = true; continue }
            guard started else { continue }
            if line.contains("setresgid(") || line.contains("setgid(") { break }
            guard line.contains("open(") || line.contains("openat("), let first = line.firstIndex(of: "\"") else { continue }
            let rest = line[line.index(after: first)...]
            guard let end = rest.firstIndex(of: "\"") else { continue }
            let path = String(rest[..<end])
            if !paths.contains(path) { paths.append(path) }
        }
        return paths
    }

    /// A session of the store role holding the schema-update lock (as a console stopped with
    /// SIGSTOP in its start-up transaction did) stops no console: the installed binary on a
    /// current schema starts at once.
    @Test func aSessionHoldingTheUpdateLockStopsNoConsole() throws {
        let url = try #require(try configObject.value(at: "store.url") as? String)
        let first = try install.run(.foreman, ["-c", "store info"])   // the schema is current now
        try #require(first.status == 0, "\(first.stderr)")
        let database = String(url.split(separator: "?")[0].split(separator: "/").last!)
        let key = 0x6D69_6164_6D69_6E
        let holder = try Shell.start("/usr/bin/psql", [url, "-Xqc", "BEGIN; SELECT pg_advisory_xact_lock(\(key)); SELECT pg_sleep(60)"],
                                     environment: ["PGPASSWORD": pg.password])
        defer {
            kill(holder, SIGKILL)
            var status: Int32 = 0
            waitpid(holder, &status, 0)
        }
        let lockHeld = { try pg.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted", database: database) != "0" }
        try waitUntil("psql took the lock", deadline: 20, every: 0.1, lockHeld)
        let run = try install.run(.technician, ["-c", "forms"])
        #expect(run.status == 0, "\(run.stderr)")
        // psql holds the lock for 60 s: a console that waited for it could not have ended yet.
        #expect(try lockHeld(), "the console ended only once the lock was free: it waited for it")
    }
}
