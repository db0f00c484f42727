import Foundation

extension FormStore {
    /// Calls `body` with each live form matching `filter`, ordered by owner, name and id.
    ///
    /// Rows stream from an SQLite cursor: a million forms are never in memory at once.
    /// The listing is one consistent snapshot. `body` may call the store: reads made from it see the
    /// same snapshot; changes made from it (a move) commit at once but do not show in the listing.
    /// `olderThanDays` compares `created` with the store clock's now.
    public func forEachForm(_ filter: FormFilter = FormFilter(), _ body: (FormSummary) throws -> Void) throws {
        let (whereClause, arguments) = sqlCondition(filter)
        try readListing { db in
            try db.forEachRow("""
                SELECT \(SummarySQL.columns) FROM forms WHERE \(whereClause) ORDER BY owner, name, id
                """, arguments) { row in
                try body(try Self.summary(row))
            }
        }
    }

    /// How many live forms match `filter`.
    public func countForms(_ filter: FormFilter = FormFilter()) throws -> Int {
        let (whereClause, arguments) = sqlCondition(filter)
        return try readListing { db in
            try db.value(Int.self, "SELECT COUNT(*) FROM forms WHERE \(whereClause)", arguments) ?? 0
        }
    }

    /// How many live forms match `filter` for each value of `field`, most first (then by value).
    public func countForms(by field: FormField, _ filter: FormFilter = FormFilter()) throws -> [(value: String, count: Int)] {
        let (whereClause, arguments) = sqlCondition(filter)
        let column = field.rawValue  // one of three fixed column names, never user text
        return try readListing { db in
            try db.rows("""
                SELECT \(column) AS value, COUNT(*) AS count FROM forms WHERE \(whereClause)
                GROUP BY \(column) ORDER BY count DESC, value
                """, arguments).map { (value: $0["value"], count: $0["count"]) }
        }
    }

    /// The `WHERE` clause of a listing: live forms matching `filter`, within ``ownerScope``.
    func sqlCondition(_ filter: FormFilter) -> (String, StoreArguments) {
        let now = clock.now()
        var conditions = ["trashed_at IS NULL"]
        var arguments: StoreArguments = []
        addScope("owner", to: &conditions, &arguments)
        if let owners = filter.owners {
            add(OwnerScope(owners: owners, crews: []), on: "owner", to: &conditions, &arguments)
        }
        if let owner = filter.owner {
            conditions.append("owner = ?")
            arguments += [owner.nfc]
        }
        if let state = filter.state {
            conditions.append("state = ?")
            arguments += [state.rawValue]
        }
        if let template = filter.template {
            conditions.append("template = ?")
            arguments += [template]
        }
        if let days = filter.olderThanDays {
            conditions.append("created_utc < ?")
            arguments += [now.timeIntervalSince1970 - Double(days) * 86_400]
        }
        return (conditions.joined(separator: " AND "), arguments)
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
            mediaCount: row[10], version: row[9])
    }
}

/// The columns of a form's summary, first in every statement ``FormStore/summary(_:)`` reads
/// (listings, trash, purge, expiry, reminders), in this order.
enum SummarySQL {
    static let columns = """
        forms.id, forms.owner, forms.name, forms.state, forms.template, forms.created, forms.created_utc, \
        forms.modified, forms.modified_utc, forms.version, \
        (SELECT COUNT(*) FROM media WHERE media.form_id = forms.id) AS media_count
        """

    /// The result's names of ``columns``, by position.
    static let names = ["id", "owner", "name", "state", "template", "created", "created_utc", "modified",
                        "modified_utc", "version", "media_count"]
}

/// A form column listings can group by (`forms --count-by`).
public enum FormField: String, CaseIterable, Sendable {
    case owner, state, template
}
