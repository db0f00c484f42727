import Foundation

/// The columns of a `forms` row that say whose form it is, its name, state and version and when
/// its expiry clock starts, without its content (template, questions, extra): what a move
/// reads. A form's questions and extra JSON run to megabytes; a move needs none of it. Internal.
struct FormHead: Sendable {
    static let columns: StoreSQL = """
        forms.id, forms.owner, forms.name, forms.state, forms.created_utc, forms.version, forms.expiry_reset_at
        """

    let id: Int64
    let owner: String
    let name: String
    let state: FormState
    /// `created` as seconds since 1970 (the device's text of it is not read).
    let createdUTC: Double
    let version: Int
    /// The last restart of the form's expiry clock (move, restore, reopen), if any.
    let expiryResetAt: Double?

    init(row: StoreRow) throws {
        id = row["id"]
        owner = row["owner"]
        name = row["name"]
        let stateText: String = row["state"]
        guard let state = FormState(rawValue: stateText) else {
            throw StoreError(.database, "Form \(row["id"] as Int64) has an unknown state '\(stateText)'.")
        }
        self.state = state
        createdUTC = row["created_utc"]
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

    /// Where this live form's expiry clock starts, as the store holds it now (``Expiry``).
    /// `restartedAt`: the clock's restart the caller has just written (a move under
    /// `expiryFrom: assigned`), which the row read before it does not hold.
    func clockStart(restartedAt: Double? = nil) -> Date {
        Expiry.clockStart(created: Date(timeIntervalSince1970: createdUTC),
                          restartedAt: (restartedAt ?? expiryResetAt).map(Date.init(timeIntervalSince1970:)))
    }

    /// Owner, name, state and version as JSON: the "before"/"after" of most audit rows.
    var summaryJSON: JSONValue { FormRecord.summary(owner: owner, name: name, state: state, version: version) }
}
