import Foundation
import MITestSupport
import Testing

/// docs/install.md's client-certificate recipe on a PostgreSQL server of the test's own (its
/// pg_hba and client CA are changed, so not the shared one): `hostssl … cert`, a certificate whose
/// common name is the role, the key 0640 root:GROUP, the URL naming both and no password file.
/// The installed console logs in with it, run by a real account.
@Suite(.serialized, .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"))
struct PostgresClientCertificateTests {
    @Test func theInstalledConsoleLogsInWithAGroupOnlyClientKey() throws {
        let parent = try TempDir.make()
        chmod(parent, 0o711)
        let dir = parent + "/pg"
        let fixture = Paths.repoRoot + "/Scripts/pg-fixture"
        let started = try Shell.run(fixture, ["start", dir], deadline: 120)
        try #require(started.status == 0, "\(started.stderr)")
        defer { _ = try? Shell.run(fixture, ["stop", dir]) }
        let env = try EnvFile.read(dir + "/fixture.env")
        let adminPassword = try String(contentsOfFile: env["PG_ADMIN_PASSWORD_FILE"]!, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        func admin(_ sql: String) throws -> ProcessResult {
            try Shell.run("/usr/bin/psql", [env["PG_ADMIN_URL"]!, "-v", "ON_ERROR_STOP=1", "-XAtqc", sql],
                          environment: ["PGPASSWORD": adminPassword])
        }

        // A CA for client certificates, and the store role's certificate (CN = the role).
        let certs = parent + "/certs"
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: false)
        func openssl(_ arguments: [String]) throws {
            let result = try Shell.run("/usr/bin/openssl", arguments)
            #expect(result.status == 0, "openssl \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                     "-keyout", certs + "/client-ca.key", "-out", certs + "/client-ca.pem", "-subj", "/CN=client CA"])
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-keyout", certs + "/db-client.key", "-out", certs + "/db-client.csr", "-subj", "/CN=miadmin"])
        try openssl(["x509", "-req", "-in", certs + "/db-client.csr", "-CA", certs + "/client-ca.pem", "-CAkey", certs + "/client-ca.key",
                     "-set_serial", "7", "-days", "1", "-out", certs + "/db-client.pem"])

        // The server: the client CA, and a cert line for the store database before the others.
        try FileManager.default.copyItem(atPath: certs + "/client-ca.pem", toPath: dir + "/tls/client-ca.pem")
        let hba = dir + "/data/pg_hba.conf"
        let lines = try String(contentsOfFile: hba, encoding: .utf8)
        try ("hostssl mi miadmin 127.0.0.1/32 cert\n" + lines).write(toFile: hba, atomically: false, encoding: .utf8)
        #expect(try Shell.run("/bin/chown", ["postgres:postgres", dir + "/tls/client-ca.pem", hba]).status == 0)
        #expect(try admin("ALTER SYSTEM SET ssl_ca_file = '\(dir)/tls/client-ca.pem'").status == 0)
        #expect(try admin("SELECT pg_reload_conf()").status == 0)

        // The console host, as the recipe has it.
        let shared = try Installation.shared.get()
        let install = try Installation(tag: "cert", groupOf: shared)
        defer { install.remove() }
        #expect(try install.runInstall([]).status == 0)
        try install.writeConfig()
        let conf = install.configDir
        for (from, to) in [(env["PG_CA"]!, "db-ca.pem"), (certs + "/db-client.pem", "db-client.pem"), (certs + "/db-client.key", "db-client.key")] {
            try FileManager.default.copyItem(atPath: from, toPath: conf + "/" + to)
            chmod(conf + "/" + to, 0o644)
        }
        chown(conf + "/db-client.key", 0, install.gid)
        chmod(conf + "/db-client.key", 0o640)
        var object = try install.configObject()
        setKey(&object, "store.path", nil)
        setKey(&object, "store.url", "postgresql://miadmin@127.0.0.1:\(env["PG_PORT"]!)/mi?sslrootcert=\(conf)/db-ca.pem"
               + "&sslcert=\(conf)/db-client.pem&sslkey=\(conf)/db-client.key")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: install.configPath))
        chown(install.configPath, 0, install.gid)
        chmod(install.configPath, 0o640)

        let created = try Shell.run(install.binary, ["--init-store"])
        #expect(created.status == 0, "\(created.stderr)")
        let info = try install.run(.foreman, ["--format", "csv", "-c", "store info"])
        #expect(info.status == 0 && info.stdout.contains("postgres"), "\(info.stdout) \(info.stderr)")
        // The key is the group's: the account itself cannot read it.
        let cat = try install.runAs(.foreman, ["/bin/cat", conf + "/db-client.key"])
        #expect(cat.status != 0 && cat.stdout.isEmpty)
        // The cert line is what let it in: without the certificate the server refuses the role.
        setKey(&object, "store.url", "postgresql://miadmin@127.0.0.1:\(env["PG_PORT"]!)/mi?sslrootcert=\(conf)/db-ca.pem")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: install.configPath))
        let without = try install.run(.foreman, ["-c", "store info"])
        // Refused for its certificate is refused authentication: exit 4, as a wrong password.
        #expect(without.status == 4 && without.stderr.contains("connection requires a valid client certificate"),
                "\(without.stdout) \(without.stderr)")
    }
}
