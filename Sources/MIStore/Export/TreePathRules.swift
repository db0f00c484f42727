/// The rules a `Documents/` tree's path parts follow, as the import enforces them, applied again
/// to what the store holds before anything is written (`export`) and by `check`.
///
/// The store's rows normally passed the import or a command's validation; these checks are for
/// rows that did not (an older version, a hand-edited database): a uid `..` or a name with `/`
/// would otherwise make the export write outside the folder it was given.
enum TreePathRules {
    /// Why `uid` cannot be a `<uid>/` or `Error/<uid>` path part, or nil.
    static func ownerProblem(_ uid: String) -> String? {
        do {
            _ = try Validate.uid(uid)
            return nil
        } catch {
            return "the owner '\(uid)' cannot be a folder name in the tree (it would escape or break the layout)"
        }
    }

    /// Why `name` cannot be a form folder name, or nil.
    static func formNameProblem(_ name: String) -> String? {
        if name.isEmpty || name == "." || name == ".." { return "the name '\(name)' cannot be a folder name" }
        if name.contains("/") || name.contains("\0") { return "the name '\(name)' contains '/', which a folder name cannot" }
        if name.hasPrefix(".") { return "the name '\(name)' starts with '.', which the import would take for a hidden file" }
        if name.utf8.count > 255 { return "the name '\(name)' is longer than a folder name may be (255 bytes)" }
        return nil
    }

    /// Why `fileName` cannot be a media file of a form folder (`Qid<q>(<n>).<ext>`), or nil.
    static func mediaNameProblem(_ fileName: String) -> String? {
        MediaFile.parseName(fileName) == nil
            ? "the media file name '\(fileName)' is not Qid<question>(<number>).<extension>" : nil
    }
}
