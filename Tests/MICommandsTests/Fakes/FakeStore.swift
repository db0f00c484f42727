import Foundation
import MICommands
@testable import MIStore

/// A store that holds a few forms in memory and answers the calls the output tests need; any
/// other call is recorded and ends the command with ``Reached``, which tells a permission test
/// that the command got past every permission check and went on to the store.
final class FakeStore: StoreService, StoreReachSetting {
    /// The call a command made that this fake does not answer.
    struct Reached: Error, Equatable { let call: String }

    let path = "/fake/store.sqlite"
    let engineName = "sqlite"
    private(set) var calls: [String] = []
    /// Set by the session before any command reaches the store; the fake records it, the real
    /// store enforces it (CrewRuleTests run on a real SQLite store).
    private(set) var reach = Reach.everyone
    func setReach(_ reach: Reach) { self.reach = reach }
    var ownerScope: OwnerScope { reach.scope }
    /// The arguments of the last `forEachForm` call.
    private(set) var lastFilter: FormFilter?
    var forms: [FormSummary] = [
        FakeStore.summary(1, "jdoe", "Pump station 4", .incomplete),
        FakeStore.summary(2, "jdoe", "Valve check", .completed),
        FakeStore.summary(3, "asmith", "Generator monthly", .submitted),
    ]
    var storedNotices: [Notice] = []
    /// What `move` answers for the moved form's new expiry.
    var movedFormExpires = Date(timeIntervalSince1970: 1_796_000_000)
    /// What `expire` takes, how many it takes per batch, and how many it took.
    var expirable: [FormSummary] = []
    var expiryBatchSize = 2
    private(set) var expired = 0
    /// The policy defaults the last `move` passed (the config's).
    private(set) var lastMovePolicy: ExpiryPolicy?
    /// What `move` throws for these form ids (a busy store part-way through a bulk move).
    var failingMoves: [Int64: StoreError] = [:]

    static func summary(_ id: Int64, _ owner: String, _ name: String, _ state: FormState) -> FormSummary {
        let created = Timestamp(storedText: "2026-11-20 08:00:00", date: Date(timeIntervalSince1970: 1_795_600_000))
        return FormSummary(id: id, owner: owner, name: name, state: state, template: "Pump", created: created,
                           modified: created, mediaCount: 0, version: 1)
    }

    /// Who runs what (the console's label for another console's busy error).
    private(set) var activity: String?
    func setActivity(_ text: String?) { activity = text }

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
              expectedVersion: Int?, policyDefaults: ExpiryPolicy, undoing: MoveResult?) throws -> MoveResult {
        calls.append("move \(ref) \(uid) \(actorRole)")
        lastMovePolicy = policyDefaults
        guard case .id(let id) = ref, let form = forms.first(where: { $0.id == id }) else {
            throw StoreError(.notFound, "no form \(ref)")
        }
        if let failure = failingMoves[id] { throw failure }
        return MoveResult(formId: id, fromOwner: form.owner, toOwner: uid, oldName: form.name, newName: form.name + " (2)",
                          version: form.version + 1, moved: true, noticeId: 1, receiverNoticeId: 2,
                          expires: movedFormExpires)
    }

    func countForms(_ filter: FormFilter) throws -> Int {
        throw reached("countForms")
    }

    func countForms(by fields: [FormField], _ filter: FormFilter) throws -> [FormCount] {
        calls.append("countForms by \(fields.map(\.rawValue).joined(separator: ","))")
        lastFilter = filter
        var counts: [FormCount] = []
        for form in forms where filter.owner.map({ $0 == form.owner }) ?? true {
            if let state = filter.state, state != form.state { continue }
            let values = fields.map { field in
                switch field {
                case .owner: form.owner
                case .state: form.state.rawValue
                case .template: form.template
                }
            }
            if let index = counts.firstIndex(where: { $0.values == values }) {
                counts[index].count += 1
            } else {
                counts.append(FormCount(values: values, count: 1))
            }
        }
        return counts.sorted(by: FormCount.mostFirst)
    }

    func workload(_ filter: FormFilter, policies: OwnerPolicies) throws -> [OwnerWorkload] {
        calls.append("workload")
        lastFilter = filter
        let owners = Array(Set(forms.map(\.owner))).sorted().filter { filter.owner.map($0.elementsEqual) ?? true }
        return owners.map { owner in
            let mine = forms.filter { $0.owner == owner }
            let open = mine.filter { $0.state == .incomplete }
            return OwnerWorkload(owner: owner, incomplete: open.count, completed: mine.filter { $0.state == .completed }.count,
                                 oldestIncomplete: open.map(\.created.date).min(),
                                 nextExpiry: open.compactMap { policies.expires($0) }.min())
        }
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

    func whereabouts(_ query: FindTarget, limit: Int) throws -> [FormWhereabouts] {
        throw reached("whereabouts")
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
        calls.append("expiryCutoff")
        return ExpiryCutoff(days: days, now: Date(timeIntervalSince1970: 1_796_000_000))
    }

    func expiryCutoffs(_ policies: OwnerPolicies) -> [ExpiryCutoff] {
        calls.append("expiryCutoff")
        return [ExpiryCutoff(days: policies.site.expiryDays, now: Date(timeIntervalSince1970: 1_796_000_000))]
    }

    func countExpirable(_ cutoff: ExpiryCutoff) throws -> Int {
        calls.append("countExpirable")
        return expirable.count
    }

    func forEachExpirable(_ cutoff: ExpiryCutoff, _ body: (FormSummary) throws -> Void) throws {
        throw reached("forEachExpirable")
    }

    /// Expires ``expirable`` in batches of ``expiryBatchSize`` (whatever the command asks), as
    /// the store does: each batch "committed" (counted in ``expired``), then `progress`, then
    /// `body` for each of its forms.
    func expire(_ cutoff: ExpiryCutoff, actor: String, note: String?, batchSize: Int, _ body: (ExpiredForm) throws -> Void, progress: (Int) -> Void) throws -> Int {
        calls.append("expire")
        for start in stride(from: 0, to: expirable.count, by: expiryBatchSize) {
            let batch = expirable[start..<min(start + expiryBatchSize, expirable.count)]
            expired += batch.count
            progress(expired)
            for form in batch { try body(ExpiredForm(form: form, trashedAt: cutoff.now, noticeId: 1)) }
        }
        return expired
    }

    func purgeCutoff(days: Int) throws -> PurgeCutoff {
        throw reached("purgeCutoff")
    }

    func purgeCutoffs(_ policies: OwnerPolicies) -> [PurgeCutoff] {
        calls.append("purgeCutoff")
        return []
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
        calls.append("policy")
        return EffectivePolicy(policy: defaults, sources: [:])
    }

    func setPolicy(_ setting: PolicySetting, to text: String, defaults: ExpiryPolicy, actor: String, note: String?) throws -> PolicyChange {
        throw reached("setPolicy")
    }

    /// No crew overrides (the fake directory keeps no crews unless a test gives it some).
    func crewPolicies() throws -> [CrewPolicy] { [] }

    func ownerPolicies(defaults: ExpiryPolicy) throws -> OwnerPolicies {
        OwnerPolicies(site: try policy(defaults: defaults).policy)
    }

    func setCrewPolicy(crew: String, _ setting: PolicySetting, to text: String?, defaults: ExpiryPolicy, actor: String,
                       note: String?) throws -> PolicyChange {
        throw reached("setCrewPolicy")
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

    func backup(to path: String) throws -> Int64 {
        throw reached("backup")
    }

    var isInSessionTransaction: Bool { false }
    func endSessionReadSnapshot() throws {}

    func dueDeliveries(ignoringBackoff: Bool, limit: Int) throws -> [Delivery] { throw reached("dueDeliveries") }
    func delivery(_ id: Int64) throws -> Delivery { throw reached("delivery") }
    func forEachDelivery(_ filter: DeliveryFilter, _ body: (Delivery) throws -> Void) throws { throw reached("forEachDelivery") }
    func recordDeliveryTry(_ id: Int64, outcome: DeliveryOutcome) throws -> Delivery { throw reached("recordDeliveryTry") }
    func retryDeliveries(_ id: Int64?, actor: String, note: String?) throws -> [Delivery] { throw reached("retryDeliveries") }
    func dismissDelivery(_ id: Int64, actor: String, note: String) throws -> Delivery { throw reached("dismissDelivery") }
    func deliveryReview(_ delivery: Delivery) throws -> Result<FormReview, StoreError> { throw reached("deliveryReview") }
    func withMediaReader<T>(formId: Int64, _ body: (MediaReader) throws -> T) throws -> T { throw reached("withMediaReader") }
    func sentReminders() throws -> Set<ReminderKey> { throw reached("sentReminders") }
    func recordSentReminders(_ keys: [ReminderKey], uid: String) throws { throw reached("recordSentReminders") }

    func withSessionTransaction<T>(end: FormStore.SessionEnd, _ body: () throws -> T) throws -> T {
        throw reached("withSessionTransaction")
    }

    func withRetriedTransaction<T>(_ body: () throws -> T) throws -> T {
        throw reached("withRetriedTransaction")
    }
}
