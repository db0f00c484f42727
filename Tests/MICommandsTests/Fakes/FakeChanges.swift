import Foundation
import MICommands
@testable import MIStore

/// Changes: moves of ``FakeStore/forms`` and expiry of ``FakeStore/expirable``; any other change ends the command with ``FakeStore/Reached``.
final class FakeChanges: StoreChanges {
    let store: FakeStore
    init(_ store: FakeStore) { self.store = store }

    func move(_ ref: FormReference, to uid: String, actor: String, actorRole: String, note: String?,
              expectedVersion: Int?, policyDefaults: ExpiryPolicy, undoing: MoveResult?) throws -> MoveResult {
        store.calls.append("move \(ref) \(uid) \(actorRole)")
        store.lastMovePolicy = policyDefaults
        guard case .id(let id) = ref, let form = store.forms.first(where: { $0.id == id }) else {
            throw StoreError(.notFound, "no form \(ref)")
        }
        if let failure = store.failingMoves[id] { throw failure }
        return MoveResult(formId: id, fromOwner: form.owner, toOwner: uid, oldName: form.name, newName: form.name + " (2)",
                          version: form.version + 1, moved: true, noticeId: 1, receiverNoticeId: 2,
                          expires: store.movedFormExpires)
    }

    func tellOfMoves(_ moves: [MoveResult], actor: String, actorRole: String, note: String?, undone: Bool) throws {
        store.calls.append("tellOfMoves \(moves.count) undone: \(undone)")
    }

    func comment(_ ref: FormReference, text: String, author: String, note: String?, expectedVersion: Int?) throws -> ForemanComment {
        throw store.reached("comment")
    }

    func submit(_ ref: FormReference, actor: String, note: String?, expectedVersion: Int?) throws -> SubmitResult {
        throw store.reached("submit")
    }

    func reopen(_ ref: FormReference, reason: String, actor: String, actorRole: String, allowSubmitted: Bool) throws -> ReopenResult {
        throw store.reached("reopen")
    }

    func restore(_ ref: FormReference, actor: String, note: String?) throws -> RestoreResult {
        throw store.reached("restore")
    }

    func expiryCutoff(days: Int) throws -> ExpiryCutoff {
        store.calls.append("expiryCutoff")
        return ExpiryCutoff(days: days, now: Date(timeIntervalSince1970: 1_796_000_000))
    }

    func expiryCutoffs(_ policies: OwnerPolicies) -> [ExpiryCutoff] {
        store.calls.append("expiryCutoff")
        return [ExpiryCutoff(days: policies.site.expiryDays, now: Date(timeIntervalSince1970: 1_796_000_000))]
    }

    func countExpirable(_ cutoff: ExpiryCutoff) throws -> Int {
        store.calls.append("countExpirable")
        return store.expirable.count
    }

    func forEachExpirable(_ cutoff: ExpiryCutoff, _ body: (FormSummary) throws -> Void) throws {
        throw store.reached("forEachExpirable")
    }

    /// Expires ``store.expirable`` in batches of ``store.expiryBatchSize`` (whatever the command asks), as
    /// the store does: each batch "committed" (counted in ``store.expired``), then `progress`, then
    /// `body` for each of its store.forms.
    func expire(_ cutoff: ExpiryCutoff, actor: String, note: String?, batchSize: Int, _ body: (ExpiredForm) throws -> Void, progress: (Int) -> Void) throws -> Int {
        store.calls.append("expire")
        for start in stride(from: 0, to: store.expirable.count, by: store.expiryBatchSize) {
            let batch = store.expirable[start..<min(start + store.expiryBatchSize, store.expirable.count)]
            store.expired += batch.count
            progress(store.expired)
            for form in batch { try body(ExpiredForm(form: form, trashedAt: cutoff.now, noticeId: 1)) }
        }
        return store.expired
    }

    func purgeCutoff(days: Int) throws -> PurgeCutoff {
        throw store.reached("purgeCutoff")
    }

    func purgeCutoffs(_ policies: OwnerPolicies) -> [PurgeCutoff] {
        store.calls.append("purgeCutoff")
        return []
    }

    func countPurgeable(_ cutoff: PurgeCutoff) throws -> Int {
        throw store.reached("countPurgeable")
    }

    func forEachPurgeable(_ cutoff: PurgeCutoff, _ body: (TrashedForm) throws -> Void) throws {
        throw store.reached("forEachPurgeable")
    }

    func purge(_ cutoff: PurgeCutoff, actor: String, note: String?, batchSize: Int, _ body: (TrashedForm) throws -> Void, progress: (Int) -> Void) throws -> Int {
        throw store.reached("purge")
    }

    func markRead(ids: [Int64], actor: String) throws -> Int {
        throw store.reached("markRead")
    }

    func markAllRead(for uid: String, actor: String) throws -> Int {
        throw store.reached("markAllRead")
    }

    func importTree(at root: URL, actor: String, limits: ImportLimits) throws -> ImportReport {
        throw store.reached("importTree")
    }

    func previewImport(at root: URL, limits: ImportLimits) throws -> ImportReport {
        throw store.reached("previewImport")
    }

    func exportTree(to target: URL) throws -> ExportReport {
        throw store.reached("exportTree")
    }
}
