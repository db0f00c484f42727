import Foundation
import MIStore

/// How a form appears in a listing (`forms`, `trash`, `orphans`): one definition of the
/// columns, so every listing of forms has the same JSON keys.
public enum FormColumns {
    public static let columns = [Column("id"), Column("name"), Column("owner"), Column("state"), Column("template"),
                                 Column("created"), Column("modified"), Column("media")]

    public static func values(_ form: FormSummary) -> [Value] {
        [.int(form.id), .string(form.name), .string(form.owner), .string(form.state.rawValue), .string(form.template),
         .string(form.created.text), .string(form.modified.text), .int(Int64(form.mediaCount))]
    }
}
