import Foundation
import MIStore

/// What commands ask of the shared store: every operation a command runs, written once in
/// MIStore for both engines, split by area (the store as a whole, listing, changes, policy,
/// outbox), each a protocol of its own. Commands receive the areas as ``StoreAreas``, each typed
/// by its own protocol, so a command that lists forms holds a ``StoreListing`` and nothing that
/// changes them; no command holds the whole store or can set the reach. ``FormStore`` is the real
/// one (the launch layer opens it, on SQLite or PostgreSQL, with the rights the run allows) and
/// answers every area; the unit tests of MICommands use one small fake per area, so the
/// permission rules are checked without any server or file.
///
/// The requirements are FormStore's own methods, spelled as they are there.
/// Protocol requirements take no default arguments: the extensions below have the shorter
/// spellings commands use, each with its own signature (never a requirement's, which would make
/// a conformer that forgot one call itself).
public typealias StoreService = StoreAdministration & StoreListing & StoreChanges & StorePolicy & StoreOutbox

/// The store's areas as the session hands them to commands: each behind its own protocol, the
/// reach readable (``StoreAdministration/reach``) and set by the session alone.
public struct StoreAreas {
    public let administration: any StoreAdministration
    public let listing: any StoreListing
    public let changes: any StoreChanges
    public let policy: any StorePolicy
    public let outbox: any StoreOutbox
    /// The session's way to set the reach; commands never see it.
    let reachSetting: any StoreReachSetting

    /// Areas answered by separate objects (the unit tests' fakes, one per area).
    public init(administration: any StoreAdministration, listing: any StoreListing, changes: any StoreChanges,
                policy: any StorePolicy, outbox: any StoreOutbox, reachSetting: any StoreReachSetting) {
        self.administration = administration
        self.listing = listing
        self.changes = changes
        self.policy = policy
        self.outbox = outbox
        self.reachSetting = reachSetting
    }

    /// Every area answered by one store (``FormStore``).
    public init(_ store: any SessionStore) {
        self.init(administration: store, listing: store, changes: store, policy: store, outbox: store,
                  reachSetting: store)
    }
}

/// The store as a whole: where it is, the session's reach, support tools, copies, session
/// transactions.
public protocol StoreAdministration: AnyObject {
    /// Where the store is, for messages (a path, or PostgreSQL hosts and database).
    var path: String { get }
    /// "SQLite" or "PostgreSQL".
    var engineName: String { get }
    /// What the store did that the console should say after the line (``StoreEvent``).
    func takeEvents() -> [StoreEvent]
    /// Who the session acts for (``Reach``: its scope and crew naming), read-only here: the
    /// session alone sets it (``StoreReachSetting``), before any command reaches the store and
    /// again when it reads its crews again; the store enforces it in every listing and change
    /// and decides each owner's policy with it.
    var reach: Reach { get }
    /// ``reach``'s scope.
    var ownerScope: OwnerScope { get }
    /// Who runs what now (`mkhan expire`), for another console's busy error.
    func setActivity(_ text: String?)

    // Support and the store as a whole
    func check(_ body: (StoreFinding) throws -> Void) throws
    func forEachOwner(_ body: (_ uid: String, _ forms: Int) throws -> Void) throws
    func info() throws -> StoreInfo
    func copy(to destination: CopyDestination, append: Bool, actor: String, progress: (String, Int) -> Void) throws -> StoreCopyReport
    func backup(to path: String) throws -> Int64
    func withSessionTransaction<T>(end: FormStore.SessionEnd, _ body: () throws -> T) throws -> T
    func withRetriedTransaction<T>(_ body: () throws -> T) throws -> T
    var isInSessionTransaction: Bool { get }
    func endSessionReadSnapshot() throws
}

/// Reading forms, their media, notices, the audit trail and the trash, within the session's reach.
public protocol StoreListing: AnyObject {
    // Forms: listing and reading
    func forEachForm(_ filter: FormFilter, _ body: (FormSummary) throws -> Void) throws
    func countForms(_ filter: FormFilter) throws -> Int
    func countForms(by fields: [FormField], _ filter: FormFilter) throws -> [FormCount]
    func workload(_ filter: FormFilter, policies: OwnerPolicies) throws -> [OwnerWorkload]
    func form(_ ref: FormReference, owner: String?) throws -> Form
    func review(_ ref: FormReference, owner: String?) throws -> FormReview
    func mediaData(_ ref: FormReference, fileName: String) throws -> Data
    func forEachMediaFile(of ref: FormReference, fileName: String?, owner: String?,
                          _ body: (MediaSource, MediaFile, Data) throws -> Void) throws -> MediaSource
    func formReferenceSuggestions(prefix: String, owner: String?, scope: FormStore.SuggestionScope, limit: Int) throws -> [String]
    func whereabouts(_ query: FindTarget, limit: Int) throws -> [FormWhereabouts]

    // Notices and audit (reading)
    func notices(for uid: String, unreadOnly: Bool) throws -> [Notice]
    func forEachAuditEntry(_ filter: AuditFilter, _ body: (AuditEntry) throws -> Void) throws
    func forEachTrashedForm(owner: String?, _ body: (TrashedForm) throws -> Void) throws
}

/// Changing forms (each change audited, in its own transaction), expiry and purge, notices read,
/// device folders in and out.
public protocol StoreChanges: AnyObject {
    // Forms: changes
    func move(_ ref: FormReference, to uid: String, actor: String, actorRole: String, note: String?,
              expectedVersion: Int?, policyDefaults: ExpiryPolicy, undoing: MoveResult?) throws -> MoveResult
    /// The moves of a bulk move or an undo told once per technician and foreman: their own
    /// unread notices replaced by one for all.
    func tellOfMoves(_ moves: [MoveResult], actor: String, actorRole: String, note: String?, undone: Bool) throws
    func comment(_ ref: FormReference, text: String, author: String, note: String?, expectedVersion: Int?) throws
        -> ForemanComment
    func submit(_ ref: FormReference, actor: String, note: String?, expectedVersion: Int?) throws -> SubmitResult
    func reopen(_ ref: FormReference, reason: String, actor: String, actorRole: String, allowSubmitted: Bool) throws
        -> ReopenResult

    // Trash, expiry, purge
    func restore(_ ref: FormReference, actor: String, note: String?) throws -> RestoreResult
    func expiryCutoff(days: Int) throws -> ExpiryCutoff
    func expiryCutoffs(_ policies: OwnerPolicies) -> [ExpiryCutoff]
    func countExpirable(_ cutoff: ExpiryCutoff) throws -> Int
    func forEachExpirable(_ cutoff: ExpiryCutoff, _ body: (FormSummary) throws -> Void) throws
    func expire(_ cutoff: ExpiryCutoff, actor: String, note: String?, batchSize: Int,
                _ body: (ExpiredForm) throws -> Void, progress: (Int) -> Void) throws -> Int
    func purgeCutoff(days: Int) throws -> PurgeCutoff
    func purgeCutoffs(_ policies: OwnerPolicies) -> [PurgeCutoff]
    func countPurgeable(_ cutoff: PurgeCutoff) throws -> Int
    func forEachPurgeable(_ cutoff: PurgeCutoff, _ body: (TrashedForm) throws -> Void) throws
    func purge(_ cutoff: PurgeCutoff, actor: String, note: String?, batchSize: Int,
               _ body: (TrashedForm) throws -> Void, progress: (Int) -> Void) throws -> Int

    // Notices read
    func markRead(ids: [Int64], actor: String) throws -> Int
    func markAllRead(for uid: String, actor: String) throws -> Int

    // Device folders
    func importTree(at root: URL, actor: String, limits: ImportLimits) throws -> ImportReport
    func previewImport(at root: URL, limits: ImportLimits) throws -> ImportReport
    func exportTree(to target: URL) throws -> ExportReport
}

/// The expiry and notification policy: the site's, the crews' own, each owner's, and the reminder plan.
public protocol StorePolicy: AnyObject {
    func policy(defaults: ExpiryPolicy) throws -> EffectivePolicy
    func ownerPolicies(defaults: ExpiryPolicy) throws -> OwnerPolicies
    func setPolicy(_ setting: PolicySetting, to text: String, defaults: ExpiryPolicy, actor: String, note: String?) throws
        -> PolicyChange
    func crewPolicies() throws -> [CrewPolicy]
    func setCrewPolicy(crew: String, _ setting: PolicySetting, to text: String?, defaults: ExpiryPolicy, actor: String,
                       note: String?) throws -> PolicyChange
    func forEachReminder(policy: ExpiryPolicy, filter: ReminderFilter, _ body: (Reminder) throws -> Void) throws
}

/// Deliveries to the office and mailed reminders.
public protocol StoreOutbox: AnyObject {
    func dueDeliveries(ignoringBackoff: Bool, limit: Int) throws -> [Delivery]
    func delivery(_ id: Int64) throws -> Delivery
    func forEachDelivery(_ filter: DeliveryFilter, _ body: (Delivery) throws -> Void) throws
    func recordDeliveryTry(_ id: Int64, outcome: DeliveryOutcome) throws -> Delivery
    func retryDeliveries(_ id: Int64?, actor: String, note: String?) throws -> [Delivery]
    func dismissDelivery(_ id: Int64, actor: String, note: String) throws -> Delivery
    func deliveryReview(_ delivery: Delivery) throws -> Result<FormReview, StoreError>
    func withMediaReader<T>(formId: Int64, _ body: (MediaReader) throws -> T) throws -> T
    func sentReminders() throws -> Set<ReminderKey>
    func recordSentReminders(_ keys: [ReminderKey], uid: String) throws
}

extension StoreListing {
    public func forEachForm(_ body: (FormSummary) throws -> Void) throws { try forEachForm(FormFilter(), body) }
    public func countForms() throws -> Int { try countForms(FormFilter()) }
    public func countForms(by field: FormField, _ filter: FormFilter = FormFilter()) throws -> [(value: String, count: Int)] {
        try countForms(by: [field], filter).map { (value: $0.values[0], count: $0.count) }
    }
    public func form(_ ref: FormReference) throws -> Form { try form(ref, owner: nil) }
    public func review(_ ref: FormReference) throws -> FormReview { try review(ref, owner: nil) }
    public func formReferenceSuggestions(prefix: String, owner: String? = nil, scope: FormStore.SuggestionScope = .live) throws
        -> [String] {
        try formReferenceSuggestions(prefix: prefix, owner: owner, scope: scope, limit: 200)
    }
    public func forEachTrashedForm(_ body: (TrashedForm) throws -> Void) throws { try forEachTrashedForm(owner: nil, body) }
    public func notices(for uid: String) throws -> [Notice] { try notices(for: uid, unreadOnly: true) }
    public func forEachAuditEntry(_ body: (AuditEntry) throws -> Void) throws { try forEachAuditEntry(AuditFilter(), body) }
}

extension StoreChanges {
    public func move(_ ref: FormReference, to uid: String, actor: String, actorRole: String = "foreman",
                     note: String? = nil, policyDefaults: ExpiryPolicy) throws -> MoveResult {
        try move(ref, to: uid, actor: actor, actorRole: actorRole, note: note, expectedVersion: nil,
                 policyDefaults: policyDefaults, undoing: nil)
    }
    public func move(_ ref: FormReference, to uid: String, actor: String, actorRole: String, note: String?,
                     expectedVersion: Int?, policyDefaults: ExpiryPolicy) throws -> MoveResult {
        try move(ref, to: uid, actor: actor, actorRole: actorRole, note: note, expectedVersion: expectedVersion,
                 policyDefaults: policyDefaults, undoing: nil)
    }
    public func comment(_ ref: FormReference, text: String, author: String, note: String? = nil) throws -> ForemanComment {
        try comment(ref, text: text, author: author, note: note, expectedVersion: nil)
    }
    public func submit(_ ref: FormReference, actor: String, note: String? = nil) throws -> SubmitResult {
        try submit(ref, actor: actor, note: note, expectedVersion: nil)
    }
    public func reopen(_ ref: FormReference, reason: String, actor: String, actorRole: String = "foreman") throws
        -> ReopenResult {
        try reopen(ref, reason: reason, actor: actor, actorRole: actorRole, allowSubmitted: false)
    }
    public func restore(_ ref: FormReference, actor: String) throws -> RestoreResult { try restore(ref, actor: actor, note: nil) }
    public func expire(_ cutoff: ExpiryCutoff, actor: String, note: String? = nil,
                       _ body: (ExpiredForm) throws -> Void = { _ in }, progress: (Int) -> Void = { _ in }) throws -> Int {
        try expire(cutoff, actor: actor, note: note, batchSize: 1_000, body, progress: progress)
    }
    public func purge(_ cutoff: PurgeCutoff, actor: String, note: String? = nil,
                      _ body: (TrashedForm) throws -> Void = { _ in }, progress: (Int) -> Void = { _ in }) throws -> Int {
        try purge(cutoff, actor: actor, note: note, batchSize: 1_000, body, progress: progress)
    }
    public func importTree(at root: URL, actor: String) throws -> ImportReport {
        try importTree(at: root, actor: actor, limits: .defaults)
    }
    public func previewImport(at root: URL) throws -> ImportReport { try previewImport(at: root, limits: .defaults) }
}

extension StorePolicy {
    public func setPolicy(_ setting: PolicySetting, to text: String, defaults: ExpiryPolicy, actor: String) throws
        -> PolicyChange {
        try setPolicy(setting, to: text, defaults: defaults, actor: actor, note: nil)
    }
    public func forEachReminder(policy: ExpiryPolicy, _ body: (Reminder) throws -> Void) throws {
        try forEachReminder(policy: policy, filter: ReminderFilter(), body)
    }
}

extension StoreOutbox {
    public func dueDeliveries(ignoringBackoff: Bool) throws -> [Delivery] {
        try dueDeliveries(ignoringBackoff: ignoringBackoff, limit: 10_000)
    }
}

extension StoreAdministration {
    public func copy(to destination: CopyDestination, append: Bool, actor: String) throws -> StoreCopyReport {
        try copy(to: destination, append: append, actor: actor) { _, _ in }
    }
}

/// The one way the reach is set: the ``Session`` holds it in its ``StoreAreas`` and sets the
/// reach when it opens the store and whenever it reads its crews again. Commands receive the
/// areas, whose ``StoreAdministration/reach`` they read and cannot set.
public protocol StoreReachSetting: AnyObject {
    func setReach(_ reach: Reach)
}

/// A store that answers every area and the reach's setter (``FormStore``).
public typealias SessionStore = StoreService & StoreReachSetting

extension FormStore: StoreService, StoreReachSetting {}

extension StoreAdministration {
    /// None, for a store that has no events to tell (the fakes of the tests).
    public func takeEvents() -> [StoreEvent] { [] }
}
