import Foundation
import MICommands
@testable import MIStore

/// A store that holds a few forms in memory and answers the calls the output tests need; any
/// other call is recorded and ends the command with ``Reached``, which tells a permission test
/// that the command got past every permission check and went on to the store.
final class FakeStore: StoreService {
    /// The call a command made that this fake does not answer.
    struct Reached: Error, Equatable { let call: String }

    let path = "/fake/store.sqlite"
    let engineName = "sqlite"
    private(set) var calls: [String] = []
    /// The arguments of the last `forEachForm` call.
    private(set) var lastFilter: FormFilter?
    var forms: [FormSummary] = [
        FakeStore.summary(1, "jdoe", "Pump station 4", .incomplete),
        FakeStore.summary(2, "jdoe", "Valve check", .completed),
        FakeStore.summary(3, "asmith", "Generator monthly", .submitted),
    ]
    var storedNotices: [Notice] = []

    static func summary(_ id: Int64, _ owner: String, _ name: String, _ state: FormState) -> FormSummary {
        let created = Timestamp(storedText: "2026-11-20 08:00:00", date: Date(timeIntervalSince1970: 1_795_600_000))
        return FormSummary(id: id, owner: owner, name: name, state: state, template: "Pump", created: created,
                           modified: created, mediaCount: 0, version: 1)
    }

    private func reached(_ call: String) -> Reached {
        calls.append(call)
        return Reached(call: call)
    }

    func forEachForm(_ filter: FormFilter, _ body: (FormSummary) throws -> Void) throws {
        calls.append("forEachForm")
        lastFilter = filter
        for form in forms where filter.owner.map({ $0 == form.owner }) ?? true {
            if let state = filter.state, state != form.state { continue }
            try body(form)
        }
    }

    func notices(for uid: String, unreadOnly: Bool) throws -> [Notice] {
        calls.append("notices \(uid)")
        return storedNotices.filter { $0.uid == uid && (!unreadOnly || $0.readAt == nil) }
    }

    func move(_ ref: FormReference, to uid: String, actor: String, actorRole: String, note: String?,
              expectedVersion: Int?) throws -> MoveResult {
        calls.append("move \(ref) \(uid) \(actorRole)")
        guard case .id(let id) = ref, let form = forms.first(where: { $0.id == id }) else {
            throw StoreError(.notFound, "no form \(ref)")
        }
        return MoveResult(formId: id, fromOwner: form.owner, toOwner: uid, oldName: form.name, newName: form.name + " (2)",
                          version: form.version + 1, moved: true, noticeId: 1, receiverNoticeId: 2)
    }

    func countForms(_ filter: FormFilter) throws -> Int {
        throw reached("countForms")
    }

    func countForms(by field: FormField, _ filter: FormFilter) throws -> [(value: String, count: Int)] {
        throw reached("countForms")
    }

    func form(_ ref: FormReference, owner: String?) throws -> Form {
        throw reached("form")
    }

    func review(_ ref: FormReference, owner: String?) throws -> FormReview {
        throw reached("review")
    }

    func mediaData(_ ref: FormReference, fileName: String) throws -> Data {
        throw reached("mediaData")
    }

    func forEachMediaFile(of ref: FormReference, fileName: String?, owner: String?, _ body: (MediaSource, MediaFile, Data) throws -> Void) throws -> MediaSource {
        throw reached("forEachMediaFile")
    }

    func formReferenceSuggestions(prefix: String, owner: String?, scope: FormStore.SuggestionScope, limit: Int) throws -> [String] {
        throw reached("formReferenceSuggestions")
    }

    func comment(_ ref: FormReference, text: String, author: String, note: String?, expectedVersion: Int?) throws -> ForemanComment {
        throw reached("comment")
    }

    func submit(_ ref: FormReference, actor: String, note: String?, expectedVersion: Int?) throws -> SubmitResult {
        throw reached("submit")
    }

    func reopen(_ ref: FormReference, reason: String, actor: String, actorRole: String, allowSubmitted: Bool) throws -> ReopenResult {
        throw reached("reopen")
    }

    func forEachTrashedForm(owner: String?, _ body: (TrashedForm) throws -> Void) throws {
        throw reached("forEachTrashedForm")
    }

    func restore(_ ref: FormReference, actor: String, note: String?) throws -> RestoreResult {
        throw reached("restore")
    }

    func expiryCutoff(days: Int) throws -> ExpiryCutoff {
        throw reached("expiryCutoff")
    }

    func countExpirable(_ cutoff: ExpiryCutoff) throws -> Int {
        throw reached("countExpirable")
    }

    func forEachExpirable(_ cutoff: ExpiryCutoff, _ body: (FormSummary) throws -> Void) throws {
        throw reached("forEachExpirable")
    }

    func expire(_ cutoff: ExpiryCutoff, actor: String, note: String?, batchSize: Int, _ body: (ExpiredForm) throws -> Void, progress: (Int) -> Void) throws -> Int {
        throw reached("expire")
    }

    func purgeCutoff(days: Int) throws -> PurgeCutoff {
        throw reached("purgeCutoff")
    }

    func countPurgeable(_ cutoff: PurgeCutoff) throws -> Int {
        throw reached("countPurgeable")
    }

    func forEachPurgeable(_ cutoff: PurgeCutoff, _ body: (TrashedForm) throws -> Void) throws {
        throw reached("forEachPurgeable")
    }

    func purge(_ cutoff: PurgeCutoff, actor: String, note: String?, batchSize: Int, _ body: (TrashedForm) throws -> Void, progress: (Int) -> Void) throws -> Int {
        throw reached("purge")
    }

    func policy(defaults: ExpiryPolicy) throws -> EffectivePolicy {
        throw reached("policy")
    }

    func setPolicy(_ setting: PolicySetting, to text: String, defaults: ExpiryPolicy, actor: String, note: String?) throws -> PolicyChange {
        throw reached("setPolicy")
    }

    func forEachReminder(policy: ExpiryPolicy, filter: ReminderFilter, _ body: (Reminder) throws -> Void) throws {
        throw reached("forEachReminder")
    }

    func markRead(ids: [Int64], actor: String) throws -> Int {
        throw reached("markRead")
    }

    func markAllRead(for uid: String, actor: String) throws -> Int {
        throw reached("markAllRead")
    }

    func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) throws {
        throw reached("forEachAuditEntry")
    }

    func importTree(at root: URL, actor: String, limits: ImportLimits) throws -> ImportReport {
        throw reached("importTree")
    }

    func previewImport(at root: URL, limits: ImportLimits) throws -> ImportReport {
        throw reached("previewImport")
    }

    func exportTree(to target: URL) throws -> ExportReport {
        throw reached("exportTree")
    }

    func check(_ body: (StoreFinding) throws -> Void) throws {
        throw reached("check")
    }

    func forEachOwner(_ body: (_ uid: String, _ forms: Int) throws -> Void) throws {
        throw reached("forEachOwner")
    }

    func info() throws -> StoreInfo {
        throw reached("info")
    }

    func copy(to target: FormStore, append: Bool, actor: String, progress: (String, Int) -> Void) throws -> StoreCopyReport {
        throw reached("copy")
    }

    func withSessionTransaction<T>(end: FormStore.SessionEnd, _ body: () throws -> T) throws -> T {
        throw reached("withSessionTransaction")
    }
}
