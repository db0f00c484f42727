import MIPostgres
import Foundation

// The engine's first connection and its session settings, and the waits between tries to
// connect that reconnecting (PostgresEngine.swift) shares.
extension PostgresEngine {
    /// The first connection, set up: the pooler mode, the session settings, the migrations (on
    /// a read standby only the schema check), old write ids deleted. When only standbys answer,
    /// or a URL naming several hosts (a primary and its standbys) finds none or loses the
    /// connection during this, the console started during a failover: all of it is tried again
    /// as a lost connection is, for up to ``Options/reconnectSeconds`` (the migrations run in one
    /// transaction). So is a host that took the login and then ended the session (a pooler whose
    /// own server logins fail: PgBouncer answers every new session "server login has been
    /// failing, try again later (server_login_retry)" until one works; the last such reason is
    /// what the error names). Other failures (one host that does not answer, a wrong password, a
    /// TLS failure of the only host) are reported at once.
    static func open(target: PostgresTarget, password: String?, conventions: PostgresConnection.UserConventions,
                             busyTimeout: TimeInterval, options: Options) throws -> (PostgresConnection, PostgresPooler) {
        var backoff = Backoff(seconds: options.reconnectSeconds)
        while true {
            var loggedIn = false
            do {
                let connection = try PostgresConnection(target: target, password: password, conventions: conventions,
                                                        deadline: backoff.deadline)
                loggedIn = true
                let pooler = try options.pooler ?? PostgresPooler.detect(on: connection)
                connection.namedStatements = pooler != .transaction
                try configureSession(connection, pooler: pooler, busyTimeout: busyTimeout)
                if options.readOnly {
                    try PostgresMigrations.checkKnown(connection)
                } else {
                    try PostgresMigrations.migrate(connection, lockWaitSeconds: busyTimeout)
                    try connection.execute("DELETE FROM write_ids WHERE at < extract(epoch FROM now()) - 86400")
                }
                return (connection, pooler)
            } catch let error as PostgresError {
                // Several hosts: any of them may be the primary in a moment, whatever kept each
                // from answering now (down, a listener that is not the store, a certificate).
                let endedAfterLogin = error.kind == .endedAfterLogin || (loggedIn && error.kind == .unreachable)
                let failingOver = error.kind == .noPrimary || endedAfterLogin
                    || (target.hostCount > 1 && [.unreachable, .tls].contains(error.kind))
                guard failingOver, backoff.pause() else { throw StoreError.mapping(error) }
            }
        }
    }

    /// The waits between tries to connect: 50 ms, 100 ms, ... up to 1 s, for `seconds` in all.
    struct Backoff {
        let seconds: TimeInterval
        let started = Date()
        private var wait = 0.05

        init(seconds: TimeInterval) { self.seconds = seconds }

        var elapsed: TimeInterval { Date().timeIntervalSince(started) }
        /// When the time is up: no try to connect may wait beyond it.
        var deadline: Date { started.addingTimeInterval(seconds) }

        /// Waits before the next try; false when the time is up.
        mutating func pause() -> Bool {
            let left = seconds - elapsed
            guard left > 0 else { return false }
            Thread.sleep(forTimeInterval: min(wait, left))
            wait = min(wait * 2, 1)
            return true
        }
    }

    /// What every session of the store's connection sets: the busy timeout as `lock_timeout`
    /// (behind a transaction pooler, sent with each BEGIN instead).
    static func configureSession(_ connection: PostgresConnection, pooler: PostgresPooler,
                                         busyTimeout: TimeInterval) throws {
        if pooler != .transaction { try connection.execute(lockTimeoutStatement(busyTimeout, local: false)) }
    }

    /// `SET lock_timeout` in milliseconds; 0 would mean "wait for ever", so a zero busy timeout
    /// waits 1 ms.
    static func lockTimeoutStatement(_ busyTimeout: TimeInterval, local: Bool) -> String {
        "SET \(local ? "LOCAL " : "")lock_timeout = \(lockTimeoutMilliseconds(busyTimeout))"
    }

    static func lockTimeoutMilliseconds(_ busyTimeout: TimeInterval) -> Int {
        max(1, Int((busyTimeout * 1000).rounded()))
    }
}
