import ArgumentParser
import MIDirectory
import MIStore

/// `check`: verify the store and say how to fix each problem found.
public struct CheckCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify the store: file integrity, media, form content, rules, owners.",
        discussion: """
            Checks SQLite's integrity, every media file against the size and SHA-256 recorded \
            when it was stored, that every form's content is readable, the field app's rules, \
            and that every owner of incomplete or completed forms is still a technician in the \
            directory. One row per finding, with how to fix it; fails (exit 1) when anything \
            is wrong.

            Example:
              miadmin --format csv -c check > findings.csv
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        var findings = 0
        output.beginRows([Column("check"), Column("form"), Column("object"), Column("problem"), Column("fix")])
        func emit(_ check: String, _ formId: Int64?, _ object: String, _ problem: String, _ fix: String) {
            findings += 1
            output.row([.string(check), formId.map(Value.int) ?? .null, .string(object), .string(problem), .string(fix)])
        }
        try store.administration.check { finding in
            try session.checkpointRow()
            emit(finding.kind.rawValue, finding.formId, finding.object, finding.message, Self.fix(for: finding))
        }
        try OrphansCommand.forEachOrphan(store: store, session: session) { form, reason in
            try session.checkpointRow()
            let fix = form.state == .incomplete
                ? "move \(form.id) <technician>"
                : "review it ('show \(form.id)') and 'submit \(form.id)', or reopen and move it"
            emit("owner", form.id, "form \(form.id) \(form.owner)/\(form.name)", reason, fix)
        }
        output.endRows()
        if findings == 0 {
            // "(0 rows)" alone did not say whether anything was checked.
            output.note("no problems found: the store's integrity, every media file, every form's content and rules, "
                        + "path rules and owners were checked")
        }
        if findings > 0 {
            throw CommandError.failed("check found \(findings) problem(s); see the fix column")
        }
    }

    static func fix(for finding: StoreFinding) -> String {
        let id = finding.formId.map(String.init) ?? "FORM"
        switch finding.kind {
        case .integrity:
            return "stop every console, copy the store file, then recover it (sqlite3 .recover) or restore a backup"
        case .media, .unreadable:
            if finding.trashed { return "purge it, or 'restore \(id)' and re-import the form from the tablet" }
            switch finding.formState {
            case .submitted?: return "nothing in the store can repair it: the uploaded copy on the server is the good one"
            case .completed?: return "re-import the form from the tablet ('import DIR'), or 'reopen \(id) --note ...' to have it redone"
            default: return "re-import the form from the technician's tablet ('import DIR')"
            }
        case .rule where finding.message.hasPrefix(RuleViolation.Rule.tableTooLarge.rawValue + ":"):
            // show and report refuse such a form; its content can still be read from an export.
            return "'show' and 'report' refuse it; read its form.json with 'export DIR', and have the template's table fixed"
                + (finding.formState == .completed ? " ('reopen \(id) --note ...')" : "")
        case .rule:
            switch finding.formState {
            case .completed?: return "review it ('show \(id)'), then 'reopen \(id) --note ...' to have the technician fix it"
            case .submitted?: return "already uploaded: correct it on the server"
            default: return "the technician fixes it before completing the form"
            }
        case .path:
            return "export skips it; correct the owner, name or media file name in the store (it did not come from an import)"
        default:
            return "see 'show \(id)'"
        }
    }
}
