import Foundation

/// One `forms` row, the bridge between SQL and the model types. Internal.
struct FormRecord: Sendable {
    static let columns: StoreSQL = """
        forms.id, forms.owner, forms.name, forms.template, forms.template_id, forms.state, \
        forms.created, forms.created_utc, forms.modified, forms.modified_utc, forms.questions, \
        forms.extra, forms.version, forms.expiry_reset_at
        """

    /// Where the form is and what state it is in.
    let head: FormHead
    let template: String
    let templateId: String
    let created: Timestamp
    let modified: Timestamp
    let questionsJSON: String
    let extraJSON: String?

    var id: Int64 { head.id }
    var owner: String { head.owner }
    var name: String { head.name }
    var state: FormState { head.state }
    var version: Int { head.version }
    /// The last restart of the form's expiry clock (move, restore, reopen), if any.
    var expiryResetAt: Double? { head.expiryResetAt }

    init(row: StoreRow) throws {
        head = try FormHead(row: row)
        template = row["template"]
        templateId = row["template_id"]
        created = Timestamp(storedText: row["created"], date: Date(timeIntervalSince1970: row["created_utc"]))
        modified = Timestamp(storedText: row["modified"], date: Date(timeIntervalSince1970: row["modified_utc"]))
        questionsJSON = row["questions"]
        extraJSON = row["extra"]
    }

    /// "form 12 jdoe/Pump station 4": how audit rows and messages name a form.
    var label: String { head.label }

    /// Throws `.conflict` when the caller saw another version of the form than the store holds.
    func check(expectedVersion: Int?) throws { try head.check(expectedVersion: expectedVersion) }

    func document(foremanComments: [ForemanComment]) throws -> FormDocument {
        try FormDocument(name: name, template: template, templateId: templateId, created: created, modified: modified,
                         questionsJSON: questionsJSON, extraJSON: extraJSON,
                         foremanComments: foremanComments.isEmpty ? nil : foremanComments.map(\.text).joined(separator: "\n"))
    }

    /// `modified` follows every change the console makes (move, submit, comment, reopen, restore,
    /// expire), not only the device's saves: the SET clause, its arguments in it.
    /// The text is UTC (`2026-11-24T05:38:00Z`); the device writes its own zone.
    static func touching(_ now: Double) -> StoreSQL {
        "modified = \(Date(timeIntervalSince1970: now).iso8601), modified_utc = \(now)"
    }

    /// Where this live form's expiry clock starts (``FormHead/clockStart(restartedAt:)``).
    func clockStart(restartedAt: Double? = nil) -> Date { head.clockStart(restartedAt: restartedAt) }

    /// Owner, name, state and version as JSON: the "before"/"after" of most audit rows.
    var summaryJSON: JSONValue { head.summaryJSON }

    static func summary(owner: String, name: String, state: FormState, version: Int) -> JSONValue {
        .object(JSONObject([("owner", .string(owner)), ("name", .string(name)), ("state", .string(state.rawValue)),
                            ("version", .integer(version))]))
    }
}
