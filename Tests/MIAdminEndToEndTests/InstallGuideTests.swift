import Foundation
import MITestSupport
import Testing

/// docs/install.md walked on a throwaway prefix and group, its tested blocks run as written
/// (``InstallGuide``): the install with `--binary` (the test build, instead of a release build),
/// the config, the second install that creates the store, the timer's account and credential,
/// the timer's line by hand and as its unit runs it, and the monitor. With crews (the crews'
/// slapd): the timers' directory user is `sitelead`, in `teams.allTeamsGroup`.
@Suite(.serialized, .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"))
struct InstallGuideTests {
    let fixture = CrewDirectory.fixture
    let guide: InstallGuide
    let id = UUID().uuidString.prefix(6).lowercased()
    var prefix: String { "/tmp/miadmin-guide-\(id)" }
    var group: String { "miguide\(id)" }
    var confDir: String { prefix + "/etc/miadmin" }
    var stateDir: String { prefix + "/var/lib/miadmin" }
    var binary: String { prefix + "/bin/miadmin" }
    /// The timers' accounts (the document's `miadmin-expire`, `miadmin-outbound`) and a monitoring account.
    var timerAccount: String { "mig\(id)e" }
    var outboundAccount: String { "mig\(id)o" }
    var monitorAccount: String { "mig\(id)m" }

    init() throws { guide = try InstallGuide() }

    /// What an admin under this prefix reads differently in the document.
    var paths: [(String, String)] {
        [("/usr/local/bin/miadmin", binary), ("/etc/miadmin", confDir), ("/var/lib/miadmin", stateDir),
         ("-g miadmin", "-g \(group)")]
    }

    func bash(_ script: String, input: String? = nil) throws -> ProcessResult {
        try Shell.run("/bin/bash", ["-euo", "pipefail", "-c", script], input: input)
    }

    /// Runs `argv` as a Unix account with a clean environment (`env -i`), `PATH` first naming
    /// the prefix's bin, as for a user whose profile puts it there.
    func runAs(_ account: String, _ argv: [String], home: String) throws -> ProcessResult {
        try Shell.run("/usr/sbin/runuser", ["-u", account, "--", "/usr/bin/env", "-i", "-C", "/",
                                            "PATH=\(prefix)/bin:/usr/bin:/bin", "HOME=\(home)", "LANG=C.UTF-8"] + argv)
    }

    func removeEverything() {
        for account in [timerAccount, outboundAccount, monitorAccount] { _ = try? Shell.run("/usr/sbin/userdel", ["-r", account]) }
        _ = try? Shell.run("/usr/sbin/groupdel", [group])
        try? FileManager.default.removeItem(atPath: prefix)
    }

    @Test func theSiteSetUpRunsAsWritten() throws {
        defer { removeEverything() }
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        let install = Paths.repoRoot + "/Scripts/install"

        // 1. Install (the test build instead of a release build: --binary, as the document says).
        let first = try bash(try guide.block("install", replacing: [
            ("Scripts/install", "\(install) --prefix \(prefix) --group \(group) --binary \(Paths.binary)")]))
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        #expect(first.stdout.contains("config        \(confDir)/config.json (missing: write it from config.json.example"), "\(first.stdout)")
        #expect(first.stdout.contains("store folder  \(stateDir) (root:\(group) 2770)"), "\(first.stdout)")
        #expect(first.stdout.contains("units         \(prefix)/lib/systemd/system: "), "\(first.stdout)")
        #expect(first.stdout.contains("systemctl link \(prefix)/lib/systemd/system/miadmin-expire.service"), "\(first.stdout)")
        #expect(first.stdout.contains("MANPATH=\(prefix)/share/man:"), "\(first.stdout)")
        #expect(first.stdout.contains("--binary \(binary) again to create the store"), "\(first.stdout)")
        #expect(!first.stdout.contains("/usr/local") && !first.stdout.contains(" /etc/miadmin") && !first.stdout.contains(" /var/lib/"),
                "\(first.stdout)")
        // The units name this install's binary, credentials and group, nothing of /usr/local or /etc.
        for name in ["expire", "deliver", "remind"] {
            let unit = try String(contentsOfFile: "\(prefix)/lib/systemd/system/miadmin-\(name).service", encoding: .utf8)
            #expect(unit.contains("ExecStart=\(binary) --user svc-mi"), "\(name): \(unit)")
            #expect(unit.contains("LoadCredential=password:\(confDir)/"), "\(name): \(unit)")
            #expect(!unit.contains("miadmin group"), "\(name): \(unit)")
            #expect(name == "remind" || unit.contains("not in the\n# \(group) group"), "\(name): \(unit)")
            #expect(!unit.contains("/usr/local") && !unit.contains(" /etc/miadmin") && !unit.contains("PREFIX"), "\(name): \(unit)")
        }
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/lib/systemd/system/miadmin-expire.timer"))
        // bash-completion finds the prefix's completion with the prefix's share in XDG_DATA_DIRS
        // ("Shell completion and man page"), and not without it.
        func completion(_ dataDirs: String) throws -> ProcessResult {
            try Shell.run("/usr/bin/env", ["-i", "PATH=\(prefix)/bin:/usr/bin:/bin", "XDG_DATA_DIRS=\(dataDirs)", "/bin/bash", "--norc", "-c",
                                           "source /usr/share/bash-completion/bash_completion && __load_completion miadmin && complete -p miadmin"])
        }
        let loaded = try completion("\(prefix)/share:/usr/local/share:/usr/share")
        #expect(loaded.status == 0 && loaded.stdout.hasPrefix("complete ") && loaded.stdout.contains(" miadmin"), "\(loaded.stdout) \(loaded.stderr)")
        #expect(try completion("/usr/local/share:/usr/share").status != 0)

        // 2. The config (the admin's own writing), and the service password as the document has it.
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fixture.configPath))) as! [String: Any]
        setKey(&config, "store.path", stateDir + "/store.sqlite")
        setKey(&config, "ldap.bindPasswordFile", confDir + "/bind.pw")
        setKey(&config, "ldap.caFile", confDir + "/ca.pem")
        setKey(&config, "teams.source", "groups")
        setKey(&config, "teams.base", CrewDirectory.base(fixture))
        setKey(&config, "teams.allTeamsGroup", CrewDirectory.siteLeadsGroup(fixture))
        try FileManager.default.copyItem(atPath: fixture.directory + "/tls/ca.pem", toPath: confDir + "/ca.pem")
        chmod(confDir + "/ca.pem", 0o644)
        try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: confDir + "/config.json"))
        chmod(confDir + "/config.json", 0o644)
        let bindPassword = try String(contentsOfFile: fixture.values["BIND_PW_FILE"] ?? fixture.directory + "/bind.pw", encoding: .utf8)
        let password = try bash(try guide.block("bind-password", paths: paths), input: bindPassword)
        #expect(password.status == 0, "\(password.stderr)")

        // 3. The second install creates the store, rebuilding nothing; the man page names it.
        let second = try bash(try guide.block("create-store", replacing: [
            ("Scripts/install", "\(install) --prefix \(prefix) --group \(group)")], paths: paths))
        #expect(second.status == 0, "\(second.stdout) \(second.stderr)")
        #expect(!second.stdout.contains("== building"), "\(second.stdout)")
        #expect(second.stdout.contains("config        \(confDir)/config.json (kept as it was; the store it names is ready)"), "\(second.stdout)")
        #expect(FileManager.default.fileExists(atPath: stateDir + "/store.sqlite"))
        let man = try String(contentsOfFile: prefix + "/share/man/man1/miadmin.1", encoding: .utf8)
        #expect(man.contains(".I \(confDir.replacingOccurrences(of: "-", with: "\\-"))/config.json"), "\(man.suffix(600))")
        #expect(man.contains(".I \(stateDir.replacingOccurrences(of: "-", with: "\\-"))/store.sqlite\nThe shared store, readable and writable by the \(group) group only."),
                "\(man.suffix(600))")
        let manpath = try Shell.run("/usr/bin/man", ["-w", "miadmin"], environment: ["PATH": "\(prefix)/bin:/usr/bin:/bin"])
        #expect(manpath.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == prefix + "/share/man/man1/miadmin.1", "\(manpath.stderr)")

        // 4. The timer's account and its credential, as the document has them.
        let account = try bash(try guide.block("expire-account", replacing: [("miadmin-expire", timerAccount)], paths: paths),
                               input: fixture.password("sitelead") + "\n")
        #expect(account.status == 0, "\(account.stderr)")
        let credential = confDir + "/expire.pw"
        var info = stat()
        #expect(lstat(credential, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_uid == 0)

        // Forms of two crews, 10 days old (the policy expires them after 7), imported by support.
        let tree = try DocumentsTree()
        let created = Date().addingTimeInterval(-10 * 86_400).formatted(.iso8601)
        try tree.form("jdoe", "North pump", created: created)
        try tree.form("asmith", "South pump", created: created)
        let imported = try Shell.run(binary, ["--user", "lchen", "-c", "import --yes " + shellQuote(tree.root)],
                                     environment: ["MIADMIN_PASSWORD": fixture.password("lchen")])
        #expect(imported.status == 0, "\(imported.stderr)")

        // 5. The run by hand: as that account, with root's credential; the directory user reaches every crew.
        let byHand = try bash(try guide.block("expire-by-hand", replacing: [("svc-mi", "sitelead"), ("miadmin-expire", timerAccount)],
                                              paths: paths))
        #expect(byHand.status == 0, "\(byHand.stdout) \(byHand.stderr)")
        #expect(byHand.stdout.contains("every crew (site lead)"), "\(byHand.stdout)")
        #expect(byHand.stdout.contains("North pump") && byHand.stdout.contains("South pump"), "\(byHand.stdout)")

        // 6. The unit's own line, as systemd runs it: the admin changed the directory user in the
        // installed unit (a re-run of the install keeps it), the credential is handed over in a
        // folder of its own, and the line runs as the timer's account.
        let unitPath = "\(prefix)/lib/systemd/system/miadmin-expire.service"
        let edited = try String(contentsOfFile: unitPath, encoding: .utf8).replacingOccurrences(of: "--user svc-mi", with: "--user sitelead")
        try edited.write(toFile: unitPath, atomically: true, encoding: .utf8)
        #expect(try bash("\(install) --prefix \(prefix) --group \(group) --binary \(binary)").status == 0)
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        #expect(unit == edited)
        let credentials = prefix + "/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: credential, toPath: credentials + "/password")
        #expect(try bash("chown -R \(timerAccount) \(credentials) && chmod 500 \(credentials) && chmod 400 \(credentials)/password").status == 0)
        let execStart = try #require(unit.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let line = execStart.replacingOccurrences(of: "${CREDENTIALS_DIRECTORY}", with: credentials)
        let timer = try Shell.run("/usr/sbin/runuser", ["-u", timerAccount, "--", "/bin/sh", "-c", line])
        #expect(timer.status == 0, "\(line): \(timer.stdout) \(timer.stderr)")
        #expect(timer.stdout.contains("North pump") && timer.stdout.contains("South pump"), "\(timer.stdout)")
        let trash = try Shell.run(binary, ["--user", "lchen", "--format", "csv", "-c", "trash"],
                                  environment: ["MIADMIN_PASSWORD": fixture.password("lchen")])
        #expect(trash.stdout.contains("North pump") && trash.stdout.contains("South pump"), "\(trash.stdout) \(trash.stderr)")

        // 7. The monitor, run by an account of its own with its password file: 0 when nothing is
        // held, 1 with the held deliveries listed, and 2, not 0, when miadmin fails.
        #expect(try Shell.run("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", monitorAccount]).status == 0)
        let home = "/home/\(monitorAccount)"
        let script = home + "/check-held"
        // A child process writes the script: a file this process held open for writing could be
        // inherited by a child another test forks meanwhile, and running it would fail with
        // "Text file busy".
        #expect(try bash("umask 077 && cat > \(script)", input: try guide.block("monitor", replacing: [("mon-mi", "lchen")])).status == 0)
        try (fixture.password("lchen") + "\n").write(toFile: home + "/.mi-password", atomically: true, encoding: .utf8)
        #expect(try bash("chown \(monitorAccount): \(script) \(home)/.mi-password && chmod 700 \(script) && chmod 600 \(home)/.mi-password").status == 0)
        let quiet = try runAs(monitorAccount, [script], home: home)
        #expect(quiet.status == 0 && quiet.stdout.isEmpty, "\(quiet.stdout) \(quiet.stderr)")

        // 8. Deliveries: the office (here one that refuses every form, so the delivery is held),
        // the outbound account with its credential and the office's token, one line at a time as
        // an admin types them, and the run by hand as that account.
        let outbound = OutboundFixture.shared
        try FileManager.default.copyItem(atPath: outbound["CA_FILE"], toPath: confDir + "/office-ca.pem")
        chmod(confDir + "/office-ca.pem", 0o644)
        setKey(&config, "delivery.url", outbound["HTTPS_URL"] + "/status/422")
        setKey(&config, "delivery.caFile", confDir + "/office-ca.pem")
        setKey(&config, "delivery.tokenFile", confDir + "/delivery.token")
        setKey(&config, "delivery.timeoutSeconds", 5)
        try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: confDir + "/config.json"))
        let outboundLines = try guide.block("outbound-account", replacing: [("miadmin-outbound", outboundAccount)], paths: paths)
            .split(separator: "\n").map(String.init)
        let inputs = [nil, fixture.password("sitelead") + "\n", try String(contentsOfFile: outbound["TOKEN_FILE"], encoding: .utf8)]
        #expect(outboundLines.count == inputs.count, "\(outboundLines)")
        for (line, input) in zip(outboundLines, inputs) {
            let result = try bash(line, input: input)
            #expect(result.status == 0, "\(line): \(result.stderr)")
        }
        let finished = try DocumentsTree()
        try finished.form("jdoe", "North done", completed: true)
        let submitted = try Shell.run(binary, ["--user", "sitelead", "-c", "import --yes " + shellQuote(finished.root),
                                               "-c", "submit --yes 'jdoe/North done'"],
                                      environment: ["MIADMIN_PASSWORD": fixture.password("sitelead")])
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let deliver = try bash(try guide.block("deliver-by-hand", replacing: [("svc-mi", "sitelead"), ("miadmin-outbound", outboundAccount)],
                                               paths: paths))
        // The office refused the form (422): it is held for a person, and the run says so (exit 5).
        #expect(deliver.status == 5, "\(deliver.stdout) \(deliver.stderr)")
        #expect(deliver.stdout.contains("held") && deliver.stdout.contains("HTTP 422"), "\(deliver.stdout)")
        let held = try runAs(monitorAccount, [script], home: home)
        #expect(held.status == 1 && held.stdout.hasPrefix("held deliveries:\n") && held.stdout.contains("North done"),
                "\(held.stdout) \(held.stderr)")
        try "wrong\n".write(toFile: home + "/.mi-password", atomically: true, encoding: .utf8)
        #expect(try bash("chown \(monitorAccount): \(home)/.mi-password && chmod 600 \(home)/.mi-password").status == 0)
        let failed = try runAs(monitorAccount, [script], home: home)
        #expect(failed.status == 2 && failed.stderr.contains("miadmin:"), "\(failed.stdout) \(failed.stderr)")
    }

    /// The `pg_dump` line: as root, the store account's password from the group's file, the
    /// server verified (a CA that did not sign it is refused), the dump private to root.
    @Test func thePgDumpLineVerifiesTheServerAndWritesAPrivateDump() throws {
        let pg = PostgresFixture.shared
        let dir = try TempDir.make()
        let conf = dir + "/etc", backups = dir + "/backups"
        for folder in [conf, backups] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: pg["PG_CA"], toPath: conf + "/db-ca.pem")
        try FileManager.default.copyItem(atPath: pg["PG_PASSWORD_FILE"], toPath: conf + "/db.pw")
        chmod(conf + "/db.pw", 0o640)
        let url = try pg.newDatabase()
        let hostAndDatabase = try #require(url.range(of: "postgresql://miadmin@").map { url[$0.upperBound...] }?
            .split(separator: "?").first.map(String.init))
        let line = try guide.block("pg-dump", replacing: [("/etc/miadmin", conf), ("/var/backups", backups),
                                                          ("db.example:5432/mi", hostAndDatabase)])
        let dump = try bash(line)
        #expect(dump.status == 0, "\(line): \(dump.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: backups)
        #expect(files.count == 1 && files[0].hasPrefix("miadmin-") && files[0].hasSuffix(".dump"), "\(files)")
        var info = stat()
        #expect(lstat(backups + "/" + files[0], &info) == 0 && info.st_mode & 0o777 == 0o600, "\(String(info.st_mode & 0o777, radix: 8))")
        #expect(try Shell.run("/usr/bin/pg_restore", ["-l", backups + "/" + files[0]]).status == 0)

        // verify-full is real: a CA that did not sign the server's certificate gets no dump.
        let other = try Shell.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                                       "-keyout", dir + "/other.key", "-out", conf + "/db-ca.pem", "-days", "1",
                                                       "-subj", "/CN=another CA"])
        #expect(other.status == 0, "\(other.stderr)")
        try FileManager.default.removeItem(atPath: backups + "/" + files[0])
        let refused = try bash(line)
        #expect(refused.status != 0 && refused.stderr.contains("certificate verify failed"), "\(refused.stderr)")
    }
}
