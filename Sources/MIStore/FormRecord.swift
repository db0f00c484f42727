import Foundation

/// One `forms` row, the bridge between SQL and the model types. Internal.
struct FormRecord: Sendable {
    static let columns: StoreSQL = """
        forms.id, forms.owner, forms.name, forms.template, forms.template_id, forms.state, \
        forms.created, forms.created_utc, forms.modified, forms.modified_utc, forms.questions, \
        forms.extra, forms.version, forms.expiry_reset_at
        """

    let id: Int64
    let owner: String
    let name: String
    let template: String
    let templateId: String
    let state: FormState
    let created: Timestamp
    let modified: Timestamp
    let questionsJSON: String
    let extraJSON: String?
    let version: Int
    /// The last restart of the form's expiry clock (move, restore, reopen), if any.
    let expiryResetAt: Double?

    init(row: StoreRow) throws {
        id = row["id"]
        owner = row["owner"]
        name = row["name"]
        template = row["template"]
        templateId = row["template_id"]
        let stateText: String = row["state"]
        guard let state = FormState(rawValue: stateText) else {
            throw StoreError(.database, "Form \(row["id"] as Int64) has an unknown state '\(stateText)'.")
        }
        self.state = state
        created = Timestamp(storedText: row["created"], date: Date(timeIntervalSince1970: row["created_utc"]))
        modified = Timestamp(storedText: row["modified"], date: Date(timeIntervalSince1970: row["modified_utc"]))
        questionsJSON = row["questions"]
        extraJSON = row["extra"]
        version = row["version"]
        expiryResetAt = row["expiry_reset_at"]
    }

    /// "form 12 jdoe/Pump station 4": how audit rows and messages name a form.
    var label: String { "form \(id) \(owner)/\(name)" }

    /// Throws `.conflict` when the caller saw another version of the form than the store holds.
    func check(expectedVersion: Int?) throws {
        guard let expectedVersion, expectedVersion != version else { return }
        throw StoreError(.conflict, "Form \(id) changed since you read it (you saw version \(expectedVersion), "
            + "it is now version \(version)): it is now '\(name)' of \(owner), \(state). Look again and retry.")
    }

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

    /// Where this live form's expiry clock starts, as the store holds it now (``Expiry``).
    /// `restartedAt`: the clock's restart the caller has just written (a move under
    /// `expiryFrom: assigned`), which the record read before it does not hold.
    func clockStart(restartedAt: Double? = nil) -> Date {
        Expiry.clockStart(created: created.date,
                          restartedAt: (restartedAt ?? expiryResetAt).map(Date.init(timeIntervalSince1970:)))
    }

    /// Owner, name, state and version as JSON: the "before"/"after" of most audit rows.
    var summaryJSON: JSONValue { Self.summary(owner: owner, name: name, state: state, version: version) }

    static func summary(owner: String, name: String, state: FormState, version: Int) -> JSONValue {
        .object(JSONObject([("owner", .string(owner)), ("name", .string(name)), ("state", .string(state.rawValue)),
                            ("version", .integer(version))]))
    }
}
