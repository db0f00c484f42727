import Foundation
import Synchronization

/// One audit row as written, handed to an ``AuditRelay`` once its change has committed.
public struct AuditRecord: Sendable, Hashable {
    public let at: Date
    public let actor: String
    public let command: String
    public let formId: Int64?
    public let object: String
    /// Compact JSON of the changed fields, as the row stores them.
    public let before: String?
    public let after: String?
    public let note: String?

    public init(at: Date, actor: String, command: String, formId: Int64?, object: String,
                before: String?, after: String?, note: String?) {
        self.at = at
        self.actor = actor
        self.command = command
        self.formId = formId
        self.object = object
        self.before = before
        self.after = after
        self.note = note
    }
}

/// Where committed audit rows are copied to besides the store (the system logger: `audit.syslog`).
/// The store's row is the record: a relay must neither block nor fail the change, so it returns
/// what went wrong instead of throwing; the store says it once (``StoreEvent/auditRelayFailed(reason:)``).
public protocol AuditRelay: Sendable {
    /// Sends `records` (one committed change's rows, in order); nil when all were handed over.
    func relay(_ records: [AuditRecord]) -> String?
}

extension FormStore {
    /// Copies every audit row this store commits from now on to `relay` (nil: none).
    public func setAuditRelay(_ relay: (any AuditRelay)?) {
        relayState.relay.withLock { $0 = relay }
    }

    /// Runs one write attempt collecting its audit rows, then hands them to the relay once the
    /// write has committed. An attempt that is run again (a PostgreSQL retry) starts afresh.
    func relayingAudit<T>(_ write: (_ attempt: () -> Void) throws -> T) throws -> T {
        guard let relay = relayState.relay.withLock({ $0 }) else { return try write {} }
        let pending = PendingAudit()
        let result = try PendingAudit.$current.withValue(pending) { try write { pending.records.removeAll() } }
        relayState.hand(pending.records, to: relay)
        return result
    }

    /// The relay's failure since the last call, said once per store (``takeEvents()``).
    func takeRelayEvents() -> [StoreEvent] { relayState.takeEvents() }
}

/// The relay and whether its failure was said: one per store.
final class AuditRelayState: Sendable {
    let relay = Mutex<(any AuditRelay)?>(nil)
    private let said = Mutex<(told: Bool, events: [StoreEvent])>((false, []))

    func hand(_ records: [AuditRecord], to relay: any AuditRelay) {
        guard !records.isEmpty, let problem = relay.relay(records) else { return }
        said.withLock { state in
            guard !state.told else { return }
            state.told = true
            state.events.append(.auditRelayFailed(reason: problem))
        }
    }

    func takeEvents() -> [StoreEvent] {
        said.withLock { state in
            defer { state.events.removeAll() }
            return state.events
        }
    }
}

/// The audit rows written by the transaction in progress on this thread, for the relay: rows of a
/// savepoint that is rolled back (a failed command inside `--atomic`, a preview) are taken out
/// again, and a session that is rolled back (`--dry-run`) relays nothing.
/// `@unchecked Sendable`: it is only ever used on the thread that runs the transaction.
final class PendingAudit: @unchecked Sendable {
    var records: [AuditRecord] = []
    @TaskLocal static var current: PendingAudit?

    /// Runs `body` (a savepoint); its rows stay only if it returns and `keep` says so.
    static func keeping<T>(if keep: Bool = true, _ body: () throws -> T) rethrows -> T {
        guard let pending = current else { return try body() }
        let mark = pending.records.count
        do {
            let result = try body()
            if !keep { pending.records.removeSubrange(mark...) }
            return result
        } catch {
            pending.records.removeSubrange(mark...)
            throw error
        }
    }
}
