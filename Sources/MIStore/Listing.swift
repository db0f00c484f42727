import Foundation

extension FormStore {
    /// Calls `body` with each live form matching `filter`, ordered by owner, name and id.
    ///
    /// Rows stream from an SQLite cursor: a million forms are never in memory at once.
    /// The listing is one consistent snapshot. `body` may call the store: reads made from it see the
    /// same snapshot; changes made from it (a move) commit at once but do not show in the listing.
    /// `olderThanDays` compares `created` with the store clock's now. An `answerText` filter
    /// reads each candidate's questions and decodes them (``AnswerSearch``); the plain listing
    /// never reads that column.
    public func forEachForm(_ filter: FormFilter = FormFilter(), _ body: (FormSummary) throws -> Void) throws {
        let condition = sqlCondition(filter)
        let search = filter.answerText
        try readListing { db in
            try db.forEachRow(literal: """
                SELECT \(SummarySQL.columns)\(search == nil ? "" : ", forms.questions" as StoreSQL) FROM forms \
                WHERE \(condition) ORDER BY owner, name, id
                """) { row in
                if let search, !AnswerSearch.matches(search, questionsJSON: row[SummarySQL.names.count]) { return }
                try body(try Self.summary(row))
            }
        }
    }

    /// How many live forms match `filter`.
    public func countForms(_ filter: FormFilter = FormFilter()) throws -> Int {
        try countForms(by: [], filter).first?.count ?? 0
    }

    /// How many live forms match `filter` for each value of `field`, most first (then by value).
    public func countForms(by field: FormField, _ filter: FormFilter = FormFilter()) throws -> [(value: String, count: Int)] {
        try countForms(by: [field], filter).map { (value: $0.values[0], count: $0.count) }
    }

    /// How many live forms match `filter` for each combination of values of `fields` (`owner`
    /// and `state`: one row per owner and state that has forms), most first, then by the values
    /// in the order of `fields`. No fields: one row, the total (0 included).
    public func countForms(by fields: [FormField], _ filter: FormFilter = FormFilter()) throws -> [FormCount] {
        let condition = sqlCondition(filter)
        let columns = fields.enumerated().map { "\(identifier: $0.element.rawValue) AS \(identifier: "v\($0.offset)")" as StoreSQL }
        let groups = StoreSQL(identifiers: fields.map(\.rawValue))
        let counts: [FormCount] = try readListing { db in
            guard let search = filter.answerText else {
                let sql: StoreSQL
                if fields.isEmpty {
                    sql = "SELECT COUNT(*) AS count FROM forms WHERE \(condition)"
                } else {
                    sql = """
                        SELECT \(columns.joined(separator: ", ")), COUNT(*) AS count FROM forms \
                        WHERE \(condition) GROUP BY \(groups)
                        """
                }
                return try db.rows(literal: sql).map { row in
                    FormCount(values: fields.indices.map { row["v\($0)"] }, count: row["count"])
                }
            }
            // The answers are decoded in Swift: the groups are counted here too.
            var counted: [[String]: Int] = [:]
            try db.forEachRow(literal: """
                SELECT \((columns + ["questions"]).joined(separator: ", ")) FROM forms WHERE \(condition)
                """) { row in
                guard AnswerSearch.matches(search, questionsJSON: row["questions"]) else { return }
                counted[fields.indices.map { row["v\($0)"] }, default: 0] += 1
            }
            if fields.isEmpty && counted.isEmpty { return [FormCount(values: [], count: 0)] }
            return counted.map { FormCount(values: $0.key, count: $0.value) }
        }
        return counts.sorted(by: FormCount.mostFirst)
    }

    /// The `WHERE` clause of a listing: live forms matching `filter`, within the session's reach.
    func sqlCondition(_ filter: FormFilter) -> StoreSQL {
        let now = clock.now()
        var query = formQuery(ownerColumn: "owner")
        query.add("trashed_at IS NULL")
        if let owners = filter.owners {
            query.add(OwnerSelection.only(owners))
        }
        if let owner = filter.owner {
            query.add("owner = \(owner.nfc)")
        }
        if let state = filter.state {
            query.add("state = \(state.rawValue)")
        }
        if let template = filter.template {
            query.add("template = \(template)")
        }
        if let days = filter.olderThanDays {
            query.add("created_utc < \(Expiry.cutoff(days, before: now).timeIntervalSince1970)")
        }
        if let since = filter.modifiedSince {
            query.add("modified_utc >= \(since.timeIntervalSince1970)")
        }
        if let pattern = filter.namePattern {
            query.add("lower(name) LIKE \(LikePattern.glob(pattern.nfc)) ESCAPE '\\'")
        }
        if let text = filter.answerText, let like = AnswerSearch.likePrefilter(text) {
            query.add("lower(questions) LIKE \(like) ESCAPE '\\'")
        }
        return query.condition
    }

    /// The form of a row whose first columns are ``SummarySQL/columns``, read by position: a
    /// listing reads a million rows, and a lookup by name hashes the name every time.
    static func summary(_ row: StoreRow) throws -> FormSummary {
        assert(Array(row.columns.names.prefix(SummarySQL.names.count)) == SummarySQL.names,
               "a summary row must start with SummarySQL.columns, not \(row.columns.names)")
        let stateText: String = row[3]
        guard let state = FormState(rawValue: stateText) else {
            throw StoreError(.database, "Form \(row[0] as Int64) has an unknown state '\(stateText)'.")
        }
        return FormSummary(
            id: row[0], owner: row[1], name: row[2], state: state, template: row[4],
            created: Timestamp(storedText: row[5], date: Date(timeIntervalSince1970: row[6])),
            modified: Timestamp(storedText: row[7], date: Date(timeIntervalSince1970: row[8])),
            mediaCount: row[10], version: row[9],
            expiryResetAt: (row[11] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

/// The columns of a form's summary, first in every statement ``FormStore/summary(_:)`` reads
/// (listings, trash, purge, expiry, reminders), in this order.
enum SummarySQL {
    static let columns: StoreSQL = """
        forms.id, forms.owner, forms.name, forms.state, forms.template, forms.created, forms.created_utc, \
        forms.modified, forms.modified_utc, forms.version, \
        (SELECT COUNT(*) FROM media WHERE media.form_id = forms.id) AS media_count, forms.expiry_reset_at
        """

    /// The result's names of ``columns``, by position.
    static let names = ["id", "owner", "name", "state", "template", "created", "created_utc", "modified",
                        "modified_utc", "version", "media_count", "expiry_reset_at"]
}

/// A form column listings can group by (`forms --count-by`).
public enum FormField: String, CaseIterable, Sendable {
    case owner, state, template
}

/// One group of ``FormStore/countForms(by:_:)-([FormField],_)``: the values of the fields
/// counted by, in their order, and how many forms have them.
public struct FormCount: Sendable, Hashable {
    public var values: [String]
    public var count: Int

    public init(values: [String], count: Int) {
        self.values = values
        self.count = count
    }

    /// Most first, then by the values (code point order, as the store sorts).
    public static func mostFirst(_ a: FormCount, _ b: FormCount) -> Bool {
        if a.count != b.count { return a.count > b.count }
        return a.values.lexicographicallyPrecedes(b.values) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
