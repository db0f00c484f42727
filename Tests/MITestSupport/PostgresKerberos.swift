import Foundation

/// A database of the test server that takes Kerberos tickets only, for one principal.
public struct PostgresKerberosDatabase {
    /// The role and the database (one name), owned by that role.
    public let name: String
    private let removals: [() throws -> Void]

    /// The server gets a copy of `keytab` (the server account's, 0600) as `krb_server_keyfile`,
    /// a new role and a database it owns, a `hostssl … gss` line for them first in pg_hba.conf
    /// and a pg_ident line mapping `principal` to the role. ``remove()`` takes the lines out.
    public init(_ pg: PostgresFixture, keytab: String, principal: String) throws {
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(10)
        name = "mikrb_\(id)"
        let copy = pg.directory + "/\(name).keytab"
        try FileManager.default.copyItem(atPath: keytab, toPath: copy)
        if getuid() == 0, let postgres = getpwnam("postgres") { chown(copy, postgres.pointee.pw_uid, postgres.pointee.pw_gid) }
        chmod(copy, 0o600)
        _ = try pg.query("ALTER SYSTEM SET krb_server_keyfile = '\(copy)'", database: "postgres")
        _ = try pg.query("CREATE ROLE \(name) LOGIN", database: "postgres")
        _ = try pg.query("CREATE DATABASE \(name) OWNER \(name)", database: "postgres")
        var removals: [() throws -> Void] = []
        removals.append(try Self.addLine(pg, "hba_file", "hostssl \(name) \(name) 127.0.0.1/32 gss include_realm=1 map=\(name)", first: true))
        removals.append(try Self.addLine(pg, "ident_file", "\(name) \(principal) \(name)", first: false))
        self.removals = removals
    }

    /// The store URL of this database at `localhost` (the server principal's host), TLS verified
    /// against `ca`, logging in with the user's ticket and no GSSAPI encryption.
    public func url(_ pg: PostgresFixture, ca: String) -> String {
        "postgresql://\(name)@localhost:\(pg["PG_PORT"])/\(name)?sslmode=verify-full"
            + "&sslrootcert=\(ca)&gssencmode=disable&krbsrvname=postgres"
    }

    /// Takes this database's lines out of pg_hba.conf and pg_ident.conf again.
    public func remove() {
        for removal in removals { try? removal() }
    }

    /// Appends `line` to the server file `setting` names (hba_file, ident_file), or puts it first;
    /// returns a closure that takes it out again. Both reload the server's configuration.
    private static func addLine(_ pg: PostgresFixture, _ setting: String, _ line: String, first: Bool) throws -> () throws -> Void {
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
}
