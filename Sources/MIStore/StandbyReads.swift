import MIPostgres
import Foundation
import Synchronization

/// Something the store did that the person at the console should hear of, though the command
/// went on: said after the line (``FormStore/takeEvents()``).
public enum StoreEvent: Sendable, Equatable {
    /// The connection was lost and opened again (a restart, a failover), now to `host`.
    case reconnected(host: String, seconds: Double)
    /// A listing was read from the standby at `host`, which had not yet replayed the primary's
    /// last `seconds` of changes (more than `store.maxLagSeconds`).
    case standbyLag(host: String, seconds: Double)
    /// `store.readUrl` could not be used; the listing was read from the primary.
    case standbyUnavailable(reason: String)
    /// Committed audit rows could not be copied to the system logger (`audit.syslog`); the
    /// store's rows are the record. Said once per store.
    case auditRelayFailed(reason: String)
}

/// `store.readUrl`: a hot standby that listings, `audit`, `check` and `report` read from,
/// sparing the primary. Its connection is opened on first use (a console that only moves never
/// opens it); when it cannot be opened, or is lost, reads go to the primary and the console is
/// told once. Each read first asks how far behind the primary the standby is.
final class StandbyReads: Sendable {
    let target: PostgresTarget
    let maxLagSeconds: Double
    private let open: @Sendable () throws -> PostgresEngine
    private let state = Mutex<State>(.closed)
    private let events = Mutex<[StoreEvent]>([])

    private enum State: @unchecked Sendable { case closed, open(PostgresEngine), failed }

    init(target: PostgresTarget, maxLagSeconds: Double, open: @escaping @Sendable () throws -> PostgresEngine) {
        self.target = target
        self.maxLagSeconds = maxLagSeconds
        self.open = open
    }

    /// The standby's engine, opened on first use; nil (reads go to the primary) once it failed.
    private func engine() -> PostgresEngine? {
        state.withLock { state in
            switch state {
            case .open(let engine): return engine
            case .failed: return nil
            case .closed:
                do {
                    let engine = try open()
                    state = .open(engine)
                    return engine
                } catch {
                    state = .failed
                    events.withLock { $0.append(.standbyUnavailable(reason: "\(error)")) }
                    return nil
                }
            }
        }
    }

    /// Runs `body` on the standby, or returns nil when there is none to use. A standby lost
    /// before `body` saw a row is given up for the rest of the process (nil: the primary);
    /// one lost in the middle of a listing fails it (the engine's rule).
    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T? {
        guard let engine = engine() else { return nil }
        var started = false
        do {
            return try engine.read { db in
                let lag = try db.value(Double.self, literal: """
                    SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                           ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp()) END
                    """) ?? 0
                if lag > maxLagSeconds {
                    events.withLock { $0.append(.standbyLag(host: engine.target.description, seconds: lag)) }
                }
                started = true
                return try body(db)
            }
        } catch let error as StoreError where error.kind == .unreachable && !started {
            state.withLock { $0 = .failed }
            events.withLock { $0.append(.standbyUnavailable(reason: error.message)) }
            return nil
        }
    }

    func takeEvents() -> [StoreEvent] {
        var all = events.withLock { list in defer { list = [] }; return list }
        if case .open(let engine) = state.withLock({ $0 }) {
            all += engine.takeReconnections().map { .reconnected(host: $0.host, seconds: $0.seconds) }
        }
        return all
    }
}

extension FormStore {
    /// A read for a listing, `audit`, `check` or `report`: on the standby of `store.readUrl`
    /// when there is one and it answers, else (and inside `--atomic`/`--dry-run`) as ``read(_:)``.
    func readListing<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        if SessionConnection.of(self) == nil, let standby, let result = try standby.read(body) { return result }
        return try read(body)
    }

    /// What the store did since the last call that the console should say: reconnections (of the
    /// primary's connection and the standby's), a lagging standby, a standby not used.
    public func takeEvents() -> [StoreEvent] {
        engine.takeReconnections().map { .reconnected(host: $0.host, seconds: $0.seconds) } + (standby?.takeEvents() ?? [])
            + takeRelayEvents()
    }
}
