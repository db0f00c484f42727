import Foundation

/// An error from the PostgreSQL engine: what kind of failure it was (so callers can map it to the
/// console's exit codes), the SQLSTATE the server sent, and libpq's message.
///
/// Messages name the host and database (``PostgresTarget/description``), never a password.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// store.url or its options are wrong (caught before connecting).
        public static let configuration = Kind(rawValue: "configuration")
        /// The server could not be reached (refused, timed out, unknown host).
        public static let unreachable = Kind(rawValue: "unreachable")
        /// A server answered but none of the URL's hosts accepts writes
        /// (`target_session_attrs=read-write` met only standbys): a failover under way.
        public static let noPrimary = Kind(rawValue: "noPrimary")
        /// The host took the login, then ended the session before the store could use it, saying
        /// why: a pooler whose own logins to its server fail (PgBouncer for `server_login_retry`
        /// after a failed one), a server shutting down. It may take the next login in a moment.
        public static let endedAfterLogin = Kind(rawValue: "endedAfterLogin")
        /// The server refused the credentials (SQLSTATE 28P01 / 28000).
        public static let authentication = Kind(rawValue: "authentication")
        /// The TLS handshake or the certificate check failed.
        public static let tls = Kind(rawValue: "tls")
        /// The database does not exist (3D000).
        public static let databaseMissing = Kind(rawValue: "databaseMissing")
        /// The role may not do this (42501).
        public static let permissionDenied = Kind(rawValue: "permissionDenied")
        /// A statement failed; ``PostgresError/sqlState`` says why.
        public static let statement = Kind(rawValue: "statement")
    }

    public let kind: Kind
    public let message: String
    /// The five-character SQLSTATE the server reported, when it sent one.
    public let sqlState: SQLState?
    /// For a connection lost while in use: why, in the words of the server, a pooler in front of
    /// it, or libpq, without the store's name that ``message`` carries around it.
    public let lossReason: String?

    public init(_ kind: Kind, _ message: String, sqlState: SQLState? = nil, lossReason: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.lossReason = lossReason
    }

    public var description: String { message }
}

/// A PostgreSQL SQLSTATE code (Appendix A of the PostgreSQL manual), typed so that callers compare
/// codes, not message text.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let uniqueViolation = SQLState(rawValue: "23505")
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    public static let serializationFailure = SQLState(rawValue: "40001")
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    public static let invalidPassword = SQLState(rawValue: "28P01")
    public static let invalidAuthorization = SQLState(rawValue: "28000")
    public static let invalidCatalogName = SQLState(rawValue: "3D000")
    public static let insufficientPrivilege = SQLState(rawValue: "42501")
    public static let lockNotAvailable = SQLState(rawValue: "55P03")
    public static let queryCanceled = SQLState(rawValue: "57014")

    public static let adminShutdown = SQLState(rawValue: "57P01")
    public static let crashShutdown = SQLState(rawValue: "57P02")
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    public static let readOnlySQLTransaction = SQLState(rawValue: "25006")

    /// The server (or a pooler in front of it) ended the session: class 08 (connection
    /// exception), a shutdown or crash of the server (57P01, 57P02), a server still starting or
    /// in recovery (57P03), or a write sent to a server that became a read-only standby (25006).
    /// The connection must be opened again; a failover's new primary may be another host.
    public var isConnectionLoss: Bool {
        errorClass == "08" || [.adminShutdown, .crashShutdown, .cannotConnectNow, .readOnlySQLTransaction].contains(self)
    }

    /// The class (first two characters), e.g. `23` for integrity constraint violations.
    public var errorClass: Substring { rawValue.prefix(2) }

    /// A transaction that failed only because of concurrent transactions and may succeed if
    /// retried (serialization failure, deadlock).
    public var isRetryable: Bool { self == .serializationFailure || self == .deadlockDetected }
}
