import Foundation

/// A submitted form version waiting for, or done with, delivery to the office (`outbox` table).
public struct Delivery: Sendable, Hashable {
    public enum State: String, Sendable, CaseIterable {
        /// Waiting for its next try (`nextTry`).
        case queued
        /// The office took it (2xx).
        case sent
        /// Not tried again until `deliveries retry`: the office refused it, the tries ran out, or
        /// the form was reopened before it went out.
        case held
    }

    public let id: Int64
    public let formId: Int64
    /// The form version submitted; what is sent is the form as it is at that version.
    public let formVersion: Int
    public let owner: String
    public let name: String
    /// The same on every try of this form version: the office drops repeats by it.
    public let idempotencyKey: String
    public let state: State
    public let attempts: Int
    public let queuedAt: Date
    public let lastTry: Date?
    public let nextTry: Date
    public let sentAt: Date?
    public let lastError: String?
}

/// What the caller learnt from one try (``FormStore/recordDeliveryTry(_:outcome:)``).
public enum DeliveryOutcome: Sendable, Equatable {
    /// The office took it.
    case sent
    /// Try again at this time (the backoff or the office's Retry-After); `error` says why not now.
    case retry(at: Date, error: String)
    /// Stop trying: the office refused it, or the tries ran out.
    case held(error: String)
}

/// Which deliveries ``FormStore/forEachDelivery(state:form:_:)`` lists; nil fields do not filter.
public struct DeliveryFilter: Sendable, Hashable {
    public var state: Delivery.State?
    public var formId: Int64?
    public init(state: Delivery.State? = nil, formId: Int64? = nil) {
        self.state = state
        self.formId = formId
    }
}

/// The outbox: rows written in the same transaction as the change that causes them (the
/// transactional outbox pattern), so a crash can neither lose a delivery nor send one that was
/// rolled back.
enum Outbox {
    static let columns: StoreSQL = """
        id, form_id, form_version, owner, name, idempotency_key, state, attempts, queued_at, last_try, next_try,
        sent_at, last_error
        """

    /// Queues a form version (a statement for the caller's transaction). The key is random,
    /// made once, stored with the row and sent on every try.
    static func enqueuing(formId: Int64, version: Int, owner: String, name: String, at now: Double) -> StoreStatement {
        let key = "mi-form-\(formId)-v\(version)-\(UUID().uuidString.lowercased())"
        return StoreStatement(literal: """
            INSERT INTO outbox (form_id, form_version, owner, name, idempotency_key, state, attempts, queued_at, next_try)
            VALUES (\(formId), \(version), \(owner), \(name), \(key), 'queued', 0, \(now), \(now))
            ON CONFLICT (form_id, form_version) DO NOTHING
            """)
    }

    static func delivery(_ row: StoreRow) -> Delivery {
        func date(_ name: String) -> Date? { (row[name] as Double?).map(Date.init(timeIntervalSince1970:)) }
        return Delivery(id: row["id"], formId: row["form_id"], formVersion: row["form_version"], owner: row["owner"],
                        name: row["name"], idempotencyKey: row["idempotency_key"],
                        state: Delivery.State(rawValue: row["state"]) ?? .held, attempts: row["attempts"],
                        queuedAt: date("queued_at")!, lastTry: date("last_try"), nextTry: date("next_try")!,
                        sentAt: date("sent_at"), lastError: row["last_error"])
    }

    /// The query for when the form's latest delivery went out; ``lastSent(_:)`` reads its rows.
    static func lastSentQuery(formId: Int64) -> StoreStatement {
        StoreStatement(literal: "SELECT MAX(sent_at) FROM outbox WHERE form_id = \(formId) AND state = 'sent'")
    }

    /// The time in ``lastSentQuery(formId:)``'s rows; nil when nothing went out.
    static func lastSent(_ rows: [StoreRow]) -> Date? {
        rows.first.flatMap { Double.fromStoreValue($0.values[0]) }.map(Date.init(timeIntervalSince1970:))
    }

    /// Holds the form's queued deliveries: it was reopened before they went out. One row (the
    /// delivery's id) per delivery held: a batch gives rows back, not counts.
    static func withdrawing(formId: Int64, reason: String) -> StoreStatement {
        StoreStatement(literal: """
            UPDATE outbox SET state = 'held', last_error = \(reason) WHERE form_id = \(formId) AND state = 'queued' RETURNING id
            """)
    }
}

extension FormStore {
    /// True inside `--atomic` or `--dry-run` (``withSessionTransaction(end:_:)``): what is
    /// written may still be rolled back, so nothing should leave the machine on its strength.
    public var isInSessionTransaction: Bool { SessionConnection.of(self) != nil }

    /// The queued deliveries due now (next try at or before the store clock's now), oldest first;
    /// with `ignoringBackoff`, every queued one.
    public func dueDeliveries(ignoringBackoff: Bool = false, limit: Int = 10_000) throws -> [Delivery] {
        let now = nowSeconds()
        return try read { db in
            let due: StoreSQL = ignoringBackoff ? "" : " AND next_try <= \(now)"
            return try db.rows(literal: """
                SELECT \(Outbox.columns) FROM outbox WHERE state = 'queued'\(due) ORDER BY next_try, id LIMIT \(limit)
                """).map(Outbox.delivery)
        }
    }

    /// One delivery by id.
    ///
    /// - Throws: `.notFound`; `.forbidden` for a form owner outside ``ownerScope``.
    public func delivery(_ id: Int64) throws -> Delivery {
        try read { db in try scopedDelivery(id, in: db) }
    }

    /// The delivery `id`, its owner checked against ``ownerScope`` (the owner the form had
    /// when it was submitted, as the outbox keeps it).
    private func scopedDelivery(_ id: Int64, in db: any StoreDatabase) throws -> Delivery {
        guard let row = try db.row(literal: "SELECT \(Outbox.columns) FROM outbox WHERE id = \(id)") else {
            throw StoreError(.notFound, "No delivery with id \(id).")
        }
        let delivery = Outbox.delivery(row)
        try ownerScope.check(delivery.owner)
        return delivery
    }

    /// Deliveries by id, newest last, streamed; only those of owners inside ``ownerScope``.
    public func forEachDelivery(_ filter: DeliveryFilter = DeliveryFilter(), _ body: (Delivery) throws -> Void) throws {
        try read { db in
            // The owner a delivery's form had when it was submitted, as the outbox keeps it.
            var query = formQuery(ownerColumn: "owner")
            if let state = filter.state { query.add("state = \(state.rawValue)") }
            if let formId = filter.formId { query.add("form_id = \(formId)") }
            try db.forEachRow(literal: "SELECT \(Outbox.columns) FROM outbox WHERE \(query.condition) ORDER BY id") { row in
                try body(Outbox.delivery(row))
            }
        }
    }

    /// Records one try of a queued delivery in its own small transaction: attempts + 1, the time
    /// and the outcome. A delivery no longer queued (held by a reopen meanwhile, or sent by
    /// another `deliver`) keeps its state, except that `sent` always wins: the office has it.
    ///
    /// - Returns: the delivery afterwards.
    @discardableResult
    public func recordDeliveryTry(_ id: Int64, outcome: DeliveryOutcome) throws -> Delivery {
        let now = nowSeconds()
        return try write { db in
            switch outcome {
            case .sent:
                try db.execute(literal: """
                    UPDATE outbox SET state = 'sent', attempts = attempts + 1, last_try = \(now), sent_at = \(now), last_error = NULL
                    WHERE id = \(id) AND state <> 'sent'
                    """)
            case .retry(let at, let error):
                try db.execute(literal: """
                    UPDATE outbox SET attempts = attempts + 1, last_try = \(now), next_try = \(at.timeIntervalSince1970), last_error = \(error)
                    WHERE id = \(id) AND state = 'queued'
                    """)
            case .held(let error):
                try db.execute(literal: """
                    UPDATE outbox SET state = 'held', attempts = attempts + 1, last_try = \(now), last_error = \(error)
                    WHERE id = \(id) AND state = 'queued'
                    """)
            }
            guard let row = try db.row(literal: "SELECT \(Outbox.columns) FROM outbox WHERE id = \(id)") else {
                throw StoreError(.notFound, "No delivery with id \(id).")
            }
            return Outbox.delivery(row)
        }
    }

    /// Puts held deliveries back in the queue, due now with their tries counted from zero:
    /// the one `id`, or every held one inside ``ownerScope`` (`id` nil). Audited
    /// (`deliveries.retry`).
    ///
    /// - Returns: the deliveries queued again.
    /// - Throws: `.notFound` for an unknown id; `.forbidden` for one outside ``ownerScope``;
    ///   `.invalidState` when that delivery is not held.
    public func retryDeliveries(_ id: Int64?, actor: String, note: String? = nil) throws -> [Delivery] {
        let actor = try Validate.name(actor, what: "actor")
        let now = nowSeconds()
        return try write { db in
            var held: [Delivery]
            if let id {
                let delivery = try scopedDelivery(id, in: db)
                guard delivery.state == .held else {
                    throw StoreError(.invalidState, "Delivery \(id) of form \(delivery.formId) is \(delivery.state.rawValue), "
                                     + "not held: only held deliveries are put back in the queue.")
                }
                held = [delivery]
            } else {
                let query = formQuery(ownerColumn: "owner").adding("state = 'held'")
                held = try db.rows(literal: "SELECT \(Outbox.columns) FROM outbox WHERE \(query.condition) ORDER BY id")
                    .map(Outbox.delivery)
            }
            for delivery in held {
                try db.execute(literal: "UPDATE outbox SET state = 'queued', attempts = 0, next_try = \(now) WHERE id = \(delivery.id)")
                try audit(db, at: now, actor: actor, command: "deliveries.retry", formId: delivery.formId,
                                 object: "form \(delivery.formId) \(delivery.owner)/\(delivery.name)",
                                 before: .object(JSONObject([("delivery", .integer(Int(delivery.id))), ("state", .string("held"))])),
                                 after: .object(JSONObject([("delivery", .integer(Int(delivery.id))), ("state", .string("queued"))])),
                                 note: note)
            }
            return held
        }
    }

    /// Ends the held delivery `id` without sending it (a reopened form's version that will not
    /// be sent, an office that will never take it): it leaves the outbox, and its audit row
    /// (`deliveries.dismiss`) keeps what it was, why it was held and `note`.
    ///
    /// - Returns: the delivery as it was.
    /// - Throws: `.notFound` for an unknown id; `.forbidden` for one outside ``ownerScope``;
    ///   `.invalidState` when it is not held (a queued one may still go, a sent one went).
    public func dismissDelivery(_ id: Int64, actor: String, note: String) throws -> Delivery {
        let actor = try Validate.name(actor, what: "actor")
        let now = nowSeconds()
        return try write { db in
            let delivery = try scopedDelivery(id, in: db)
            guard delivery.state == .held else {
                throw StoreError(.invalidState, "delivery \(id) of form \(delivery.formId) is \(delivery.state.rawValue), not held: "
                                 + "only a held delivery is dismissed")
            }
            try db.execute(literal: "DELETE FROM outbox WHERE id = \(id) AND state = 'held'")
            let before = JSONObject([("delivery", .integer(Int(id))), ("version", .integer(delivery.formVersion)),
                                     ("state", .string("held")), ("lastError", delivery.lastError.map(JSONValue.string) ?? .null)])
            try audit(db, at: now, actor: actor, command: "deliveries.dismiss", formId: delivery.formId,
                      object: "form \(delivery.formId) \(delivery.owner)/\(delivery.name)", before: .object(before),
                      after: .object(JSONObject([("delivery", .integer(Int(id))), ("state", .string("dismissed"))])), note: note)
            return delivery
        }
    }
}

