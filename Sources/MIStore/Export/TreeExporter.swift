import Foundation

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
    /// sibling and renamed into place at the end: a failed export leaves nothing behind.
    ///
    /// - Throws: `.invalidInput` for a non-empty or non-directory target; `.io` when writing fails.
    public func exportTree(to target: URL) throws -> ExportReport {
        let target = target.standardizedFileURL
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: target.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError(.invalidInput, "\(target.path) exists and is not a directory.", path: target.path)
            }
            guard (try? fileManager.contentsOfDirectory(atPath: target.path))?.isEmpty == true else {
                throw StoreError(.invalidInput, "\(target.path) exists and is not empty; export into a new directory.",
                                 path: target.path)
            }
        }
        let parent = target.deletingLastPathComponent()
        let temporary = parent.appendingPathComponent(".\(target.lastPathComponent).export-\(UUID().uuidString)")
        do {
            try fileManager.createDirectory(at: temporary, withIntermediateDirectories: false)
        } catch {
            throw StoreError(.io, "Cannot create \(temporary.path): \((error as NSError).localizedDescription)",
                             path: temporary.path)
        }
        do {
            var report = try read { db in try TreeWriter(root: temporary, db: db).write() }
            if rename(temporary.path, target.path) != 0 {
                let reason = String(cString: strerror(errno))
                throw StoreError(.io, "Cannot move the export into place at \(target.path): \(reason)", path: target.path)
            }
            report.path = target.path
            logger.info("tree exported", metadata: ["path": "\(target.path)",
                                                    "forms": "\(report.incompleteForms + report.completedForms)"])
            return report
        } catch {
            try? fileManager.removeItem(at: temporary)
            throw error
        }
    }
}

/// Writes one snapshot of the store into a directory (the temporary one of an export).
private struct TreeWriter {
    let root: URL
    let db: any StoreDatabase

    func write() throws -> ExportReport {
        var report = ExportReport(path: root.path)
        try db.forEachRow("""
            SELECT \(FormRecord.columns) FROM forms WHERE trashed_at IS NULL ORDER BY owner, name, id
            """, []) { row in
            let form = try FormRecord(row: row)
            if form.state == .submitted {
                report.submittedSkipped += 1
                return
            }
            // Every path part from the store passes the import's rules again: a row that would
            // escape the folder (owner `..`, a name with `/`, a media name with `/`) is skipped.
            let mediaNames = try db.values(String.self, "SELECT file_name FROM media WHERE form_id = ? ORDER BY file_name", [form.id])
            if let problem = TreePathRules.ownerProblem(form.owner) ?? TreePathRules.formNameProblem(form.name)
                ?? mediaNames.lazy.compactMap(TreePathRules.mediaNameProblem).first {
                report.skipped.append(ExportIssue(formId: form.id, reason: problem))
                return
            }
            let userFolder = form.state == .completed
                ? root.appendingPathComponent(TreeScanner.completedFolder).appendingPathComponent(form.owner)
                : root.appendingPathComponent(form.owner)
            try makeDirectory(userFolder, intermediate: true)
            let folder = userFolder.appendingPathComponent(form.name)
            if FileManager.default.fileExists(atPath: folder.path) {
                report.skipped.append(ExportIssue(formId: form.id, reason: "\(folder.path) already exists "
                    + "(a form whose name differs only in case, on a case-insensitive file system?)"))
                return
            }
            try makeDirectory(folder, intermediate: false)
            let comments = try FormStore.foremanComments(formId: form.id, in: db)
            try writeFile(form.document(foremanComments: comments).jsonData(),
                          to: folder.appendingPathComponent(FormFolderReader.formFile))
            try db.forEachRow("SELECT file_name, data FROM media WHERE form_id = ? ORDER BY file_name", [form.id]) { item in
                try writeFile(item["data"], to: folder.appendingPathComponent(item["file_name"]))
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
            let folder = root.appendingPathComponent(TreeScanner.errorFolder)
            try makeDirectory(folder, intermediate: true)
            try writeFile(Data((lines.joined(separator: "\n") + "\n").utf8), to: folder.appendingPathComponent(uid))
            report.noticeFiles += 1
            report.notices += lines.count
        }
        try db.forEachRow("SELECT uid, text FROM notices WHERE read_at IS NULL ORDER BY uid, id", []) { row in
            let uid: String = row["uid"]
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

    private func makeDirectory(_ url: URL, intermediate: Bool) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: intermediate)
        } catch {
            throw StoreError(.io, "Cannot create \(url.path): \((error as NSError).localizedDescription)", path: url.path)
        }
    }

    private func writeFile(_ data: Data, to url: URL) throws {
        do {
            try data.write(to: url, options: .withoutOverwriting)
        } catch {
            throw StoreError(.io, "Cannot write \(url.path): \((error as NSError).localizedDescription)", path: url.path)
        }
    }
}
