import Foundation
import MITestSupport
import Testing

/// The store commands through the built binary, on real SQLite files.
@Suite(.tags(.endToEnd, .ldap)) struct StoreCommandTests {
    let fixture = Fixture.shared

    func json(_ result: ProcessResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func importOfTheSampleTreeThenListing() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let forms = try MIAdmin.as_("mkhan", config: config, format: "json", ["forms"])
        #expect(forms.status == 0, "\(forms.stderr)")
        let list = try json(forms) as! [[String: Any]]
        #expect(list.count == 5)
        #expect(Set(list.map { "\($0["owner"]!)/\($0["name"]!)" }) == [
            "jdoe/Generator monthly", "jdoe/Pump station 4", "jdoe/Valve check – north",
            "asmith/Pump station 4", "asmith/Pump station 4 (2)"])
        let valve = list.first { $0["name"] as? String == "Valve check – north" }!
        #expect(valve["media"] as? Int == 2)
        #expect(valve["created"] as? String == "2026-11-19T12:40:00Z", "the device's 13:40+01:00 in the site's zone (UTC here)")
        // The Error/asmith file became a notice for asmith.
        let notices = try MIAdmin.as_("mkhan", config: config, format: "csv", ["notices asmith"])
        #expect(notices.stdout.contains("Form 'Boiler room' was reassigned to jdoe by foreman mkhan."))
    }

    @Test func reimportChangesNothing() throws {
        let tree = try Paths.copyOfSampleTree()
        let config = try fixture.store(importing: tree)
        let store = try fixture.storePath(config)
        let before = try sqlite(store, "SELECT (SELECT COUNT(*) FROM forms), (SELECT COUNT(*) FROM audit), (SELECT COUNT(*) FROM notices)")
        let again = try MIAdmin.as_("mkhan", config: config, ["import --dry-run \(shellQuote(tree))"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing to import"))
        // Without --yes a script cannot answer the question: refused before the tree is read.
        let unconfirmed = try MIAdmin.as_("mkhan", config: config, ["import \(shellQuote(tree))"])
        #expect(unconfirmed.status == 1 && unconfirmed.stderr.contains("add --yes"))
        let forced = try MIAdmin.as_("mkhan", config: config, format: "csv", ["import --yes \(shellQuote(tree))"])
        #expect(forced.status == 0)
        #expect(forced.lines.count == 1, "no rows inserted or updated")
        #expect(try sqlite(store, "SELECT (SELECT COUNT(*) FROM forms), (SELECT COUNT(*) FROM audit), (SELECT COUNT(*) FROM notices)") == before)
    }

    @Test func brokenFilesAreReportedAndTheRestImported() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Good one")
        try tree.form("asmith", "Zoë's pump")
        try tree.rawForm("jdoe", "Bad JSON", json: "{ not json")
        try tree.rawForm("jdoe", "Missing keys", json: "{\"name\": \"Missing keys\"}")
        let config = try fixture.config()
        let result = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(tree.root))"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(tree.root)/jdoe/Bad JSON"))
        #expect(result.stderr.contains("\(tree.root)/jdoe/Missing keys"))
        #expect(result.stderr.contains("2 form(s) could not be imported"))
        let forms = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms"])
        #expect(forms.lines.count == 3)
        #expect(forms.stdout.contains("Zoë's pump"))
    }

    @Test func moveRenamesOnCollisionAndLeavesANotice() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump")
        try tree.form("jdoe", "Pump (2)")
        try tree.form("asmith", "Pump")
        try tree.form("asmith", "Pump (2)")
        let config = try fixture.store(importing: tree.root)
        // Pump onto a user holding Pump and Pump (2): the smallest free number.
        let first = try MIAdmin.as_("mkhan", config: config, format: "json", ["move jdoe/Pump asmith --note 'jdoe on leave'"])
        #expect(first.status == 0, "\(first.stderr)")
        let moved = try json(first) as! [String: Any]
        #expect(moved["name"] as? String == "Pump (3)")
        #expect(moved["renamed"] as? Bool == true)
        // Pump (2) onto a user holding Pump (2): Pump (4) now, never "Pump (2) (2)".
        let second = try MIAdmin.as_("mkhan", config: config, format: "json", ["move 'jdoe/Pump (2)' asmith"])
        #expect((try json(second) as! [String: Any])["name"] as? String == "Pump (4)")
        // No collision: the name stays.
        let third = try MIAdmin.as_("mkhan", config: config, format: "json", ["move 'asmith/Pump (4)' sobrien"])
        #expect((try json(third) as! [String: Any])["name"] as? String == "Pump (4)")
        #expect((try json(third) as! [String: Any])["renamed"] as? Bool == false)
        // To the current owner: a no-op.
        let same = try MIAdmin.as_("mkhan", config: config, format: "json", ["move 'sobrien/Pump (4)' sobrien"])
        #expect((try json(same) as! [String: Any])["moved"] as? Bool == false)

        let notices = try MIAdmin.as_("jdoe", config: config, format: "json", ["notices"])
        let texts = (try json(notices) as! [[String: Any]]).map { $0["text"] as! String }
        #expect(texts == ["Form 'Pump' was reassigned to asmith as 'Pump (3)' by foreman mkhan: jdoe on leave",
                          "Form 'Pump (2)' was reassigned to asmith as 'Pump (4)' by foreman mkhan."])
        let audit = try MIAdmin.as_("mkhan", config: config, format: "json", ["audit --user mkhan"])
        let moves = (try json(audit) as! [[String: Any]]).filter { $0["command"] as? String == "move" }
        #expect(moves.count == 3, "the no-op writes no audit row")
        #expect(moves.first?["note"] as? String == "jdoe on leave")
        // before and after are JSON objects, not JSON text in a string.
        #expect((moves.first?["before"] as? [String: Any])?["owner"] as? String == "jdoe")
        #expect((moves.first?["after"] as? [String: Any])?["name"] as? String == "Pump (3)")
    }

    @Test func moveChecksTheTargetAndTheState() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump")
        try tree.form("jdoe", "Done", completed: true)
        let config = try fixture.store(importing: tree.root)
        let noRole = try MIAdmin.as_("mkhan", config: config, ["move jdoe/Pump nbody"])
        #expect(noRole.status == 1)
        #expect(noRole.stderr.contains("'nbody' is not a technician"))
        let ghost = try MIAdmin.as_("mkhan", config: config, ["move jdoe/Pump ghost"])
        #expect(ghost.stderr.contains("no user 'ghost' in the directory"))
        let foreman = try MIAdmin.as_("mkhan", config: config, ["move jdoe/Pump mkhan"])
        #expect(foreman.stderr.contains("'mkhan' is not a technician"))
        let completed = try MIAdmin.as_("mkhan", config: config, ["move jdoe/Done asmith"])
        #expect(completed.status == 1)
        #expect(completed.stderr.contains("only incomplete forms can be moved"))
        let missing = try MIAdmin.as_("mkhan", config: config, ["move 999 asmith"])
        #expect(missing.status == 1)
    }

    @Test func commentsOnlyOnCompletedFormsAndSubmitIsIdempotent() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Open")
        try tree.form("jdoe", "Done", completed: true)
        let config = try fixture.store(importing: tree.root)
        let refused = try MIAdmin.as_("mkhan", config: config, ["comment jdoe/Open 'looks fine'"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("incomplete"))
        let ok = try MIAdmin.as_("mkhan", config: config, ["comment jdoe/Done 'Bearings run hot'", "comment jdoe/Done 'Recheck in May'"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let show = try MIAdmin.as_("mkhan", config: config, format: "json", ["show jdoe/Done"])
        let comments = (try json(show) as! [String: Any])["comments"] as! [[String: Any]]
        #expect(comments.map { $0["text"] as! String } == ["Bearings run hot", "Recheck in May"])
        #expect(comments.first?["author"] as? String == "mkhan")

        let submit = try MIAdmin.as_("mkhan", config: config, format: "json", ["submit --yes jdoe/Done", "submit jdoe/Done"])
        #expect(submit.status == 0)
        #expect(submit.stdout.contains("\"alreadySubmitted\":false"))
        #expect(submit.stdout.contains("\"alreadySubmitted\":true"))
        let open = try MIAdmin.as_("mkhan", config: config, ["submit --yes jdoe/Open"])
        #expect(open.status == 1)
    }

    @Test func showRendersAnswersByType() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let table = try MIAdmin.as_("mkhan", config: config, ["show 'jdoe/Valve check – north'"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("Noise, Electrical"))          // options by name
        #expect(table.stdout.contains("| true "))                    // trueFalse
        #expect(table.stdout.contains("Drive end | Non-drive end"))  // table grid headers
        #expect(table.stdout.contains("×"))                          // the no-cell mark
        #expect(table.stdout.contains("Qid0(1).jpg"))
    }

    @Test func exportThenImportRoundTrips() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        _ = try MIAdmin.as_("mkhan", config: config, ["comment 'jdoe/Generator monthly' 'All good'"])
        let out = try TempDir.make() + "/Documents"
        let export = try MIAdmin.as_("mkhan", config: config, format: "json", ["export \(shellQuote(out))"])
        #expect(export.status == 0, "\(export.stderr)")
        let copy = try fixture.store(importing: out)
        for ref in ["jdoe/Generator monthly", "jdoe/Valve check – north", "asmith/Pump station 4 (2)"] {
            let a = try MIAdmin.as_("mkhan", config: config, format: "json", ["show \(shellQuote(ref))"])
            let b = try MIAdmin.as_("mkhan", config: copy, format: "json", ["show \(shellQuote(ref))"])
            var left = try json(a) as! [String: Any], right = try json(b) as! [String: Any]
            for key in ["id", "comments"] { left[key] = nil; right[key] = nil }
            #expect(NSDictionary(dictionary: left).isEqual(to: right), "\(ref) differs after export and import")
        }
        let again = try MIAdmin.as_("mkhan", config: copy, ["import --dry-run \(shellQuote(out))"])
        #expect(again.stdout.contains("nothing to import"))
        let busy = try MIAdmin.as_("mkhan", config: config, ["export \(shellQuote(out))"])
        #expect(busy.status == 1, "exporting into a non-empty folder is refused")
    }

    @Test func unreadNoticesShownAtNextInteractiveLoginThenMarkedRead() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Boiler room")
        let config = try fixture.store(importing: tree.root)
        _ = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Boiler room' asmith"])
        do {
            let term = try TerminalSession(uid: "jdoe", config: config)
            let screen = try term.waitFor("jdoe@technician> ")
            #expect(screen.contains("You have 1 unread notice:"))
            #expect(screen.contains("Form 'Boiler room' was reassigned to asmith by foreman mkhan."))
            #expect(screen.contains("(now marked read; 'notices --all' lists them again)"))
            // Right after the banner, an empty `notices` says why.
            try term.enter("notices")
            try term.waitFor("note: no unread notices: the 1 shown at login is marked read; 'notices --all' lists it")
        }
        let later = try MIAdmin.as_("jdoe", config: config, format: "json", ["notices", "notices --all"])
        // Two commands: one JSON array of their two listings.
        let values = try #require(try json(later) as? [[[String: Any]]], "\(later.stdout)")
        #expect(values.first?.isEmpty == true, "no unread notices left")
        #expect(values.last?.contains { ($0["text"] as? String)?.contains("Boiler room") == true } == true, "\(later.stdout)")
    }
}

/// A destination folder that is missing or is a file is the user's to fix: exit 1 naming the
/// folder (exit 2 would tell `--on-error continue` and a timer to try again later).
@Suite(.tags(.endToEnd, .ldap)) struct DestinationFolderTests {
    let fixture = Fixture.shared

    @Test(arguments: ["store backup %@/b.sqlite", "store copy --to %@/c.sqlite --yes"])
    func missingFolderIsTheUsersToFix(_ template: String) throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let dir = try TempDir.make()
        let missing = dir + "/no-such-folder"
        let result = try MIAdmin.as_("lchen", config: config, [template.replacingOccurrences(of: "%@", with: missing)])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write into '\(missing)': no such folder"), "\(result.stderr)")
        FileManager.default.createFile(atPath: missing, contents: Data())
        let file = try MIAdmin.as_("lchen", config: config, [template.replacingOccurrences(of: "%@", with: missing)])
        #expect(file.status == 1 && file.stderr.contains("cannot write into '\(missing)': it is a file, not a folder"), "\(file.stderr)")
        // In a script that goes on after errors, the run's status says "a script to fix" (3), not "try later" (2).
        let continued = try MIAdmin.as_("lchen", config: config, [template.replacingOccurrences(of: "%@", with: missing)],
                                        extra: ["--on-error", "continue"])
        #expect(continued.status != 2, "\(continued.stderr)")
    }
}
