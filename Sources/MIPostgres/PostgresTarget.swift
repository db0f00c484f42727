import CPostgres
import Foundation

/// Where a PostgreSQL store is and how to reach it safely: the `store.url` of the config (a libpq
/// connection URI), parsed by libpq itself and checked against the console's transport rules.
///
/// - TLS is verified by default: a URI that names no `sslmode` gets `verify-full`.
/// - `sslmode=disable`, `allow` or `prefer` (which fall back to, or start with, cleartext) and
///   `require` (TLS without checking who answers) are refused unless the config sets
///   `store.allowCleartext: true`.
/// - A password inside the URI is refused: passwords come from `store.passwordFile` or libpq's
///   own conventions (`.pgpass`, service files), never from a string that lands in argv, logs or
///   shell history.
///
/// ``description`` names the hosts, port and database for messages; it never holds a password.
public struct PostgresTarget: Sendable, Equatable, CustomStringConvertible {
    /// The connection options libpq parsed from the URI (keyword → value), `sslmode` filled in.
    public let options: [String: String]

    /// The sslmodes that verify the server's certificate chain and name (or at least the chain).
    static let verifyingModes: Set<String> = ["verify-full", "verify-ca"]

    /// Parses `uri` with libpq's `PQconninfoParse` and applies the transport rules above.
    ///
    /// - Throws: ``PostgresError`` of kind `.configuration` with a message that quotes no password.
    public init(uri: String, allowCleartext: Bool = false) throws {
        guard uri.hasPrefix("postgresql://") || uri.hasPrefix("postgres://") else {
            throw PostgresError(.configuration, "store.url must be a postgresql:// URI.")
        }
        try PostgresLibrary.open()
        var parsed = try Self.parse(uri)
        if parsed["password"] != nil {
            throw PostgresError(.configuration,
                                "store.url must not contain a password; put it in store.passwordFile or ~/.pgpass.")
        }
        let mode = parsed["sslmode"] ?? "verify-full"
        parsed["sslmode"] = mode
        if !Self.verifyingModes.contains(mode) && !allowCleartext {
            throw PostgresError(.configuration,
                                "store.url has sslmode=\(mode), which does not verify the server (or allows cleartext); "
                                + "use verify-full, or set store.allowCleartext: true to accept it.")
        }
        options = parsed
    }

    /// Hosts, port and database, e.g. `127.0.0.1:5432/mi` or `db1:5432,db2:5432/mi`.
    public var description: String {
        let hosts = (options["host"] ?? options["hostaddr"] ?? "localhost").split(separator: ",").map(String.init)
        let ports = (options["port"] ?? "5432").split(separator: ",").map(String.init)
        let pairs = hosts.enumerated().map { index, host in
            "\(host):\(ports.count == hosts.count ? ports[index] : ports.first ?? "5432")"
        }
        return pairs.joined(separator: ",") + "/" + (options["dbname"] ?? options["user"] ?? "")
    }

    /// Whether the URL logs in with the user's Kerberos ticket (libpq's GSSAPI: `krbsrvname`,
    /// or a `gssencmode` other than `disable`) instead of a password.
    public var asksForGSSAPI: Bool {
        AuthenticationRequests.urlAsksForGSSAPI(options.map { ($0.key, $0.value) })
    }

    /// How many hosts the URL names (a primary and its standbys: more than one).
    public var hostCount: Int { (options["host"] ?? options["hostaddr"] ?? "").split(separator: ",").count }

    /// One host of the URL: its options with `host`, `hostaddr` and `port` narrowed to it, and
    /// its name for messages (`db1:5432`).
    struct Host {
        let options: [String: String]
        let name: String
    }

    /// The URL's hosts in order, each to be connected to on its own: libpq 15 moves to the next
    /// host only when a TCP connection fails, not when a host answers with a certificate it
    /// refuses, closes the connection, or speaks no PostgreSQL.
    var hosts: [Host] {
        func list(_ key: String) -> [String] {
            options[key].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        }
        let names = list("host"), addresses = list("hostaddr"), ports = list("port")
        let count = max(names.count, addresses.count, 1)
        guard count > 1 else { return [Host(options: options, name: description.components(separatedBy: "/")[0])] }
        return (0..<count).map { index in
            var narrowed = options
            func pick(_ values: [String]) -> String? { values.count == count ? values[index] : values.first }
            narrowed["host"] = pick(names)
            narrowed["hostaddr"] = pick(addresses)
            narrowed["port"] = pick(ports)
            let shown = [narrowed["host"], narrowed["hostaddr"]].compactMap { $0 }.first { !$0.isEmpty } ?? "localhost"
            return Host(options: narrowed, name: "\(shown):\(narrowed["port"].flatMap { $0.isEmpty ? nil : $0 } ?? "5432")")
        }
    }

    /// libpq's own parse of a URI or `key=value` string into its set options.
    private static func parse(_ conninfo: String) throws -> [String: String] {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let first = PQconninfoParse(conninfo, &errorMessage) else {
            let text = errorMessage.map { String(cString: $0) } ?? "out of memory"
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(.configuration,
                                "store.url is not a valid connection URI: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        defer { PQconninfoFree(first) }
        var result: [String: String] = [:]
        var option = first
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                result[String(cString: keyword)] = String(cString: value)
            }
            option += 1
        }
        return result
    }
}
