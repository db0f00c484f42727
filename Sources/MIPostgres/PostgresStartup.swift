import CPostgres
import CPostgresLazy
import Foundation

/// Opens one libpq connection step by step (`PQconnectStartParams`, `PQconnectPoll`) so that
/// the console reads every authentication request the server sends before libpq answers it.
///
/// libpq 15 answers whatever the server asks: a cleartext or MD5 password request gets the
/// password (libpq 16's `require_auth` is not there, and `channel_binding=require` would shut
/// out PgBouncer, which offers no channel binding). So while libpq waits for the server's
/// start-up answer, each TLS record is peeked (OpenSSL's `SSL_peek`, which leaves it for libpq)
/// and its messages are read with ``AuthenticationRequests``: only SCRAM (SASL) and "OK" pass;
/// anything else ends the connection before libpq has seen it.
///
/// Why that is exact: libpq reads at most one record per poll (one `SSL_read` into at least
/// 8 KiB of free buffer), and only at the top of `PQconnectPoll`; a record of more than 8 KiB
/// during authentication is refused. Without TLS (`store.allowCleartext`) the socket is peeked
/// the same way, but bytes that arrive between the peek and libpq's read are not seen.
enum PostgresStartup {
    /// Why a connection was not opened: libpq's message, or the console's own refusal.
    struct Failure: Error {
        let message: String
        /// Set when the console refused the server (not libpq).
        let refused: Bool
        /// Set when the host took the login and then ended the session before answering.
        var endedAfterLogin = false
    }

    /// Connects with `pairs` (one host), waiting no later than `deadline` for the whole start-up.
    static func connect(_ pairs: [(String, String)], deadline: Date) -> Result<OpaquePointer, Failure> {
        let allowGSSAPI = AuthenticationRequests.urlAsksForGSSAPI(pairs)
        let started: OpaquePointer? = withCStringArrays(pairs) { keywords, values in
            PQconnectStartParams(keywords, values, 0)
        }
        guard let connection = started else { return .failure(Failure(message: "out of memory", refused: false)) }
        if let failure = drive(connection, allowGSSAPI: allowGSSAPI, deadline: deadline) {
            PQfinish(connection)
            return .failure(failure)
        }
        return .success(connection)
    }

    /// Runs the poll loop until the connection is made or has failed; nil when it is made.
    private static func drive(_ connection: OpaquePointer, allowGSSAPI: Bool, deadline: Date) -> Failure? {
        var requests = AuthenticationRequests(allowGSSAPI: allowGSSAPI)
        var wants = PGRES_POLLING_WRITING
        while true {
            if PQstatus(connection) == CONNECTION_AWAITING_RESPONSE {
                guard wants == PGRES_POLLING_READING else {
                    return Failure(message: "the server stopped reading during authentication", refused: true)
                }
                switch peekRecord(connection, deadline: deadline) {
                case .failure(let failure): return failure
                case .success(let bytes):
                    if let refusal = requests.read(bytes) { return Failure(message: refusal, refused: true) }
                }
            } else {
                requests = AuthenticationRequests(allowGSSAPI: allowGSSAPI)
                if let failure = wait(connection, for: wants, deadline: deadline) { return failure }
            }
            wants = PQconnectPoll(connection)
            switch wants {
            case PGRES_POLLING_OK: return nil
            case PGRES_POLLING_FAILED:
                return Failure(message: String(cString: PQerrorMessage(connection)), refused: false)
            default: continue
            }
        }
    }

    /// The next TLS record's bytes (or, without TLS, what the socket holds), left for libpq; an
    /// empty array when the connection ended (libpq then reports it).
    private static func peekRecord(_ connection: OpaquePointer, deadline: Date) -> Result<[UInt8], Failure> {
        let limit = 8192
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        while true {
            let count = buffer.withUnsafeMutableBytes { Int(miadmin_postgres_peek(connection, $0.baseAddress, Int32($0.count))) }
            if count < 0 { return .success([]) }
            if count > limit {
                return .failure(Failure(message: "the server sent more than \(limit) bytes at once during authentication",
                                        refused: true))
            }
            if count > 0 { return .success(Array(buffer[0..<count])) }
            // Nothing whole yet (OpenSSL keeps a partial record): wait for more input.
            if let failure = wait(connection, for: PGRES_POLLING_READING, deadline: deadline) { return .failure(failure) }
        }
    }

    /// Waits until the socket is ready for what libpq asked for, or the deadline passes.
    static func wait(_ connection: OpaquePointer, for wants: PostgresPollingStatusType, deadline: Date) -> Failure? {
        let socket = PQsocket(connection)
        guard socket >= 0 else { return nil }  // libpq moves on (or fails) by itself
        var entry = pollfd(fd: socket, events: Int16(wants == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return Failure(message: "timeout expired", refused: false) }
            let ready = poll(&entry, 1, Int32(min(left, 3600) * 1000) + 1)
            if ready > 0 { return nil }
            if ready < 0 && errno != EINTR { return Failure(message: String(cString: strerror(errno)), refused: false) }
        }
    }

    /// Calls `body` with NUL-terminated C arrays of keywords and values (libpq's
    /// `PQconnectdbParams` shape); the strings live only for the call, and are zeroed before
    /// they are freed (one of them is the password).
    static func withCStringArrays<R>(_ pairs: [(String, String)],
                                     _ body: (UnsafePointer<UnsafePointer<CChar>?>,
                                              UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let keys = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            for value in values { if let value { memset(value, 0, strlen(value)); free(value) } }
        }
        let keyPointers = keys.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        return keyPointers.withUnsafeBufferPointer { k in
            valuePointers.withUnsafeBufferPointer { v in body(k.baseAddress!, v.baseAddress!) }
        }
    }
}

/// The server's messages during start-up, read as they come, checking each authentication
/// request (`R` message, protocol 3) before libpq sees it: only SCRAM-SHA-256 through SASL
/// (requests 10, 11, 12) and "authenticated" (0) pass. A cleartext (3) or MD5 (5) password
/// request, GSSAPI or SSPI (7, 8, 9, which would make libpq read Kerberos files), or anything
/// unknown is refused; GSSAPI (7, 8) passes only where the store URL asks for it (`krbsrvname`,
/// or a `gssencmode` other than `disable`): a site whose store takes the user's Kerberos ticket.
/// No password goes out that way.
struct AuthenticationRequests {
    private var pending: [UInt8] = []
    private(set) var authenticated = false
    private let allowed: Set<UInt32>

    init(allowGSSAPI: Bool = false) {
        allowed = allowGSSAPI ? [0, 7, 8, 10, 11, 12] : [0, 10, 11, 12]
    }

    /// Whether the connection options ask for GSSAPI: a Kerberos service name, or GSSAPI
    /// encryption other than `disable`.
    static func urlAsksForGSSAPI(_ pairs: [(String, String)]) -> Bool {
        pairs.contains { key, value in key == "krbsrvname" || (key == "gssencmode" && value != "disable") }
    }

    /// Reads `bytes` (what follows what was read before); returns why the connection must end,
    /// or nil.
    mutating func read(_ bytes: [UInt8]) -> String? {
        guard !authenticated else { return nil }
        pending += bytes
        while pending.count >= 5 {
            let type = pending[0]
            let length = Int(pending[1]) << 24 | Int(pending[2]) << 16 | Int(pending[3]) << 8 | Int(pending[4])
            guard length >= 4 else { return "the server sent a malformed message during authentication" }
            if type == UInt8(ascii: "R") {
                guard length >= 8 else { return "the server sent a malformed authentication request" }
                guard pending.count >= 9 else { return nil }
                let request = UInt32(pending[5]) << 24 | UInt32(pending[6]) << 16 | UInt32(pending[7]) << 8 | UInt32(pending[8])
                guard allowed.contains(request) else { return Self.refusal(request) }
                if request == 0 { authenticated = true; return nil }
            }
            guard pending.count >= 1 + length else { return nil }
            pending.removeFirst(1 + length)
        }
        return nil
    }

    private static func refusal(_ request: UInt32) -> String {
        let what = switch request {
        case 3: "the password in cleartext"
        case 5: "an MD5 password hash"
        case 7, 8, 9: "GSSAPI or SSPI authentication"
        default: "authentication method \(request)"
        }
        return "the server asked for \(what); miadmin sends the store password only by SCRAM-SHA-256 "
            + "(password_encryption = scram-sha-256 and scram-sha-256 in pg_hba.conf)"
    }
}
