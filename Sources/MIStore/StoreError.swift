import MIPostgres
import Foundation
import GRDB

/// The one error type of MIStore. Callers switch on ``kind``; ``message`` is a complete sentence
/// for a person (it never contains SQL arguments or other secrets).
///
/// ```swift
/// do { try store.move(ref, to: "asmith", actor: "mkhan") }
/// catch let error as StoreError where error.kind == .invalidState { ... }
/// ```
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a stable code a caller can branch on.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No live form (or other object) matches the reference.
        public static let notFound = Kind(rawValue: "notFound")
        /// Someone else changed the object first (stale version, name already taken).
        public static let conflict = Kind(rawValue: "conflict")
        /// Another process held the store longer than the busy timeout.
        public static let busy = Kind(rawValue: "busy")
        /// The form is in a state that does not allow the operation (e.g. moving a completed form).
        public static let invalidState = Kind(rawValue: "invalidState")
        /// An argument is malformed (empty uid, bad form reference, non-empty export target, ...).
        public static let invalidInput = Kind(rawValue: "invalidInput")
        /// A file could not be read or written.
        public static let io = Kind(rawValue: "io")
        /// One read of a SQLite store kept its snapshot longer than `limits.snapshotSeconds`
        /// (``SnapshotWatch``) and was ended: while a reader holds one, no checkpoint can finish
        /// and the `-wal` file grows with every other console's changes.
        public static let snapshotTooOld = Kind(rawValue: "snapshotTooOld")
        /// The store was migrated by a newer miadmin (a schema this one does not know); it is
        /// neither read nor written.
        public static let newerSchema = Kind(rawValue: "newerSchema")
        /// Any other database error; ``StoreError/sqliteCode`` or ``StoreError/sqlState`` holds
        /// the engine's code.
        public static let database = Kind(rawValue: "database")
        /// The PostgreSQL server could not be reached: down, TLS failure, database missing, the
        /// connection lost. The message names the host, never the password.
        public static let unreachable = Kind(rawValue: "unreachable")
        /// The PostgreSQL server refused the store account: wrong or missing password, or no
        /// permission to connect or to use the store's tables.
        public static let authentication = Kind(rawValue: "authentication")
        /// The store's settings in the config are wrong (`store.url`, its TLS mode, ...).
        public static let configuration = Kind(rawValue: "configuration")
    }

    public let kind: Kind
    public let message: String
    /// The file or directory concerned, when there is one.
    public let path: String?
    /// The SQLite extended result code, for `.database` and `.busy` errors.
    public let sqliteCode: Int32?
    /// The PostgreSQL SQLSTATE, for errors a statement met on PostgreSQL.
    public let sqlState: String?
    /// For `.busy`: who held the store, when it could be found (``StoreHolder``).
    public private(set) var holder: StoreHolder?
    /// For `.busy`: whether the holder was looked for (the engine does it once, outermost).
    var holderSought = false
    /// For a PostgreSQL connection lost while in use: why, as the server or a pooler said it
    /// (``MIPostgres/PostgresError/lossReason``).
    let lossReason: String?

    public init(_ kind: Kind, _ message: String, path: String? = nil, sqliteCode: Int32? = nil, sqlState: String? = nil) {
        self.init(kind, message, path: path, sqliteCode: sqliteCode, sqlState: sqlState, lossReason: nil)
    }

    init(_ kind: Kind, _ message: String, path: String? = nil, sqliteCode: Int32? = nil, sqlState: String? = nil,
         lossReason: String?) {
        self.kind = kind
        self.message = message
        self.path = path
        self.sqliteCode = sqliteCode
        self.sqlState = sqlState
        self.lossReason = lossReason
    }

    /// Whether the transaction lost a race on PostgreSQL (serialization failure, deadlock,
    /// unique violation) and may be run again from the start, where it will see the winner's
    /// commit. SQLite never needs this: it has one writer at a time.
    public var isRetryable: Bool { ["40001", "40P01", "23505"].contains(sqlState ?? "") }

    /// Whether the failure is the store's state, not the command's: busy past the busy timeout,
    /// unreachable, a file it could not read or write. Exit status 2: the same command may go
    /// through later.
    public var isTransient: Bool { [.busy, .unreachable, .io].contains(kind) }

    /// Whether a unique index refused the change (PostgreSQL 23505, SQLite's
    /// SQLITE_CONSTRAINT_UNIQUE): the only conflict an operation may explain as a name taken at
    /// the same moment.
    var isUniqueViolation: Bool { sqlState == "23505" || sqliteCode == 2067 }

    /// Whether the store refused this one change of a form (its state, its version, its name,
    /// the input), as opposed to the whole run: a busy or unreachable store, or a PostgreSQL
    /// transaction that lost a race and must start again. A bulk change's preview names the
    /// forms so refused and goes on with the others.
    public var refusesOneForm: Bool {
        switch kind {
        case .notFound, .invalidState, .invalidInput: true
        case .conflict: sqlState == nil || isUniqueViolation
        default: false
        }
    }

    public var description: String { message }
}

extension StoreError {
    /// The one answer for a form that is not there, or not there for this user: a technician
    /// asking for another's form gets exactly this, as for a missing one.
    public static func noSuchForm(_ ref: FormReference) -> StoreError {
        switch ref {
        case .id(let id): StoreError(.notFound, "No form \(id).")
        case .path(let owner, let name): StoreError(.notFound, "\(owner) has no form named '\(name)'.")
        }
    }

    /// A store migrated by a newer miadmin, refused before anything is read or written.
    static func newerSchema(at place: String, found: String, known: String) -> StoreError {
        StoreError(.newerSchema, "The store at \(place) has schema version \(found), from a newer miadmin; "
            + "this miadmin knows schema versions up to \(known). Use the newer miadmin: "
            + "this one does not read or write the store.", path: place)
    }

    /// Maps a PostgreSQL error: connection failures to `.unreachable` / `.authentication`,
    /// statement errors by SQLSTATE (unique violation and lost races `.conflict`, a lock wait
    /// past `lock_timeout` `.busy`). Messages name the host, never the password.
    static func mapping(_ error: PostgresError) -> StoreError {
        let state = error.sqlState?.rawValue
        switch error.kind {
        case .unreachable, .noPrimary, .endedAfterLogin, .tls, .databaseMissing:
            return StoreError(.unreachable, error.message, sqlState: state, lossReason: error.lossReason)
        case .authentication, .permissionDenied: return StoreError(.authentication, error.message, sqlState: state)
        case .configuration: return StoreError(.configuration, error.message, sqlState: state)
        default: break
        }
        switch error.sqlState {
        case .uniqueViolation?:
            return StoreError(.conflict, "Someone else changed the store at the same time (\(error.message)).", sqlState: state)
        case .serializationFailure?:
            return StoreError(.conflict, "PostgreSQL stopped this change with a serialization failure (SQLSTATE 40001): "
                              + "another console's transaction read and wrote the same rows, or rows stored beside "
                              + "them, at the same moment.", sqlState: state)
        case .deadlockDetected?:
            return StoreError(.conflict, "PostgreSQL stopped this change as a deadlock (SQLSTATE 40P01): it and another "
                              + "console's transaction waited for each other.", sqlState: state)
        case .lockNotAvailable?, .queryCanceled?:
            return postgresBusy(sqlState: state, holder: nil)
        default:
            return StoreError(.database, error.message, sqlState: state)
        }
    }

    /// Maps SQLite errors to `StoreError`; every other error passes unchanged.
    ///
    /// SQLITE_BUSY / SQLITE_LOCKED become `.busy`, a UNIQUE violation becomes `.conflict`.
    static func mapping(_ error: any Error, busyTimeout: TimeInterval) -> any Error {
        if let dbError = error as? DatabaseError {
            let code = dbError.extendedResultCode.rawValue
            switch dbError.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return sqliteBusy(busyTimeout, code: code, holder: nil)
            case .SQLITE_CONSTRAINT where dbError.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE:
                return StoreError(.conflict,
                                  "Someone else changed the store at the same time (\(dbError.message ?? "unique constraint")).",
                                  sqliteCode: code)
            default:
                return StoreError(.database, "SQLite error \(code): \(dbError.message ?? "unknown")", sqliteCode: code)
            }
        }
        return error
    }

    /// SQLite's busy error; with `holder` once it was looked for (``SQLiteLockHolder``).
    static func sqliteBusy(_ busyTimeout: TimeInterval, code: Int32?, holder: StoreHolder?, sought: Bool = false) -> StoreError {
        let who = holderClause(holder, sought: sought, noneFound: "no process holds its write lock now, or none this one can see")
        return StoreError(.busy, "The store is busy: another process held it for more than "
                          + "\(formatSeconds(busyTimeout)) s\(who). Try again, or raise the busy timeout.", sqliteCode: code)
            .naming(holder, sought: sought)
    }

    /// PostgreSQL's busy error (a lock wait past `lock_timeout`); with `holder` once it was
    /// looked for (``StoreHolder``, PostgreSQL).
    static func postgresBusy(sqlState: String?, holder: StoreHolder?, sought: Bool = false) -> StoreError {
        let who = holderClause(holder, sought: sought, noneFound: "no other transaction of the store is open now")
        return StoreError(.busy, "The store is busy: another console held the same forms for longer than the busy "
                          + "timeout\(who). Try again, or raise the busy timeout.", sqlState: sqlState)
            .naming(holder, sought: sought)
    }

    /// What a busy message says of the holder: ": <who>", or `noneFound` in parentheses when it
    /// was looked for and nobody was found, or nothing when it was not looked for.
    private static func holderClause(_ holder: StoreHolder?, sought: Bool, noneFound: String) -> String {
        if let holder { return ": " + holder.sentence }
        return sought ? " (\(noneFound))" : ""
    }

    /// This error with the holder found (or not) and whether it was looked for.
    private func naming(_ holder: StoreHolder?, sought: Bool) -> StoreError {
        var error = self
        error.holder = holder
        error.holderSought = sought
        return error
    }

    static func formatSeconds(_ seconds: TimeInterval) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }
}
