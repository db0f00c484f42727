import Foundation
import MIStore

/// How a form appears in a listing (`forms`, `trash`, `orphans`): one definition of the
/// columns, so every listing of forms has the same JSON keys. `created` and `modified` are shown
/// in the site's zone like every other time (the device's own offset is in the form.json export).
public enum FormColumns {
    /// `created` and the media count are detail: a listing's grid fits a screen without them
    /// (`--wide` shows them; CSV and JSON always have them). At a terminal too narrow for the
    /// grid (80 columns) `modified`, then the template are left out before it turns into blocks.
    public static let columns = [Column("id"), Column("name"), Column("owner"), Column("state"), Column("template", fit: .leftOut),
                                 Column("created", detail: true), Column("modified", fit: .leftOut), Column("media", detail: true)]

    public static func values(_ form: FormSummary) -> [Value] {
        [.int(form.id), .string(form.name), .string(form.owner), .string(form.state.rawValue), .string(form.template),
         .time(form.created.date), .time(form.modified.date), .int(Int64(form.mediaCount))]
    }
}

extension FormColumns {
    /// `forms`: the columns of every listing of forms, and when the form expires under its
    /// owner's policy as the store computes it (null unless incomplete: only incomplete forms expire).
    public static let listingColumns = columns + [Column("expires")]

    public static func listingValues(_ form: FormSummary, policies: OwnerPolicies) -> [Value] {
        values(form) + [policies.expires(form).map(Value.time) ?? .null]
    }
}
