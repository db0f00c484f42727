import Foundation
import MIFiles

extension FormStore {
    /// Imports a device `Documents/` tree (see `spec/device-layout.md` and docs/store.md).
    ///
    /// `<uid>/<name>/` folders become incomplete forms, `Completed MIs/<uid>/<name>/` completed ones,
    /// with their `Qid<q>(<n>).<ext>` media; each line of `Error/<uid>` becomes a notice for `uid`.
    /// Each form is stored in its own transaction together with its media and audit row, so nothing
    /// is ever half-imported. Problems with one form (broken form.json, unreadable media, folder
    /// name != form name, a file that is not media) are reported with path and reason in
    /// ``ImportReport/errors``; every other form is still imported. Rule violations are imported
    /// and listed in ``ImportReport/warnings`` (when inserted or updated, so a re-import stays quiet).
    ///
    /// Importing the same tree again changes nothing: forms are keyed by (owner, name) — see
    /// ``ImportReport`` — and `Error` lines the user already has as notices are not added again.
    /// A tree holding one owner/name twice (incomplete and completed) is a collision: neither is imported.
    ///
    /// - Throws: `.invalidInput` when `root` is not a directory; `.busy` when the store stays locked
    ///   (forms imported before that stay imported; run the import again).
    /// Symbolic links, devices, pipes and sockets anywhere below `root` are skipped and reported,
    /// never followed; files above ``ImportLimits`` are errors of their form.
    public func importTree(at root: URL, actor: String, limits: ImportLimits = .defaults) throws -> ImportReport {
        try importTree(at: root, actor: try Validate.name(actor, what: "actor"), limits: limits, preview: false)
    }

    /// What ``importTree(at:actor:limits:)`` would do now, in the same report, without changing the
    /// store. It only reads (one short read transaction per form), so it never holds the write
    /// lock: other consoles keep working while a large tree is scanned. Inserted forms have id 0.
    public func previewImport(at root: URL, limits: ImportLimits = .defaults) throws -> ImportReport {
        try importTree(at: root, actor: "", limits: limits, preview: true)
    }

    private func importTree(at root: URL, actor: String, limits: ImportLimits, preview: Bool) throws -> ImportReport {
        let scan = try TreeScanner.scan(root)
        var report = ImportReport()
        report.errors = scan.errors
        report.warnings = scan.warnings

        let counts = Dictionary(scan.forms.map { (FormKey($0), 1) }, uniquingKeysWith: +)
        // A foreman imports his crews' folders (``OwnerScope``): another crew's would insert or
        // overwrite that crew's forms behind the crew rule. They are reported, not imported.
        let scope = ownerScope
        for folder in scan.forms {
            guard scope.allows(folder.owner) else {
                report.errors.append(ImportIssue(path: folder.path, reason: scope.refusal(folder.owner) + "; not imported"))
                continue
            }
            if counts[FormKey(folder)]! > 1 {
                report.collisions.append(ImportIssue(path: folder.path, reason: "the tree holds \(folder.owner)'s form "
                    + "'\(folder.folderName)' more than once (as incomplete and completed, or in two spellings); none of them was imported"))
                continue
            }
            try importForm(folder, actor: actor, limits: limits, preview: preview, into: &report)
        }
        for file in scan.errorFiles {
            guard scope.allows(file.uid) else {
                report.errors.append(ImportIssue(path: file.path, reason: scope.refusal(file.uid) + "; not imported"))
                continue
            }
            try importNotices(file, actor: actor, limit: limits.formJSONBytes, preview: preview, into: &report)
        }
        logger.info(preview ? "tree import previewed" : "tree imported", metadata: [
            "path": "\(root.path)", "inserted": "\(report.inserted.count)", "updated": "\(report.updated.count)",
            "unchanged": "\(report.unchanged)", "collisions": "\(report.collisions.count)",
            "errors": "\(report.errors.count)", "notices": "\(report.noticesAdded)",
        ])
        return report
    }

    private struct FormKey: Hashable {
        let owner: String
        let name: String
        init(_ folder: TreeScanner.FormFolder) {
            owner = folder.owner
            name = folder.folderName.nfc
        }
    }

    private func importForm(_ folder: TreeScanner.FormFolder, actor: String, limits: ImportLimits, preview: Bool,
                            into report: inout ImportReport) throws {
        let form: LoadedForm
        do {
            form = try FormFolderReader.read(folder, limits: limits, warnings: &report.warnings)
        } catch {
            report.errors.append(error)
            return
        }
        do {
            var warnings: [ImportIssue] = []
            let outcome = preview
                ? try read { db in try FormUpsert.preview(form, in: db) }
                : try write { db in
                    warnings = []
                    let outcome = try FormUpsert.run(form, actor: actor, at: nowSeconds(), in: db, warnings: &warnings)
                    try tellForemenOfCompletion(form, outcome: outcome, in: db)
                    return outcome
                }
            report.warnings += warnings
            let imported = { (id: Int64) in
                ImportedForm(id: id, owner: form.owner, name: form.document.name, state: form.state, path: form.path)
            }
            let violations = { Rules.check(form.document, state: form.state, mediaNames: form.mediaFiles.map(\.fileName))
                .map { ImportIssue(path: form.path, reason: $0.message) } }
            switch outcome {
            case .inserted(let id):
                report.inserted.append(imported(id))
                report.warnings += violations()
            case .updated(let id, _):
                report.updated.append(imported(id))
                report.warnings += violations()
            case .unchanged: report.unchanged += 1
            case .collision(let reason): report.collisions.append(ImportIssue(path: form.path, reason))
            }
        } catch let error as StoreError where error.kind != .busy {
            report.errors.append(ImportIssue(path: form.path, reason: error.message))
        }
    }

    /// A form that came in completed (new, or incomplete before): the foremen of its owner's
    /// crews get a notice, in the import's transaction. Without crews nobody is
    /// assigned to supervise it, and nobody is told.
    private func tellForemenOfCompletion(_ form: LoadedForm, outcome: FormUpsert.Outcome, in db: any StoreDatabase) throws {
        guard form.state == .completed, let naming = crewNaming else { return }
        let id: Int64
        switch outcome {
        case .inserted(let inserted): id = inserted
        case .updated(let updated, let stateBefore) where stateBefore != .completed: id = updated
        case .updated, .unchanged, .collision: return
        }
        // One notice per foreman, their ids not needed: they go with the COMMIT.
        try db.sendLater(try naming.foremen(supervising: form.owner).map { foreman in
            Notices.adding(uid: foreman, text: Notices.completed(formName: form.document.name, owner: form.owner, id: id),
                           source: Notice.sourceCompleted, formId: id, at: nowSeconds())
        })
    }

    /// Adds the lines of one `Error/<uid>` file as notices, except as many of each text as the user
    /// already has (read or not), so a second import adds nothing.
    private func importNotices(_ file: TreeScanner.ErrorFile, actor: String, limit: Int, preview: Bool,
                               into report: inout ImportReport) throws {
        let data: Data
        do {
            data = try file.read(limit: limit)
        } catch {
            report.errors.append(FormFolderReader.issue(error, limit: limit))
            return
        }
        guard let text = String(data: data, encoding: .utf8) else {
            report.errors.append(ImportIssue(path: file.path, reason: "not UTF-8 text"))
            return
        }
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !lines.isEmpty else { return }
        let wanted = Dictionary(lines.map { ($0, 1) }, uniquingKeysWith: +)
        var seen = Set<String>()
        let distinct = lines.filter { seen.insert($0).inserted }
        if preview {
            let (added, present) = try read { db in
                var added = 0, present = 0
                for (line, have) in zip(distinct, try Self.noticeCounts(of: distinct, uid: file.uid, in: db)) {
                    present += min(have, wanted[line]!)
                    added += max(0, wanted[line]! - have)
                }
                return (added, present)
            }
            report.noticesAdded += added
            report.noticesAlreadyPresent += present
            return
        }
        let (added, present) = try write { db in
            let now = nowSeconds()
            var present = 0
            // The counts read in one batch; the notices and the audit row, whose ids nobody
            // needs, go with the COMMIT (on PostgreSQL one round trip for the reads and one with
            // the COMMIT, not one per line and notice).
            var adding: [StoreStatement] = []
            for (line, have) in zip(distinct, try Self.noticeCounts(of: distinct, uid: file.uid, in: db)) {
                let count = wanted[line]!
                present += min(have, count)
                for _ in 0..<max(0, count - have) {
                    adding.append(Notices.adding(uid: file.uid, text: line, source: Notice.sourceImport, formId: nil, at: now))
                }
            }
            let added = adding.count
            if added > 0 {
                adding.append(Audit.recording(at: now, actor: actor, command: "import.notices", formId: nil,
                                              object: "notices of \(file.uid)", before: nil,
                                              after: .object(JSONObject([("added", .integer(added))])), note: "from \(file.path)"))
            }
            try db.sendLater(adding, atMost: Self.noticeStatementsPerBatch)
            return (added, present)
        }
        report.noticesAdded += added
        report.noticesAlreadyPresent += present
    }

    /// How many statements of an `Error` file's import go in one batch: its lines are short.
    private static let noticeStatementsPerBatch = 500

    /// How many notices `uid` has with each of `lines`' texts, read or not.
    private static func noticeCounts(of lines: [String], uid: String, in db: any StoreDatabase) throws -> [Int] {
        try db.batch(lines.map { line in
            StoreStatement(literal: "SELECT COUNT(*) FROM notices WHERE uid = \(uid) AND text = \(line)")
        }, atMost: noticeStatementsPerBatch).map { rows in rows.first.flatMap { Int.fromStoreValue($0.values[0]) } ?? 0 }
    }
}
