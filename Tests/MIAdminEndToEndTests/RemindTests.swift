import Foundation
import MITestSupport
import Testing

/// A directory of its own for remind: the fixture's users, but asmith has no mail address
/// (Scripts/ldap-fixture --without-mail), started once per test process.
private let directoryWithoutMail: String = {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-nomail-\(getpid())").path
    do {
        let result = try Shell.run(Paths.repoRoot + "/Scripts/ldap-fixture", ["start", dir, "--users", "10", "--without-mail", "asmith"])
        guard result.status == 0 else { fatalError("ldap-fixture: \(result.stderr)") }
    } catch { fatalError("ldap-fixture: \(error)") }
    atexit {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-nomail-\(getpid())").path
        _ = try? Shell.run(Paths.repoRoot + "/Scripts/ldap-fixture", ["stop", dir])
        try? FileManager.default.removeItem(atPath: dir)
    }
    return dir
}()

/// remind through the built binary against a real SMTP server with STARTTLS
/// (Scripts/outbound-fixture), on SQLite and PostgreSQL, with "now" fixed.
@Suite(.tags(.endToEnd, .ldap, .outbound)) struct RemindTests {
    let setup = OutboundSetup()
    var outbound: OutboundFixture { setup.outbound }

    /// The outbound config, its directory swapped for the one where asmith has no mail.
    func config(_ engine: OutboundEngine, _ edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let path = try setup.config(engine) { object in
            setKey(&object, "mail.url", outbound["SMTP_URL"])
            setKey(&object, "mail.caFile", outbound["CA_FILE"])
            setKey(&object, "mail.from", "miadmin@example.com")
            setKey(&object, "mail.userFile", outbound["MAIL_USER_FILE"])
            setKey(&object, "mail.passwordFile", outbound["MAIL_PASSWORD_FILE"])
            setKey(&object, "mail.timeoutSeconds", 2)
            edit(&object)
        }
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        let own = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directoryWithoutMail + "/miadmin.json")))
        object["ldap"] = (own as! [String: Any])["ldap"]
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The mails whose text mentions `tag`: (recipients, used TLS, logged in, text body, calendar).
    func mails(mentioning tag: String) throws -> [(to: [String], tls: Bool, login: Bool, text: String, calendar: String)] {
        try outbound.mails().compactMap { envelope, message in
            let parts = Self.decodedParts(message)
            guard let text = parts.first, text.contains(tag) else { return nil }
            return (envelope["to"] as! [String], envelope["tls"] as! Bool, envelope["login"] as! Bool, text,
                    parts.count > 1 ? parts[1] : "")
        }
    }

    /// The base64 bodies of a multipart message, decoded, in order.
    static func decodedParts(_ message: String) -> [String] {
        message.components(separatedBy: "\r\n--=_miadmin_").dropFirst().compactMap { part in
            guard let split = part.range(of: "\r\n\r\n") else { return nil }
            let base64 = part[split.upperBound...].split(separator: "\r\n").joined()
            return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test(arguments: OutboundEngine.allCases)
    func dueRemindersAreMailedOncePerTechnician(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        let config = try config(engine)
        // Policy: expiry 7 days, reminders on days 1 and 2. Now is 2026-11-21T09:00Z.
        let jdoe = try setup.importForms(config, incomplete: [("Pump \(tag)", "2026-11-16T08:15:00Z"),
                                                              ("Valve \(tag)", "2026-11-19T12:40:00Z"),
                                                              ("Expired \(tag)", "2026-11-10T08:00:00Z")])
        _ = try setup.importForms(config, incomplete: [("Tank \(tag)", "2026-11-20T07:00:00Z")], owner: "asmith")
        _ = try setup.importForms(config, incomplete: [("Ghost \(tag)", "2026-11-20T07:00:00Z")], owner: "nobody-here")

        let dryRun = try setup.run(config, "remind --dry-run")
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        let planned = try setup.rows(dryRun)
        let byUser = Dictionary(uniqueKeysWithValues: planned.map { ($0["uid"] as! String, $0) })
        #expect(byUser["jdoe"]?["state"] as? String == "would send" && byUser["jdoe"]?["forms"] as? Int == 2
                && byUser["jdoe"]?["reminders"] as? Int == 3, "Pump days 1 and 2, Valve day 1; not the expired one")
        #expect(byUser["jdoe"]?["calendar"] as? Int == 1, "Valve's day 2 is still to come")
        #expect(byUser["asmith"]?["state"] as? String == "skipped" && byUser["asmith"]?["reason"] as? String == "no mail address")
        #expect(byUser["nobody-here"]?["reason"] as? String == "not in the directory")
        #expect(try mails(mentioning: tag).isEmpty, "a dry run sends nothing")

        let sent = try setup.run(config, "remind")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try setup.rows(sent).first { $0["uid"] as? String == "jdoe" }?["state"] as? String == "sent")
        let mail = try #require(try mails(mentioning: tag).first)
        #expect(try mails(mentioning: tag).count == 1, "one mail for jdoe's two forms")
        #expect(mail.to == ["jdoe@example.com"] && mail.tls && mail.login, "STARTTLS and the login were used")
        #expect(mail.text.contains("'Pump \(tag)' (form \(jdoe["Pump \(tag)"]!), Monthly pump inspection), created 2026-11-16 08:15:00+00:00, expires 2026-11-23 08:15:00+00:00"))
        #expect(mail.text.contains("'Valve \(tag)'") && !mail.text.contains("Expired \(tag)"))
        #expect(mail.calendar.hasPrefix("BEGIN:VCALENDAR\r\n") && mail.calendar.hasSuffix("END:VCALENDAR\r\n"))
        #expect(mail.calendar.components(separatedBy: "BEGIN:VEVENT").count - 1 == 3, "the two forms' expiry, Valve's day 2")
        #expect(mail.calendar.contains("UID:mi-form-\(jdoe["Valve \(tag)"]!)-day-2@miadmin"))
        #expect(mail.calendar.contains("UID:mi-form-\(jdoe["Pump \(tag)"]!)-expires-"))
        #expect(mail.calendar.contains("DTSTART:20261123T081500Z"), "Pump's expiry, as the mail says")

        // The same day again: nothing new to send; the skipped are still listed.
        let again = try setup.run(config, "remind")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try setup.rows(again).map { $0["uid"] as! String }.sorted() == ["asmith", "nobody-here"])
        #expect(try mails(mentioning: tag).count == 1)

        // The next day, Valve's day-2 reminder is due: one more mail, for that form only.
        let tomorrow = try setup.run(config, now: "2026-11-22T09:00:00Z", "remind")
        #expect(tomorrow.status == 0, "\(tomorrow.stderr)")
        let second = try mails(mentioning: tag)
        #expect(second.count == 2)
        #expect(second.last.map { $0.text.contains("'Valve \(tag)'") && !$0.text.contains("'Pump \(tag)'") } == true)
    }

    @Test(arguments: OutboundEngine.allCases)
    func anUnreachableMailServerExits2AndTheNextRunSends(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        let down = try config(engine) { setKey(&$0, "mail.url", "smtp://127.0.0.1:1") }
        _ = try setup.importForms(down, incomplete: [("Pump \(tag)", "2026-11-20T08:15:00Z")])
        let failed = try setup.run(down, "remind")
        #expect(failed.status == 2, "\(failed.stderr)")
        #expect(failed.stderr.contains("the mail server could not be reached"))
        #expect(try setup.rows(failed).first { $0["uid"] as? String == "jdoe" }?["state"] as? String == "not sent")

        // The same store with the server back: the reminder was not recorded, so it goes now.
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: down))) as! [String: Any]
        setKey(&object, "mail.url", outbound["SMTP_URL"])
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: down))
        let sent = try setup.run(down, "remind")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try mails(mentioning: tag).count == 1)

        // A server whose certificate the CA did not sign: nothing is sent (exit 2).
        let wrong = try config(engine) { setKey(&$0, "mail.caFile", outbound["WRONG_CA_FILE"]) }
        _ = try setup.importForms(wrong, incomplete: [("Tank \(tag)", "2026-11-20T08:15:00Z")])
        let refused = try setup.run(wrong, "remind")
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(try mails(mentioning: "Tank \(tag)").isEmpty)
    }

    @Test func theCalendarKeepsTheDevicesCapOf64() throws {
        let tag = OutboundFixture.tag()
        let config = try config(.sqlite) { object in
            setKey(&object, "policy.expiryDays", 30)
            setKey(&object, "policy.notifyDays", Array(1...10))
        }
        // 8 forms created a day and an hour ago: day 1 due, days 2-10 pending (72 > 64).
        _ = try setup.importForms(config, incomplete: (1...8).map { ("Form \($0) \(tag)", "2026-11-20T08:00:00Z") })
        let result = try setup.run(config, "remind")
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(try setup.rows(result).first { $0["uid"] as? String == "jdoe" })
        #expect(row["reminders"] as? Int == 8 && row["calendar"] as? Int == 64)
        let mail = try #require(try mails(mentioning: tag).first)
        #expect(mail.calendar.components(separatedBy: "-day-").count - 1 == 64, "the reminders a device can hold")
        #expect(mail.calendar.components(separatedBy: "-expires-").count - 1 == 8, "and the expiry of each form the mail lists")
    }

    /// A form handed over restarts its expiry clock (`expiry-from assigned`, the default): its
    /// reminders count from the move, so all of them come before its new expiry and none is
    /// dated in the past, and the new owner is mailed them though the old one had them already.
    @Test(arguments: OutboundEngine.allCases)
    func aFormHandedOverIsRemindedOfItsNewExpiry(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        let config = try config(engine)
        // Policy: expiry 7 days, reminders on days 1 and 2. Created 11-16: days 1 and 2 are past.
        let ids = try setup.importForms(config, incomplete: [("Pump \(tag)", "2026-11-16T08:15:00Z")])
        let id = try #require(ids["Pump \(tag)"])
        let first = try setup.run(config, "remind")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try mails(mentioning: tag).map(\.to) == [["jdoe@example.com"]])

        // An hour after jdoe's mail, the form goes to sobrien: its clock starts again.
        let moved = try setup.run(config, now: "2026-11-21T10:00:00Z", "move \(id) sobrien --yes")
        #expect(moved.status == 0, "\(moved.stderr)")
        let plan = try setup.rows(try setup.run(config, now: "2026-11-21T10:00:00Z", "notifications --user sobrien"))
        #expect(plan.map { $0["at"] as? String ?? "" }.map { String($0.prefix(16)) } == ["2026-11-22T10:00", "2026-11-23T10:00"],
                "a day and two after the move: \(plan)")
        #expect(plan.allSatisfy { $0["pending"] as? Bool == true && ($0["expires"] as? String ?? "").hasPrefix("2026-11-28T10:00") },
                "\(plan)")

        // Not due at the move; a day later sobrien is mailed, with the new expiry in the mail and the calendar.
        #expect(try setup.rows(try setup.run(config, now: "2026-11-21T10:00:00Z", "remind")).allSatisfy { $0["uid"] as? String != "sobrien" })
        let next = try setup.run(config, now: "2026-11-22T11:00:00Z", "remind")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try setup.rows(next).first { $0["uid"] as? String == "sobrien" }?["state"] as? String == "sent", "\(next.stdout)")
        let mail = try #require(try mails(mentioning: tag).last)
        #expect(mail.to == ["sobrien@example.com"])
        #expect(mail.text.contains("expires 2026-11-28 10:00:00+00:00"), "\(mail.text)")
        #expect(mail.calendar.contains("UID:mi-form-\(id)-day-2@miadmin") && mail.calendar.contains("DTSTART:20261123T100000Z"))
        #expect(mail.calendar.contains("UID:mi-form-\(id)-expires-") && mail.calendar.contains("DTSTART:20261128T100000Z"))
    }

    @Test func mailSettingsAreChecked() throws {
        let cleartext = try config(.sqlite) { setKey(&$0, "mail.startTLS", false) }
        let result = try setup.run(cleartext, "forms")
        #expect(result.status == 1 && result.stderr.contains("mail.startTLS is false on an smtp:// URL"))
        let badFrom = try config(.sqlite) { setKey(&$0, "mail.from", "miadmin <x@example.com>") }
        #expect(try setup.run(badFrom, "forms").stderr.contains("key mail.from must be a mail address"))
        let none = try setup.fixture.config()
        let missing = try setup.run(none, "remind")
        #expect(missing.status == 1 && missing.stderr.contains("no mail configured"))
    }
}
