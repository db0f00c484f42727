import Foundation
import MITestSupport
import Testing

/// expire, trash, restore, purge, policy, notifications, check, orphans and reopen, run through
/// the built binary against the real slapd, with "now" fixed by $MIADMIN_NOW.
@Suite(.tags(.endToEnd, .ldap)) struct ExpiryCommandTests {
    let fixture = Fixture.shared
    static let now = "2026-11-21T09:00:00Z"

    /// A config with its own empty store, and `policy.*` from the arguments.
    func config(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        try fixture.config(edit)
    }

    func run(_ config: String, as uid: String = "mkhan", format: String = "json", now: String = now,
             _ commands: String...) throws -> ProcessResult {
        var args = ["--config", config, "--user", uid, "--format", format]
        for command in commands { args += ["-c", command] }
        return try MIAdmin.run(args, password: fixture.password(uid), environment: ["MIADMIN_NOW": now])
    }

    /// A Documents/ tree with the given forms: (folder relative to Documents, created, completed?).
    func tree(_ forms: [(String, String)], completed: [(String, String)] = []) throws -> String {
        let root = try TempDir.make() + "/Documents"
        func write(_ folder: String, _ created: String, answered: Bool) throws {
            let dir = root + "/" + folder
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let name = String(folder.split(separator: "/").last!)
            let object: [String: Any] = [
                "name": name, "template": "Monthly pump inspection", "templateId": "T-17",
                "created": created, "modified": created,
                "questions": [["type": "shortAnswer", "text": "Serial number", "answer": answered ? "PX-1" as Any : NSNull()]],
            ]
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir + "/form.json"))
            try Data("photo of \(name)".utf8).write(to: URL(fileURLWithPath: dir + "/Qid0(1).jpg"))
        }
        for (folder, created) in forms { try write(folder, created, answered: false) }
        for (folder, created) in completed { try write("Completed MIs/" + folder, created, answered: true) }
        return root
    }

    func json(_ result: ProcessResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        try #require(try json(result) as? [[String: Any]], "\(result.stdout) \(result.stderr)")
    }

    func imported(_ config: String, _ root: String) throws -> [String: Int] {
        let result = try run(config, "import --yes '\(root)'")
        #expect(result.status == 0, "\(result.stderr)")
        var ids: [String: Int] = [:]
        for row in try rows(result) { ids["\(row["owner"]!)/\(row["name"]!)"] = row["id"] as? Int }
        return ids
    }

    @Test func expireDryRunThenExpireThenTrashRestoreAndPurge() throws {
        let config = try config()
        let ids = try imported(config, try tree([
            ("jdoe/Pump", "2026-11-10T08:00:00+01:00"),
            ("jdoe/Exactly seven days", "2026-11-14T10:00:00+01:00"),
            ("asmith/Seven days and a second", "2026-11-14T08:59:59Z"),
            ("asmith/New", "2026-11-20T07:00:00Z"),
        ], completed: [("jdoe/Old but done", "2026-11-01T07:00:00Z")]))
        let expected = [ids["jdoe/Pump"]!, ids["asmith/Seven days and a second"]!]

        let dryRun = try run(config, "expire --dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(try rows(dryRun).map { $0["id"] as! Int } == expected)
        #expect(try rows(dryRun).first?["created"] as? String == "2026-11-10T07:00:00Z")
        #expect(try rows(run(config, "forms")).count == 5, "the dry run changed nothing")
        #expect(try rows(run(config, "audit --user mkhan")).allSatisfy { $0["command"] as? String != "expire" })

        let unconfirmed = try run(config, "expire")
        #expect(unconfirmed.status == 1)
        #expect(unconfirmed.stderr.contains("move 2 incomplete form(s) created more than 7 day(s) ago to the trash?"))
        #expect(unconfirmed.stderr.contains("add --yes"))
        #expect(try rows(run(config, "forms")).count == 5)

        let expired = try run(config, "expire --yes --note nightly")
        #expect(expired.status == 0, "\(expired.stderr)")
        #expect(try rows(expired).map { $0["id"] as! Int } == expected, "the same forms as the dry run")
        #expect(try rows(run(config, "forms")).map { $0["name"] as! String }.sorted() == ["Exactly seven days", "New", "Old but done"])

        let trash = try rows(run(config, "trash"))
        #expect(trash.map { $0["id"] as! Int }.sorted() == expected.sorted())
        #expect(trash.allSatisfy { $0["trashed"] as? String == Self.now && $0["media"] as? Int == 1 })
        #expect(try rows(run(config, "trash --owner jdoe")).map { $0["name"] as! String } == ["Pump"])

        let notices = try rows(run(config, "notices jdoe"))
        #expect(notices.map { $0["text"] as! String } == ["Form 'Pump' expired after 7 days and was moved to the trash."])

        // jdoe starts a new 'Pump'; restoring the old one renames it like move does.
        _ = try imported(config, try tree([("jdoe/Pump", "2026-11-21T07:00:00Z")]))
        let restored = try run(config, as: "lchen", "restore \(ids["jdoe/Pump"]!) --note 'expired during leave'")
        #expect(restored.status == 0, "\(restored.stderr)")
        let record = try #require(try json(restored) as? [String: Any])
        #expect(record["name"] as? String == "Pump (2)" && record["renamed"] as? Bool == true)
        #expect(try rows(run(config, "forms --owner jdoe")).map { $0["name"] as! String } == ["Exactly seven days", "Old but done", "Pump", "Pump (2)"])

        // 30 days later nothing is purged (exactly 30 days in the trash); a second later it is.
        let early = try run(config, now: "2026-12-21T09:00:00Z", "purge --yes")
        #expect(early.status == 0, "\(early.stderr)")
        #expect(try rows(early).isEmpty)
        let purged = try run(config, now: "2026-12-21T09:00:01Z", "purge --yes")
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(try rows(purged).map { $0["id"] as! Int } == [ids["asmith/Seven days and a second"]!])
        #expect(try rows(run(config, "trash")).isEmpty)
        #expect(try rows(run(config, "notices asmith")).last?["text"] as? String
                == "Form 'Seven days and a second' was deleted for good from the trash.")

        let audit = try rows(run(config, "audit")).map { $0["command"] as! String }
        #expect(audit.filter { ["expire", "restore", "purge"].contains($0) } == ["expire", "expire", "restore", "purge"])
    }

    @Test func expireAndPurgeNeedTheForemanRole() throws {
        let config = try config()
        // Support may look (read-only), not expire.
        let look = try run(config, as: "lchen", "expire --dry-run")
        #expect(look.status == 0, "\(look.stderr)")
        let result = try run(config, as: "lchen", "expire --yes")
        #expect(result.status == 1)
        #expect(result.stderr.contains("'expire without --dry-run' needs the foreman role; you are support"), "\(result.stderr)")
        #expect(try run(config, as: "jdoe", "expire --dry-run").status == 1)
        #expect(try run(config, as: "jdoe", "purge --dry-run").status == 1)
    }

    @Test func policyShowsSourcesAndSetRefusesBadValues() throws {
        let config = try config { setKey(&$0, "policy.expiryDays", 5) }
        let shown = try rows(run(config, as: "lchen", "policy"))
        #expect(shown.map { "\($0["setting"]!)=\($0["value"]!) (\($0["source"]!))" }
                == ["expiry-days=5 (config)", "notify-days=1,2 (config)", "retention-days=30 (config)",
                    "expiry-from=assigned (config)"])

        let refusals = [
            ("policy set expiry-days seven", "refused: expiry-days: 'seven' is not a whole number of days"),
            ("policy set expiry-days 0", "refused: expiry-days must be between 1 and 3650 days (got 0)"),
            ("policy set retention-days -3", "refused: retention-days must be between 1 and 3650 days (got -3)"),
            // Nine digits once gave dates in the year 506713 and an invalid iCalendar DTSTART.
            ("policy set expiry-days 999999999", "refused: expiry-days must be between 1 and 3650 days (got 999999999)"),
            ("policy set notify-days 1,2,1", "refused: notify-days: day 1 is listed twice"),
            ("policy set notify-days 1,x", "refused: notify-days: 'x' in '1,x' is not a whole number of days"),
            ("policy set notify-days 1,5",
             "refused: notify-days: a reminder on day 5 would never fire: forms expire after 5 days, so reminders must come before day 5"),
            ("policy set expiry-days 2",
             "refused: notify-days: a reminder on day 2 would never fire: forms expire after 2 days, so reminders must come before day 2"),
        ]
        for (command, message) in refusals {
            let result = try run(config, command)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
        }
        #expect(try run(config, "policy set expiry-days 100").status == 0)
        let tooMany = try run(config, "policy set notify-days " + (1...65).map(String.init).joined(separator: ","))
        #expect(tooMany.status == 1)
        #expect(tooMany.stderr.contains("refused: notify-days: 65 reminders per form are more than a device holds (64 pending notifications)"))

        let set = try run(config, "policy set notify-days 1,2,5 --note 'day 5 too'")
        #expect(set.status == 0, "\(set.stderr)")
        let after = try rows(run(config, "policy"))
        #expect(after.map { "\($0["setting"]!)=\($0["value"]!) (\($0["source"]!))" }
                == ["expiry-days=100 (store)", "notify-days=1,2,5 (store)", "retention-days=30 (config)",
                    "expiry-from=assigned (config)"])
        #expect(after[1]["setBy"] as? String == "mkhan" && after[1]["setAt"] as? String == Self.now)
        // The value in force again: said so, not stored, not audited.
        let same = try run(config, format: "table", "policy set retention-days 30")
        #expect(same.status == 0 && same.stdout.contains("retention-days is 30 already; nothing was changed"), "\(same.stdout)")
        #expect(try rows(run(config, "audit")).filter { $0["command"] as? String == "policy.set" }.count == 2)

        let support = try run(config, as: "lchen", "policy set expiry-days 9")
        #expect(support.status == 1)
        #expect(support.stderr.contains("'policy set' needs the foreman role"))
    }

    /// A form handed over in the morning must not be trashed that night: a move restarts its
    /// expiry clock (policy expiry-from assigned) and says when it expires now.
    @Test func aHandoverRestartsTheExpiryClock() throws {
        let config = try config()
        let ids = try imported(config, try tree([("jdoe/Pump station 4", "2026-11-01T07:00:00Z"),
                                                 ("jdoe/Valve", "2026-11-01T07:00:00Z")]))
        let moved = try run(config, now: "2026-11-21T05:38:00Z", "move 'jdoe/Pump station 4' asmith --note 'jdoe off sick'")
        #expect(moved.status == 0, "\(moved.stderr)")
        let record = try #require(try json(moved) as? [String: Any])
        #expect(record["expires"] as? String == "2026-11-28T05:38:00Z", "seven days after the move")
        let listed = try rows(run(config, "forms --owner asmith"))
        #expect(listed.first?["modified"] as? String == "2026-11-21T05:38:00Z")

        let expired = try run(config, now: "2026-11-21T23:00:00Z", "expire --yes")
        #expect(expired.status == 0, "\(expired.stderr)")
        #expect(try rows(expired).map { $0["id"] as! Int } == [ids["jdoe/Valve"]!], "the handed-over form stays")

        // Counting from creation: a move gives no more time.
        #expect(try run(config, "policy set expiry-from created").status == 0)
        let old = try imported(config, try tree([("jdoe/Boiler", "2026-11-01T07:00:00Z")]))
        let table = try run(config, format: "table", "move jdoe/Boiler tpatel")
        #expect(table.status == 0 && table.stdout.contains("2026-11-08"), "\(table.stdout)\(table.stderr)")
        let again = try run(config, now: "2026-11-21T23:00:00Z", "expire --dry-run")
        #expect(try rows(again).map { $0["id"] as! Int } == [old["jdoe/Boiler"]!])
    }

    /// `-c expire` with nothing to expire once asked to confirm "0 forms"; a clean `check`
    /// printed only "(0 rows)".
    @Test func nothingToExpireNeedsNoConfirmationAndACleanCheckSaysSo() throws {
        let config = try config()
        let expire = try run(config, format: "table", "expire")
        #expect(expire.status == 0 && expire.stdout.contains("nothing to expire"), "\(expire.stdout)\(expire.stderr)")
        let check = try run(config, "check")
        #expect(check.status == 0 && check.stderr.contains("note: no problems found"), "\(check.stderr)")
        #expect(try rows(check).isEmpty, "stdout stays one JSON value")
    }

    @Test func aConfigWhoseRemindersWouldNeverFireIsRefused() throws {
        let config = try config { setKey(&$0, "policy.notifyDays", [1, 9]) }
        let result = try run(config, "policy")
        #expect(result.status == 1)
        #expect(result.stderr.contains("keys policy.*: notify-days: a reminder on day 9 would never fire"))
        let retention = try run(try self.config { setKey(&$0, "policy.retentionDays", 0) }, "policy")
        #expect(retention.status == 1 && retention.stderr.contains("key policy.retentionDays must be a whole number from 1 to 3650 days"))
        // Too large for an Int: the console once crashed on it (exit 132).
        let huge = try run(try self.config { setKey(&$0, "policy.expiryDays", 1e300) }, "policy")
        #expect(huge.status == 1 && huge.stderr.contains("key policy.expiryDays must be a whole number from 1 to 3650 days"),
                "\(huge.status) \(huge.stderr)")
        let far = try run(try self.config { setKey(&$0, "policy.expiryDays", 3651) }, "policy")
        #expect(far.status == 1 && far.stderr.contains("key policy.expiryDays must be a whole number from 1 to 3650 days"))
    }

    @Test func notificationsAsJSONAndAsAnICalendarFile() throws {
        let config = try config { setKey(&$0, "policy.notifyDays", [1, 3]) }
        let ids = try imported(config, try tree([
            ("jdoe/Valve, north; east", "2026-11-20T10:00:00+01:00"),
            ("asmith/Pump", "2026-11-15T07:00:00Z"),
        ]))
        let plan = try rows(run(config, "notifications"))
        #expect(plan.map { "\($0["uid"]!) \($0["id"]!) d\($0["day"]!) \($0["at"]!) \($0["pending"]!) \($0["dropped"]!)" } == [
            "asmith \(ids["asmith/Pump"]!) d1 2026-11-16T07:00:00Z 0 0",
            "asmith \(ids["asmith/Pump"]!) d3 2026-11-18T07:00:00Z 0 0",
            "jdoe \(ids["jdoe/Valve, north; east"]!) d1 2026-11-21T09:00:00Z 1 0",
            "jdoe \(ids["jdoe/Valve, north; east"]!) d3 2026-11-23T09:00:00Z 1 0",
        ])
        #expect(plan[2]["expires"] as? String == "2026-11-27T09:00:00Z" && plan[2]["name"] as? String == "Valve, north; east")

        let due = try rows(run(config, "notifications --due"))
        #expect(due.map { $0["day"] as! Int } == [1] && due.first?["uid"] as? String == "jdoe")
        let csv = try run(config, format: "csv", "notifications --due")
        #expect(csv.lines.first == "at,uid,id,name,day,expires,pending,dropped")
        #expect(csv.lines.count == 2)

        // A technician sees their own plan only.
        let own = try rows(run(config, as: "jdoe", "notifications"))
        #expect(own.count == 2 && own.allSatisfy { $0["uid"] as? String == "jdoe" })
        let other = try run(config, as: "jdoe", "notifications --user asmith")
        #expect(other.status == 1 && other.stderr.contains("technicians see only their own forms, notices and reminders"))

        let file = try TempDir.make() + "/plan.ics"
        let written = try run(config, "notifications --from 2026-11-21 --ics \(file)")
        #expect(written.status == 0, "\(written.stderr)")
        let record = try #require(try json(written) as? [String: Any])
        #expect(record["events"] as? Int == 2 && record["dropped"] as? Int == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let text = try #require(String(data: bytes, encoding: .utf8))
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        let physical = text.components(separatedBy: "\r\n").dropLast()
        #expect(physical.allSatisfy { $0.utf8.count <= 75 }, "folded at 75 octets")
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF line endings only")
        #expect(text.components(separatedBy: "BEGIN:VEVENT\r\n").count == 3)
        let unfolded = text.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains("UID:mi-form-\(ids["jdoe/Valve, north; east"]!)-day-1@miadmin\r\n"))
        #expect(unfolded.contains("DTSTAMP:20261121T090000Z\r\n"))
        #expect(unfolded.contains("DTSTART:20261121T090000Z\r\n") && unfolded.contains("DTSTART:20261123T090000Z\r\n"))
        #expect(unfolded.contains("SUMMARY:MI reminder for jdoe: finish 'Valve\\, north\\; east'\r\n"))
    }

    @Test func checkFindsAnOrphanedOwnerAndOrphansListsIt() throws {
        let config = try config()
        let ids = try imported(config, try tree([("ghost/Lost form", "2026-11-20T07:00:00Z"),
                                                 ("jdoe/Fine", "2026-11-20T07:00:00Z"),
                                                 ("lchen/Support's form", "2026-11-20T07:00:00Z")],
                                                completed: [("ghost/Done", "2026-11-19T07:00:00Z")]))
        let check = try run(config, as: "lchen", "check")
        #expect(check.status == 1)
        #expect(check.stderr.contains("check found 3 problem(s)"))
        let findings = try rows(check)
        #expect(findings.map { $0["form"] as! Int }.sorted()
                == [ids["ghost/Done"]!, ids["ghost/Lost form"]!, ids["lchen/Support's form"]!].sorted())
        let lost = try #require(findings.first { $0["form"] as? Int == ids["ghost/Lost form"]! })
        #expect(lost["check"] as? String == "owner" && lost["problem"] as? String == "owner ghost is not in the directory")
        #expect(lost["fix"] as? String == "move \(ids["ghost/Lost form"]!) <technician>")
        let support = try #require(findings.first { $0["form"] as? Int == ids["lchen/Support's form"]! })
        #expect(support["problem"] as? String == "owner lchen is not a technician (support)")

        let orphans = try rows(run(config, "orphans"))
        #expect(orphans.map { $0["name"] as! String }.sorted() == ["Done", "Lost form", "Support's form"])
        #expect(orphans.allSatisfy { $0["reason"] is String && $0["template"] as? String == "Monthly pump inspection" })

        // Moved to a technician: the store checks clean.
        #expect(try run(config, "move \(ids["ghost/Lost form"]!) jdoe").status == 0)
        #expect(try run(config, "move \(ids["lchen/Support's form"]!) jdoe").status == 0)
        #expect(try run(config, "submit --yes \(ids["ghost/Done"]!)").status == 0)
        let clean = try run(config, "check")
        #expect(clean.status == 0, "\(clean.stdout) \(clean.stderr)")
        #expect(try rows(clean).isEmpty)
    }

    @Test func reopenSendsACompletedFormBackWithTheReason() throws {
        let config = try config()
        let ids = try imported(config, try tree([], completed: [("jdoe/Generator monthly", "2026-11-12T09:00:00Z")]))
        let id = ids["jdoe/Generator monthly"]!
        let missingReason = try run(config, "reopen \(id)")
        #expect(missingReason.status == 1 && missingReason.stderr.contains("--note"))

        let reopened = try run(config, as: "lchen", "reopen \(id) --note 'Photo of the gauge missing'")
        #expect(reopened.status == 0, "\(reopened.stderr)")
        #expect(try rows(run(config, "forms --owner jdoe")).first?["state"] as? String == "incomplete")
        let notices = try rows(run(config, as: "jdoe", "notices"))
        #expect(notices.map { $0["text"] as! String } == ["Form 'Generator monthly' was sent back to you by support lchen: Photo of the gauge missing"])
        let audit = try #require(try rows(run(config, "audit --form \(id)")).last)
        #expect(audit["command"] as? String == "reopen" && audit["note"] as? String == "Photo of the gauge missing")
        // Reopened today: the next expiry run leaves it alone.
        #expect(try rows(run(config, "expire --dry-run")).isEmpty)
        let again = try run(config, "reopen \(id) --note again")
        #expect(again.status == 1 && again.stderr.contains("it is still with the technician") && again.stderr.contains("can be reopened"),
                "\(again.stderr)")
        #expect(try run(config, as: "jdoe", "reopen \(id) --note x").status == 1, "technicians cannot reopen")
    }
}

/// Tab completion of the nested `policy` command in a real terminal.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct PolicyCompletionTests {
    @Test func tabCompletesPolicySubcommandsAndSettings() throws {
        let prompt = "mkhan@foreman> "
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.type("pol")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "policy ") == "policy ")
        try term.type("se")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "policy set ") == "policy set ")
        try term.type("not")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "policy set notify-days ") == "policy set notify-days ")
        try term.press("C-u")
        try term.type("help policy se")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "help policy set ") == "help policy set ")
    }
}
