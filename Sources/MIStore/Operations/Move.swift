import Foundation

/// What ``FormStore/move(_:to:actor:note:expectedVersion:)`` did.
public struct MoveResult: Sendable, Hashable {
    public let formId: Int64
    public let fromOwner: String
    public let toOwner: String
    /// The name before the move.
    public let oldName: String
    /// The name after the move: `oldName`, or `Base (k)` when the new owner already had that name.
    public let newName: String
    /// The form's version after the move (unchanged for a no-op).
    public let version: Int
    /// False when the form already belonged to the target: nothing changed, nothing audited.
    public let moved: Bool
    /// The notice left for the old owner (nil for a no-op).
    public let noticeId: Int64?
    /// The notice left for the new owner (nil for a no-op).
    public let receiverNoticeId: Int64?
    /// The notices left for the foremen of the crews the form left or came into, by foreman.
    public var crewNoticeIds: [String: Int64] = [:]
    /// When the form expires now, under its new owner's policy (``OwnerPolicies``): a move
    /// restarts its clock unless that policy counts from `created` (``ExpiryStart``).
    public let expires: Date
    /// The form's clock restart before the move (`expiry_reset_at`; nil: it counted from
    /// `created`): what an undo gives back.
    public var clockRestartBefore: Date? = nil

    public var renamed: Bool { oldName != newName }
}

extension FormStore {
    /// Reassigns an incomplete form to technician `uid` (the foreman's swipe on the device).
    ///
    /// In one IMMEDIATE transaction: the form gets its new owner (renamed `Base (k)` if `uid` already
    /// has a live form of that name), its version goes up by one, the old owner gets the notice
    /// `Form 'X' was reassigned to UID as 'X (2)' by support S: NOTE` and the new owner
    /// `Form 'X (2)' (was 'X') was given to you from OLD by support S: NOTE`, and an audit row
    /// records owner and name before and after. The form's `modified` becomes now, and with the
    /// policy's ``ExpiryStart/assigned`` (the default) its expiry counts from now too
    /// (`expiry_reset_at`, as restore and reopen set it). Checking that `uid` exists and is a technician is
    /// the caller's job; so is `actorRole`, the role the actor acted in (`foreman`, `support`),
    /// which the notices name.
    ///
    /// - Parameters:
    ///   - expectedVersion: the version the caller saw (from ``form(_:)`` or a listing). If the form
    ///     changed since, the move throws `.conflict` naming the current owner. Use an `.id`
    ///     reference with it: an `owner/name` reference follows the name, not the form.
    ///   - policyDefaults: the console's policy (its config); the store's own values win, read
    ///     inside the move's transaction.
    ///   - undoing: the move this one takes back (`undo`): the form gets the name it had before it
    ///     (renamed `Base (k)` like any other when `uid` holds it) and the expiry clock it had before
    ///     it, whatever the policy, and both technicians' notices say the move was undone.
    ///   The notices of a move that is one of many (a bulk move, an undo) are made one for all
    ///   afterwards by ``tellOfMoves(_:actor:actorRole:note:undone:)``; until then each move's own
    ///   are in the store with it, so a run that stops or dies part-way leaves none untold.
    /// - Throws: `.notFound`; `.invalidState` unless the form is incomplete; `.conflict`;
    ///   `.invalidInput` for a malformed uid or actor; `.busy`.
    @discardableResult
    public func move(_ ref: FormReference, to uid: String, actor: String, actorRole: String = "foreman",
                     note: String? = nil, expectedVersion: Int? = nil,
                     policyDefaults: ExpiryPolicy = .defaults, undoing: MoveResult? = nil) throws -> MoveResult {
        let uid = try Validate.uid(uid)
        let actor = try Validate.name(actor, what: "actor")
        let preferredName = try undoing.map { try Validate.name($0.oldName, what: "form name") }
        let result: MoveResult = try write { db in
            // On PostgreSQL the form's place and the target's names are looked up outside the
            // transaction, in the round trip of its BEGIN, and the policy's rows come with them.
            let lookup = moveLookup(ref, to: uid, preferredName: preferredName, in: db)
            let policyRows = db.readAhead(Self.policyQuery)
            try formQuery().checkOwner(of: ref)
            let found = try lookup.flatMap { MoveLookup(rows: try $0.rows()) }
            let formAtPlace = try found.flatMap { try formHead(at: $0, in: db) }
            // The lookup holds only while the form is the row version it found.
            let held = formAtPlace == nil ? nil : found
            // Without the form's content: a move changes only who holds it and its name.
            let form = try formAtPlace ?? formQuery().findHead(ref, in: db)
            // The target must be in the crews too: a foreman hands work on inside his crews only.
            try ownerScope.check(uid)
            try form.check(expectedVersion: expectedVersion)
            guard form.state == .incomplete else {
                throw StoreError(.invalidState, "Form \(form.id) '\(form.name)' of \(form.owner) is \(form.state); "
                    + "only incomplete forms can be moved.")
            }
            // The receiver's policy: his crew's own values where it has some.
            let policies = try ownerPolicies(defaults: policyDefaults, from: policyRows.rows())
            let policy = policies.policy(for: uid)
            let now = nowSeconds()
            guard form.owner != uid else {
                return MoveResult(formId: form.id, fromOwner: form.owner, toOwner: uid, oldName: form.name,
                                  newName: form.name, version: form.version, moved: false, noticeId: nil,
                                  receiverNoticeId: nil, expires: policies.expires(owner: uid, clockStart: form.clockStart()))
            }
            let newName = try held.map { FormNames.freeName(for: preferredName ?? form.name, taken: $0.taken) }
                ?? FormNames.freeName(for: preferredName ?? form.name, owner: uid, in: db)
            // An undo gives the clock back as it was; a move restarts it under `expiry-from assigned`.
            let clockRestart: Double?
            if let undoing {
                clockRestart = undoing.clockRestartBefore?.timeIntervalSince1970
            } else {
                clockRestart = policy.expiryFrom == .assigned ? now : form.expiryResetAt
            }
            let expires = policies.expires(owner: uid, clockStart: Expiry.clockStart(
                created: Date(timeIntervalSince1970: form.createdUTC), restartedAt: clockRestart.map(Date.init(timeIntervalSince1970:))))
            // The row where it was read: at its place (no index read, see MoveLookup), or by id.
            let theRow: StoreSQL = held.map { "ctid = CAST(\($0.place) AS tid) AND id = \(form.id)" } ?? "id = \(form.id)"
            // The update, the notices and the audit row need none of each other's results: one
            // batch (on PostgreSQL one round trip instead of four or more).
            var statements = [StoreStatement(literal: """
                UPDATE forms SET owner = \(uid), name = \(newName), version = version + 1, \(FormRecord.touching(now)),
                                 expiry_reset_at = \(clockRestart)
                WHERE \(theRow) AND version = \(form.version)
                """),
                Notices.adding(uid: form.owner,
                               text: undoing == nil
                                   ? Notices.reassigned(formName: form.name, newName: newName, to: uid, by: actor,
                                                        role: actorRole, reason: note)
                                   : Notices.undoneAway(formName: form.name, newName: newName, to: uid, by: actor,
                                                        role: actorRole, reason: note),
                               source: undoing == nil ? Notice.sourceMove : Notice.sourceUndo, formId: form.id, at: now),
                Notices.adding(uid: uid,
                               text: undoing == nil
                                   ? Notices.received(formName: newName, oldName: form.name, from: form.owner,
                                                      by: actor, role: actorRole, reason: note)
                                   : Notices.undoneBack(formName: newName, oldName: form.name, from: form.owner,
                                                        by: actor, role: actorRole, reason: note),
                               source: undoing == nil ? Notice.sourceMoveReceived : Notice.sourceUndo, formId: form.id,
                               at: now)]
            var foremenTold: [String] = []
            if let naming = crewNaming {
                // The foremen of the crews the form leaves or comes into hear of it, each once.
                for told in try naming.foremenToTell(movedFrom: form.owner, to: uid, actor: actor) {
                    foremenTold.append(told.foreman)
                    statements.append(Notices.adding(uid: told.foreman,
                                                     text: Notices.movedForCrew(formName: newName, told, to: uid,
                                                                                from: form.owner, by: actor, role: actorRole,
                                                                                reason: note),
                                                     source: Notice.sourceMoveIntoCrew, formId: form.id, at: now))
                }
            }
            // Before and after carry the expiry, so the audit trail shows what the move did to the clock.
            var before = form.summaryJSON.objectValue
            before["expires"] = .string(policies.expires(owner: form.owner, clockStart: form.clockStart()).iso8601)
            var after = FormRecord.summary(owner: uid, name: newName, state: form.state, version: form.version + 1).objectValue
            after["expires"] = .string(expires.iso8601)
            statements.append(try auditing(at: now, actor: actor, command: "move", formId: form.id, object: form.label,
                                           before: .object(before), after: .object(after), note: note))
            let results: [[StoreRow]]
            do {
                results = try db.batch(statements)
            } catch let error as StoreError where error.isUniqueViolation {
                // Only the update can break a unique index (the live name). On PostgreSQL the
                // engine runs the move again (sqlState kept), and it then sees the other form and
                // picks the next free name. A serialization failure passes on as what it is.
                throw StoreError(.conflict, "\(uid) got a form named '\(newName)' at the same moment; try the move again.",
                                 sqlState: error.sqlState)
            }
            var crewNoticeIds: [String: Int64] = [:]
            for (index, foreman) in foremenTold.enumerated() { crewNoticeIds[foreman] = try results[3 + index].insertedId() }
            return MoveResult(formId: form.id, fromOwner: form.owner, toOwner: uid, oldName: form.name, newName: newName,
                              version: form.version + 1, moved: true, noticeId: try results[1].insertedId(),
                              receiverNoticeId: try results[2].insertedId(), crewNoticeIds: crewNoticeIds, expires: expires,
                              clockRestartBefore: form.expiryResetAt.map(Date.init(timeIntervalSince1970:)))
        }
        if result.moved {
            logger.info("form moved", metadata: ["form": "\(result.formId)", "from": "\(result.fromOwner)",
                                                 "to": "\(result.toOwner)", "name": "\(result.newName)", "actor": "\(actor)"])
        }
        return result
    }
}
