import Foundation
import MIFiles

extension FormStore {
    /// Writes the store as a device `Documents/` tree at `target`, which ``importTree(at:actor:)``
    /// reads back as the same forms, media and notices.
    ///
    /// Written: live incomplete forms under `<uid>/<name>/`, completed ones under
    /// `Completed MIs/<uid>/<name>/`, each with `form.json` (foreman comments joined with newlines
    /// into `foremanComments`) and its media files; unread notices as `Error/<uid>`, one per line.
    /// Not written: submitted forms (uploaded, so the layout has no folder for them; counted in
    /// ``ExportReport/submittedSkipped``) and forms whose name cannot be a folder name (reported).
    /// The export reads one consistent snapshot, changes nothing in the store and is not audited;
    /// notices stay unread.
    ///
    /// `target` must not exist or be an empty directory. The tree is written into a temporary
    /// sibling and renamed into place at the end: a failed export leaves nothing behind. Every
    /// folder and file is made through descriptors (``Folder``, ``NewFile``): a link planted in
    /// a shared folder is never followed.
    ///
    /// - Throws: `.invalidInput` for a non-empty or non-directory target; `.io` when writing fails.
    public func exportTree(to target: URL) throws -> ExportReport {
        let target = target.standardizedFileURL
        // The parent is opened once; the tree is built in a new folder below it (0777 less the
        // user's umask), every folder and file made through descriptors (docs/security.md).
        let parent: Folder, name: String
        do {
            (parent, name) = try Folder.parent(of: target.path)
        } catch {
            throw StoreError(.io, "Cannot export to \(target.path): \(error.reason)", path: target.path)
        }
        switch parent.kind(of: name) {
        case .missing: break
        case .folder:
            let empty = (try? parent.folder(name).entries())?.isEmpty
            guard empty == true else {
                throw StoreError(.invalidInput, "\(target.path) exists and is not empty; export into a new directory.",
                                 path: target.path)
            }
        default:
            throw StoreError(.invalidInput, "\(target.path) exists and is not a directory.", path: target.path)
        }
        let temporaryName = ".\(name).export-\(UUID().uuidString)"
        let temporary: Folder
        do {
            temporary = try parent.makeFolder(temporaryName)
        } catch {
            throw StoreError(.io, "Cannot create \(error.path): \(error.reason)", path: error.path)
        }
        do {
            var report = try readWholeStore { db in try TreeWriter(root: temporary, db: db, query: formQuery(ownerColumn: "owner")).write() }
            // The temporary name must still be the folder written (others may write the parent);
            // renameat onto an empty folder replaces it; onto anything else it fails.
            guard parent.holds(temporaryName, sameAs: temporary.fd) else {
                throw StoreError(.io, "Cannot move the export into place at \(target.path): its temporary folder "
                                 + "was replaced by somebody else; nothing was written there.", path: target.path)
            }
            if renameat(parent.fd, temporaryName, parent.fd, name) != 0 {
                let reason = String(cString: strerror(errno))
                throw StoreError(.io, "Cannot move the export into place at \(target.path): \(reason)", path: target.path)
            }
            report.path = target.path
            logger.info("tree exported", metadata: ["path": "\(target.path)",
                                                    "forms": "\(report.incompleteForms + report.completedForms)"])
            return report
        } catch {
            if parent.holds(temporaryName, sameAs: temporary.fd) { try? FileManager.default.removeItem(atPath: temporary.path) }
            throw error
        }
    }
}

/// Writes one snapshot of the store into a directory (the temporary one of an export).
private struct TreeWriter {
    let root: Folder
    let db: any StoreDatabase
    /// Whose forms and notices go out: a foreman exports his crews' (the reach, ``FormQuery``).
    let query: FormQuery

    func write() throws -> ExportReport {
        var report = ExportReport(path: root.path)
        try db.forEachRow(literal: """
            SELECT \(FormRecord.columns) FROM forms WHERE \(query.adding("trashed_at IS NULL").condition)
            ORDER BY owner, name, id
            """) { row in
            let form = try FormRecord(row: row)
            if form.state == .submitted {
                report.submittedSkipped += 1
                return
            }
            // Every path part from the store passes the import's rules again: a row that would
            // escape the folder (owner `..`, a name with `/`, a media name with `/`) is skipped.
            let mediaNames = try db.values(String.self, literal: "SELECT file_name FROM media WHERE form_id = \(form.id) ORDER BY file_name")
            if let problem = TreePathRules.ownerProblem(form.owner) ?? TreePathRules.formNameProblem(form.name)
                ?? mediaNames.lazy.compactMap(TreePathRules.mediaNameProblem).first {
                report.skipped.append(ExportIssue(formId: form.id, reason: problem))
                return
            }
            let userFolder = form.state == .completed
                ? try folder(form.owner, in: try folder(TreeScanner.completedFolder, in: root))
                : try folder(form.owner, in: root)
            if userFolder.kind(of: form.name) != .missing {
                report.skipped.append(ExportIssue(formId: form.id, reason: "\(userFolder.pathOf(form.name)) already exists "
                    + "(a form whose name differs only in case, on a case-insensitive file system?)"))
                return
            }
            let formFolder = try folder(form.name, in: userFolder, existing: false)
            let comments = try FormStore.foremanComments(formId: form.id, in: db)
            try writeFile(form.document(foremanComments: comments).jsonData(), named: FormFolderReader.formFile, in: formFolder)
            try db.forEachRow(literal: "SELECT file_name, data FROM media WHERE form_id = \(form.id) ORDER BY file_name") { item in
                try writeFile(item["data"], named: item["file_name"], in: formFolder)
                report.mediaFiles += 1
            }
            if form.state == .completed { report.completedForms += 1 } else { report.incompleteForms += 1 }
        }
        try writeNotices(&report)
        return report
    }

    /// Unread notices, one `Error/<uid>` file per user, one line per notice.
    private func writeNotices(_ report: inout ExportReport) throws {
        var currentUid: String?
        var lines: [String] = []
        func flush() throws {
            guard let uid = currentUid, !lines.isEmpty else { return }
            try writeFile(Data((lines.joined(separator: "\n") + "\n").utf8), named: uid,
                          in: try folder(TreeScanner.errorFolder, in: root))
            report.noticeFiles += 1
            report.notices += lines.count
        }
        try db.forEachRow(literal: "SELECT uid, text FROM notices WHERE read_at IS NULL ORDER BY uid, id") { row in
            let uid: String = row["uid"]
            guard query.scope.allows(uid) else { return }
            if let problem = TreePathRules.ownerProblem(uid) {
                if uid != currentUid {
                    try flush()
                    currentUid = nil
                    lines = []
                    report.skipped.append(ExportIssue(formId: nil, reason: "notices of '\(uid)' not written: " + problem))
                }
                return
            }
            if uid != currentUid {
                try flush()
                currentUid = uid
                lines = []
            }
            let text: String = row["text"]
            lines.append(text.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        try flush()
    }

    /// The folder `name` in `parent`, made if missing (`existing`: an existing one is used).
    private func folder(_ name: String, in parent: Folder, existing: Bool = true) throws -> Folder {
        do {
            return try parent.makeFolder(name, existing: existing)
        } catch {
            throw StoreError(.io, "Cannot create \(error.path): \(error.reason)", path: error.path)
        }
    }

    /// A new file (an existing one is never replaced), written through the folder's descriptor.
    private func writeFile(_ data: Data, named name: String, in folder: Folder) throws {
        do {
            let file = try NewFile(in: folder, for: name)
            try file.write(data)
            try file.commit(as: name, existing: .keep)
        } catch {
            throw StoreError(.io, "Cannot write \(folder.pathOf(name)): \(error.reason)", path: folder.pathOf(name))
        }
    }
}
