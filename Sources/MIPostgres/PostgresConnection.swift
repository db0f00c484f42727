import CPostgres
import Foundation

/// One connection to a PostgreSQL server through libpq. It owns its `PGconn` (closed in `deinit`,
/// also when the connection failed half-way) and every ``PostgresResult`` owns its `PGresult`.
///
/// Synchronous, like the console: one statement at a time, parameters always bound
/// (`$1`, `$2`, ... through `PQexecParams`), never spliced into SQL text.
///
/// Not `Sendable`: a connection has one owner at a time (libpq's rule for a `PGconn`).
public final class PostgresConnection {
    /// libpq's connection (internal: ``pipeline(_:)`` in its own file uses it too); replaced by
    /// ``reset()``.
    private(set) var handle: OpaquePointer
    /// Where it is connected, for messages (never a password).
    public let target: PostgresTarget
    /// The keyword/value pairs each of the target's hosts is connected with (the password among
    /// them), kept for ``reset()`` as libpq keeps them for its own `PQreset`.
    private let hostPairs: [(name: String, pairs: [(String, String)])]
    private let timeoutSeconds: Int

    /// Whether libpq may use the conventions a user controls: `PG*` environment variables,
    /// `~/.pgpass`, `~/.postgresql/` certificates and service files. An installed, privileged
    /// console must not let its user steer the store's connection, so it passes `.ignored`.
    public enum UserConventions: Sendable { case honoured, ignored }

    /// Connects and checks that the connection really is usable. The URL's hosts are tried one
    /// by one, in order, whatever made one fail (``PostgresTarget/hosts``); only a server that
    /// asks for the password by SCRAM gets it (``PostgresStartup``).
    ///
    /// - Parameters:
    ///   - password: the store password (first line of `store.passwordFile`), or nil to let libpq
    ///     find one by its own conventions. Passed as a keyword, never inside a URI string.
    ///   - conventions: `.ignored` pins every file libpq would look for in the user's home
    ///     (`passfile`, `sslcert`, `sslkey`, `sslcrl`, `sslcrldir`) to the values the URI names
    ///     or to no file at all, requires `sslrootcert` in the URI when the certificate is
    ///     verified, and turns GSSAPI encryption off unless the URI asks for it (libpq's probe
    ///     for it reads the user's Kerberos credential cache).
    /// - Throws: ``PostgresError`` of kind `.unreachable`, `.authentication`, `.tls`,
    ///   `.databaseMissing`, `.permissionDenied` or `.configuration`; the message names the host,
    ///   or each host and why it failed.
    ///   - deadline: when connecting must be over, whatever the hosts do (the engine's
    ///     `store.reconnectSeconds`); nil: only `connect_timeout` per host.
    public init(target: PostgresTarget, password: String? = nil, conventions: UserConventions = .honoured,
                connectTimeoutSeconds: Int = 10, deadline: Date? = nil) throws {
        self.target = target  // a PostgresTarget exists only once libpq is open (PostgresLibrary)
        var extra: [String: String] = [:]
        if let password { extra["password"] = password }
        let timeout = target.options["connect_timeout"].flatMap { Int($0) }.map { $0 > 0 ? $0 : 3600 } ?? connectTimeoutSeconds
        if target.options["connect_timeout"] == nil { extra["connect_timeout"] = String(connectTimeoutSeconds) }
        extra["application_name"] = "miadmin"
        if conventions == .ignored {
            if PostgresTarget.verifyingModes.contains(target.options["sslmode"] ?? ""),
               target.options["sslrootcert"] == nil {
                throw PostgresError(.configuration,
                                    "store.url must name sslrootcert (the CA file) for an installed console.")
            }
            extra.merge(Self.pinnedFiles(target.options)) { _, pinned in pinned }
        }
        hostPairs = target.hosts.map { host in
            (host.name, host.options.merging(extra) { _, new in new }.sorted { $0.key < $1.key })
        }
        timeoutSeconds = timeout
        handle = try Self.connect(hostPairs, target: target, timeoutSeconds: timeout, deadline: deadline)
        // libpq prints the server's notices (e.g. "relation ... already exists, skipping") on
        // stderr by default; the store is quiet like the rest of the core.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    /// What an installed console sets so that libpq opens no file the invoking user chose: each
    /// file-valued option the URI leaves out points at a path that cannot exist (libpq would
    /// otherwise look in `$HOME/.postgresql/`, and OpenSSL loads certificates from a CRL file
    /// too), no service file, and no GSSAPI unless the URI asks for it.
    static func pinnedFiles(_ options: [String: String]) -> [String: String] {
        let none = "/nonexistent/miadmin-no-file"
        var pinned: [String: String] = [:]
        for key in ["passfile", "sslcert", "sslkey"] where options[key] == nil { pinned[key] = none }
        // Either CRL option named in the URI turns libpq's default file off by itself.
        if options["sslcrl"] == nil && options["sslcrldir"] == nil {
            pinned["sslcrl"] = none
            pinned["sslcrldir"] = none
        }
        if options["gssencmode"] == nil { pinned["gssencmode"] = "disable" }
        return pinned
    }

    /// Connects to the first host that completes the start-up and, when the URL wants a primary,
    /// answers that it is one (``PostgresPrimaryCheck``); throws naming each host's failure.
    /// Each host gets `timeoutSeconds`, and no more than an equal share of the time left before
    /// `deadline` among the hosts still to try: a host that hangs (a pooler whose server is down)
    /// leaves time for the next one.
    private static func connect(_ hosts: [(name: String, pairs: [(String, String)])], target: PostgresTarget,
                                timeoutSeconds: Int, deadline: Date?) throws -> OpaquePointer {
        var failures: [(host: String, message: String, kind: PostgresError.Kind)] = []
        for (index, host) in hosts.enumerated() {
            var hostDeadline = Date().addingTimeInterval(Double(max(timeoutSeconds, 1)))
            if let deadline {
                hostDeadline = min(hostDeadline, Date().addingTimeInterval(
                    max(deadline.timeIntervalSinceNow, 0.05) / Double(hosts.count - index)))
            }
            var outcome = PostgresStartup.connect(host.pairs, deadline: hostDeadline)
            if case .success(let connection) = outcome, PostgresPrimaryCheck.wanted(target.options) {
                switch PostgresPrimaryCheck.ask(connection, deadline: hostDeadline) {
                case .primary: break
                case .standby:
                    PQfinish(connection)
                    outcome = .failure(.init(message: "server is in hot standby mode", refused: false))
                case .failed(let message):
                    let ended = PQstatus(connection) == CONNECTION_BAD
                    PQfinish(connection)
                    outcome = .failure(.init(message: message, refused: false, endedAfterLogin: ended))
                }
            }
            switch outcome {
            case .success(let connection): return connection
            case .failure(let failure):
                let whole = failure.message
                let text = firstLine(whole)
                let kind: PostgresError.Kind = failure.refused ? .tls
                    : failure.endedAfterLogin ? .endedAfterLogin
                    : whole.contains("session is read-only") || whole.contains("server is in hot standby mode") ? .noPrimary
                    : classify(connectionMessage: text)
                failures.append((host.name, text, kind))
            }
        }
        let kinds = Set(failures.map(\.kind))
        let kind: PostgresError.Kind = kinds.count == 1 ? kinds.first!
            : [.authentication, .databaseMissing, .permissionDenied, .noPrimary].first { kinds.contains($0) } ?? .unreachable
        if failures.count == 1, let only = failures.first {
            if only.kind == .noPrimary {
                throw PostgresError(.noPrimary, "Cannot connect to the PostgreSQL store at \(target): "
                                    + "no server accepts writes (a standby, not yet promoted?): \(only.message)")
            }
            throw PostgresError(only.kind, "Cannot connect to the PostgreSQL store at \(target): \(only.message)")
        }
        let each = failures.map { "\($0.host): \($0.kind == .noPrimary ? "a standby (does not accept writes)" : $0.message)" }
        throw PostgresError(kind, "Cannot connect to the PostgreSQL store at \(target): "
                            + (kind == .noPrimary ? "no server accepts writes (a standby, not yet promoted?): " : "")
                            + "every host failed: " + each.joined(separator: "; "))
    }

    deinit { PQfinish(handle) }

    /// Whether the connection to the server is up (libpq's `PQstatus`).
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a statement found the connection lost (closed by the server, a failover, a pooler
    /// that lost its server) since it was opened or last ``reset()``: the caller must connect
    /// again before anything else, even when libpq's status still says "OK" (a server that sent
    /// "terminating connection" before closing).
    public private(set) var lost = false

    /// For a failure found outside ``check(_:)`` (a pipeline that cannot be finished).
    func markLost() { lost = true }

    /// Whether statements are prepared by name once per connection (``executePrepared(_:_:)``).
    /// Off behind a pooler in transaction mode (PgBouncer's `pool_mode = transaction`), where
    /// the next transaction may run on another server connection that does not have (or
    /// already has) the statement: every statement is then sent unnamed, parsed each time.
    public var namedStatements = true

    /// The host and port the connection is open to (one of ``target``'s hosts).
    public var connectedHost: String {
        let host = PQhost(handle).map { String(cString: $0) } ?? "?"
        let port = PQport(handle).map { String(cString: $0) } ?? "?"
        return "\(host):\(port)"
    }

    /// The server process id the connection's start-up message reported. A pooler such as
    /// PgBouncer reports one of its own, unlike any server's `pg_backend_pid()`.
    public var reportedBackendPID: Int { Int(PQbackendPID(handle)) }

    /// Connects again with the same parameters (the password too), after the server closed the
    /// connection or failed over: the hosts are tried in order as at first, and with
    /// `target_session_attrs=read-write` the one that is now the primary is kept.
    /// Session state is gone afterwards: statements are prepared again on first use, and the
    /// caller sets again what it had set. Returns whether the connection is up.
    /// `deadline` bounds the whole of it as in ``init(target:password:conventions:connectTimeoutSeconds:deadline:)``.
    @discardableResult
    public func reset(deadline: Date? = nil) -> Bool {
        prepared = [:]
        waiting = []
        abandonInFlight()
        guard let fresh = try? Self.connect(hostPairs, target: target, timeoutSeconds: timeoutSeconds,
                                            deadline: deadline) else {
            lost = true
            return false
        }
        PQfinish(handle)
        handle = fresh
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        lost = false
        return true
    }

    /// Runs one statement with bound parameters and returns its rows (empty for commands).
    ///
    /// - Throws: ``PostgresError`` with the server's SQLSTATE; `.permissionDenied` for 42501,
    ///   `.statement` for the rest (unique violations, serialization failures, ...).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue?] = []) throws -> PostgresResult {
        settleInFlight()
        if !waiting.isEmpty { return try pipeline([PipelinedStatement(sql, parameters, named: false)])[0] }
        roundTrips += 1
        let result = try PostgresValue.withBound(parameters) { count, types, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        return try check(result)
    }

    /// How many times this connection sent statements and waited for the server's answer: the
    /// measure of what ``sendWithNext(_:)`` and ``pipeline(_:)`` save (tests count a move's).
    public internal(set) var roundTrips = 0

    /// Statements queued to go with the next one sent, each with where its answer goes
    /// (``sendWithNext(_:)``, in PostgresPipeline.swift).
    var waiting: [(statement: PipelinedStatement, ahead: Ahead)] = []

    /// A statement ``sendNow(_:)`` sent whose answer has not been read yet: read before anything
    /// else is sent (in PostgresPipeline.swift).
    var inFlight: Ahead?

    /// Statement names of the statements prepared on this connection, by SQL text.
    var prepared: [String: String] = [:]
    /// How many statement names this connection has handed out (names stay unique on it).
    private var statementNames = 0

    /// A new statement name for `PQprepare` / `PQsendPrepare`.
    func nextStatementName() -> String {
        statementNames += 1
        return "miadmin_\(statementNames)"
    }

    /// Like ``execute(_:_:)``, through a prepared statement: the first run of a SQL text
    /// prepares it (`PQprepare`, parameter types from this first run's values, NULLs left for
    /// the server to infer), every later run only binds and executes (`PQexecPrepared`), so the
    /// server parses and analyses each of the store's statements once per connection. The
    /// store's SQL texts are a fixed, small set (a few hundred at most).
    @discardableResult
    public func executePrepared(_ sql: String, _ parameters: [PostgresValue?] = []) throws -> PostgresResult {
        guard namedStatements else { return try execute(sql, parameters) }
        settleInFlight()
        if !waiting.isEmpty { return try pipeline([PipelinedStatement(sql, parameters)])[0] }
        let name: String
        if let known = prepared[sql] {
            name = known
        } else {
            name = nextStatementName()
            var types = parameters.map { $0?.typeOid ?? 0 }
            roundTrips += 1
            let result = PQprepare(handle, name, sql, Int32(types.count), &types)
            try check(result)
            prepared[sql] = name
        }
        roundTrips += 1
        let result = try PostgresValue.withBound(parameters) { count, _, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 0)
        }
        return try check(result)
    }

    /// Wraps a result, or throws the error it (or a lost connection) reports: the one place every
    /// way of running a statement turns libpq's answer into a result or a ``PostgresError``.
    @discardableResult
    func check(_ result: OpaquePointer?) throws -> PostgresResult {
        guard let result else {
            lost = true
            throw Self.loss(at: target, reason: Self.endingReason(handle))
        }
        let wrapped = PostgresResult(result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return wrapped
        default:
            let error = wrapped.error(at: target, connectionOK: isConnected)
            if error.kind == .unreachable { lost = true }
            // libpq's own result says only that the connection closed: say why the server did.
            if !isConnected, PQresultErrorField(result, Int32(UInt8(ascii: "M"))) == nil {
                throw Self.loss(at: target, reason: Self.endingReason(handle), sqlState: error.sqlState)
            }
            throw error
        }
    }

    /// Runs several statements with no parameters (migrations) through libpq's simple query
    /// protocol, in one round trip; the server stops at the first failing statement. Also the
    /// engine's way to settle a COMMIT in doubt in one message. Statements queued by
    /// ``sendWithNext(_:)`` are sent first, in a round trip of their own.
    @discardableResult
    public func executeScript(_ sql: String) throws -> PostgresResult {
        _ = try pipeline([])
        roundTrips += 1
        return try check(PQexec(handle, sql))
    }

    public enum Isolation: String, Sendable {
        case readCommitted = "READ COMMITTED", repeatableRead = "REPEATABLE READ", serializable = "SERIALIZABLE"
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws
    /// (the error is rethrown unchanged).
    public func transaction<T>(_ isolation: Isolation = .readCommitted, _ body: () throws -> T) throws -> T {
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return result
    }

    // MARK: - Helpers

    /// Sorts a libpq connection failure into the kinds callers map to exit codes. libpq reports
    /// no SQLSTATE for a failed connection, so its (C-locale) message text is all there is.
    static func classify(connectionMessage text: String) -> PostgresError.Kind {
        let lower = text.lowercased()
        if lower.contains("password authentication failed") || lower.contains("no password supplied")
            || lower.contains("authentication failed") || lower.contains("password is required") {
            return .authentication
        }
        // The server refused the client's certificate (missing, from a CA it does not trust,
        // expired, revoked): the login's fault, not the channel's, as psql's own exit says.
        // During the handshake the server says so with a TLS alert it sends the client.
        if lower.contains("client certificate") || lower.contains("alert certificate required")
            || lower.contains("alert unknown ca") || lower.contains("alert bad certificate")
            || lower.contains("alert certificate expired") || lower.contains("alert certificate revoked") {
            return .authentication
        }
        if lower.contains("database") && lower.contains("does not exist") { return .databaseMissing }
        if lower.contains("permission denied") { return .permissionDenied }
        // A server that went away during the TLS handshake (a crash, a failover) is not a TLS fault.
        if lower.contains("ssl syscall error") || lower.contains("eof detected")
            || lower.contains("server closed the connection unexpectedly") {
            return .unreachable
        }
        if lower.contains("ssl") || lower.contains("certificate") || lower.contains("tls") { return .tls }
        return .unreachable
    }

    /// The error for a connection lost while in use, and why.
    static func loss(at target: PostgresTarget, reason: String, sqlState: SQLState? = nil) -> PostgresError {
        PostgresError(.unreachable, "Lost the PostgreSQL store at \(target): \(reason)", sqlState: sqlState, lossReason: reason)
    }

    /// Why the server, or a pooler in front of it, ended the session on `connection`: the line it
    /// sent before closing (PgBouncer: `FATAL:  server login has been failing, try again later
    /// (server_login_retry)`), above libpq's own (`SSL connection has been closed unexpectedly`).
    static func endingReason(_ connection: OpaquePointer) -> String {
        let message = String(cString: PQerrorMessage(connection))
        for line in message.split(separator: "\n") {
            for severity in ["FATAL:", "PANIC:", "ERROR:"] where line.hasPrefix(severity) {
                return firstLine(String(line.dropFirst(severity.count)))
            }
        }
        return firstLine(message)
    }

    /// The first line of a libpq or server message, made safe to print: libpq's messages carry
    /// bytes from elsewhere (OpenSSL's reasons, file names, a server's text, in whatever
    /// encoding), so every control or format character, and every byte that was not UTF-8, is
    /// shown as `?`.
    static func firstLine(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let line = trimmed.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? trimmed
        return String(String.UnicodeScalarView(line.unicodeScalars.map { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: "?"
            default: scalar == "\u{FFFD}" ? "?" : scalar
            }
        }))
    }
}

/// The rows of one statement. Owns its `PGresult` (cleared in `deinit`). Values come in libpq's
/// text format; ``bytes(_:_:)`` decodes `bytea`.
public final class PostgresResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }
    deinit { PQclear(handle) }

    public var rowCount: Int { Int(PQntuples(handle)) }
    /// The bytes libpq holds for this result (`PQresultMemorySize`).
    public var memorySize: Int { Int(PQresultMemorySize(handle)) }
    public var columnCount: Int { Int(PQnfields(handle)) }
    /// Rows a command changed (`UPDATE`, `DELETE`, `INSERT`), 0 when it says none.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The column's name as the statement gave it.
    public func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    /// The column's type OID (20 int8, 701 float8, 17 bytea, ...).
    public func columnType(_ column: Int) -> Oid { PQftype(handle, Int32(column)) }

    public func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    public func string(_ row: Int, _ column: Int) -> String? {
        withText(row, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// The value's bytes in libpq's text format (its length from libpq, no terminating NUL),
    /// for `body` to read while the result lives; nil for NULL.
    public func withText<R>(_ row: Int, _ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return try value.withMemoryRebound(to: UInt8.self, capacity: length) {
            try body(UnsafeBufferPointer(start: $0, count: length))
        }
    }


    public func double(_ row: Int, _ column: Int) -> Double? { string(row, column).flatMap { Double($0) } }

    /// A `bytea` value, unescaped from libpq's text format.
    public func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard !isNull(row, column), let text = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        var length = 0
        guard let raw = text.withMemoryRebound(to: UInt8.self, capacity: 1, { PQunescapeBytea($0, &length) }) else {
            return nil
        }
        defer { PQfreemem(raw) }
        return Array(UnsafeBufferPointer(start: raw, count: length))
    }

    /// The failure this result reports, as a typed error.
    func error(at target: PostgresTarget, connectionOK: Bool) -> PostgresError {
        let state = PQresultErrorField(handle, Int32(UInt8(ascii: "C"))).map { SQLState(rawValue: String(cString: $0)) }
        let primary = PQresultErrorField(handle, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            ?? PostgresConnection.firstLine(String(cString: PQresultErrorMessage(handle)))
        if !connectionOK || state?.isConnectionLoss == true {
            return PostgresConnection.loss(at: target, reason: primary, sqlState: state)
        }
        let kind: PostgresError.Kind = state == .insufficientPrivilege ? .permissionDenied : .statement
        return PostgresError(kind, "PostgreSQL error \(state?.rawValue ?? "?") at \(target): \(primary)", sqlState: state)
    }
}
