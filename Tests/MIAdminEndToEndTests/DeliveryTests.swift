import Foundation
import MITestSupport
import Testing

/// Where a test's store lives: the same commands on both engines.
enum OutboundEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// What outbound tests share: a store with completed forms on either engine, a config pointing
/// `delivery` and `mail` at the fixture's servers, and a runner with "now" fixed.
struct OutboundSetup {
    let fixture = Fixture.shared
    let outbound = OutboundFixture.shared
    static let now = "2026-11-21T09:00:00Z"

    /// A config on `engine` with `edit` applied (after the fixture's delivery defaults).
    func config(_ engine: OutboundEngine, _ edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let url = engine == .postgres ? try PostgresFixture.shared.newDatabase() : nil
        return try fixture.config { object in
            if let url {
                setKey(&object, "store.path", nil)
                setKey(&object, "store.url", url)
                setKey(&object, "store.passwordFile", PostgresFixture.shared["PG_PASSWORD_FILE"])
            }
            setKey(&object, "delivery.url", outbound["HTTPS_URL"] + "/ok")
            setKey(&object, "delivery.caFile", outbound["CA_FILE"])
            setKey(&object, "delivery.tokenFile", outbound["TOKEN_FILE"])
            setKey(&object, "delivery.timeoutSeconds", 2)
            edit(&object)
        }
    }

    func run(_ config: String, as uid: String = "mkhan", format: String = "json", now: String = now,
             _ commands: String...) throws -> ProcessResult {
        try run(config, as: uid, format: format, now: now, commands)
    }

    func run(_ config: String, as uid: String = "mkhan", format: String = "json", now: String = now,
             extra: [String] = [], _ commands: [String]) throws -> ProcessResult {
        var args = ["--config", config, "--user", uid, "--format", format] + extra
        for command in commands { args += ["-c", command] }
        return try MIAdmin.run(args, password: fixture.password(uid), environment: ["MIADMIN_NOW": now])
    }

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
                     "stdout: \(result.stdout) stderr: \(result.stderr)")
    }

    /// Imports `completed` completed forms of jdoe (each with two JPEG-named media files of
    /// `mediaBytes` bytes) and `incomplete` incomplete ones created at the given times; returns
    /// the ids by name.
    func importForms(_ config: String, completed: [String] = [], incomplete: [(String, String)] = [],
                     owner: String = "jdoe", mediaBytes: Int = 300_000) throws -> [String: Int] {
        let root = try TempDir.make() + "/Documents"
        func write(_ folder: String, name: String, created: String, answered: Bool, media: Bool) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let object: [String: Any] = [
                "name": name, "template": "Monthly pump inspection", "templateId": "T-17",
                "created": created, "modified": created,
                "questions": [["type": "shortAnswer", "text": "Serial number", "answer": answered ? "PX-1" as Any : NSNull()]],
            ]
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: folder + "/form.json"))
            guard media else { return }
            for n in 1...2 {
                var bytes = [UInt8](repeating: 0, count: mediaBytes)
                for i in 0..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ n &* 7 &+ name.utf8.count) }
                try Data(bytes).write(to: URL(fileURLWithPath: folder + "/Qid0(\(n)).jpg"))
            }
        }
        for name in completed {
            try write("\(root)/Completed MIs/\(owner)/\(name)", name: name, created: "2026-11-20T08:00:00Z", answered: true, media: true)
        }
        for (name, created) in incomplete {
            try write("\(root)/\(owner)/\(name)", name: name, created: created, answered: false, media: false)
        }
        let result = try run(config, "import --yes '\(root)'")
        #expect(result.status == 0, "\(result.stderr)")
        var ids: [String: Int] = [:]
        for row in try rows(result) { ids[row["name"] as! String] = row["id"] as? Int }
        return ids
    }

    func deliveries(_ config: String, _ arguments: String = "") throws -> [[String: Any]] {
        let result = try run(config, "deliveries \(arguments)")
        #expect(result.status == 0, "\(result.stderr)")
        return try rows(result)
    }
}

/// deliver and deliveries through the built binary, against the real HTTPS receivers of
/// Scripts/outbound-fixture, on SQLite and PostgreSQL.
@Suite(.tags(.endToEnd, .ldap, .postgres, .outbound)) struct DeliveryTests {
    let setup = OutboundSetup()
    var outbound: OutboundFixture { setup.outbound }

    @Test(arguments: OutboundEngine.allCases)
    func submittedFormsReachTheOfficeOnceOverOneConnection(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        let config = try setup.config(engine) { setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + "/seq/200/\(tag)") }
        let ids = try setup.importForms(config, completed: ["Pump A", "Pump B"])
        #expect(try setup.deliveries(config).isEmpty, "nothing is queued before a submit")
        let submit = try setup.run(config, "submit \(ids["Pump A"]!) --yes", "submit \(ids["Pump B"]!) --yes")
        #expect(submit.status == 0, "\(submit.stderr)")
        let queued = try setup.deliveries(config, "--state queued")
        #expect(queued.map { $0["form"] as! Int } == [ids["Pump A"]!, ids["Pump B"]!])
        #expect(queued.allSatisfy { $0["attempts"] as? Int == 0 && $0["version"] as? Int == 2 })

        let deliver = try setup.run(config, "deliver")
        #expect(deliver.status == 0, "\(deliver.stderr)")
        #expect(try setup.rows(deliver).map { $0["state"] as! String } == ["sent", "sent"])
        #expect(try setup.rows(deliver).map { $0["status"] as? Int } == [200, 200])

        let got = try outbound.received(path: "/seq/200/\(tag)")
        #expect(got.count == 2)
        let keys = queued.map { $0["idempotencyKey"] as! String }
        #expect(got.map { $0["idempotencyKey"] as? String } == keys)
        #expect(Set(keys).count == 2, "one key per form version")
        let token = try String(contentsOfFile: outbound["TOKEN_FILE"], encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(got.allSatisfy { $0["authorization"] as? String == "Bearer \(token)" })
        #expect(got[0]["clientPort"] as? Int == got[1]["clientPort"] as? Int, "the second post reused the connection")

        // The form part is show's JSON plus the delivery; each media part is the stored file.
        let show = try JSONSerialization.jsonObject(with: Data(setup.run(config, "show \(ids["Pump A"]!)").stdout.utf8)) as! [String: Any]
        let parts = got[0]["parts"] as! [[String: Any]]
        #expect(parts.map { $0["name"] as! String } == ["form", "media", "media"])
        let form = try JSONSerialization.jsonObject(with: Data((parts[0]["json"] as! String).utf8)) as! [String: Any]
        #expect(form["id"] as? Int == ids["Pump A"] && form["owner"] as? String == "jdoe" && form["state"] as? String == "submitted")
        #expect((form["questions"] as? [[String: Any]])?.first?["answer"] as? String == "PX-1")
        #expect((form["delivery"] as? [String: Any])?["idempotencyKey"] as? String == keys[0])
        let stored = (show["mediaFiles"] as! [[String: Any]]).map { [$0["file"] as! String, $0["sha256"] as! String] }
        #expect(parts.dropFirst().map { [$0["filename"] as! String, $0["sha256"] as! String] } == stored)
        #expect(parts.dropFirst().allSatisfy { $0["type"] as? String == "image/jpeg" && $0["size"] as? Int == 300_000 })

        // Sent is sent: a second run sends nothing.
        let again = try setup.run(config, "deliver --now")
        #expect(try again.status == 0 && setup.rows(again).isEmpty, "\(again.stderr)")
        #expect(try outbound.received(path: "/seq/200/\(tag)").count == 2)
        #expect(try setup.deliveries(config, "--state sent").count == 2)
    }

    @Test(arguments: OutboundEngine.allCases)
    func laterAnswersAreRetriedWithTheSameKeyAndRetryAfter(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        let path = "/seq/503,429,200/\(tag)"
        let config = try setup.config(engine) { setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + path) }
        let ids = try setup.importForms(config, completed: ["Pump A"])
        #expect(try setup.run(config, "submit \(ids["Pump A"]!) --yes").status == 0)

        let first = try setup.run(config, "deliver")
        #expect(first.status == 2, "503 leaves it queued: \(first.stderr)")
        #expect(first.stderr.contains("could not take 1 delivery(ies) now"))
        let row = try #require(try setup.rows(first).first)
        #expect(row["state"] as? String == "queued" && row["status"] as? Int == 503 && row["attempts"] as? Int == 1)
        #expect(row["nextTry"] as? String == "2026-11-21T09:02:00Z", "Retry-After: 120 honoured")
        #expect((row["error"] as? String)?.hasPrefix("HTTP 503") == true)

        let early = try setup.run(config, now: "2026-11-21T09:01:59Z", "deliver")
        #expect(try early.status == 0 && setup.rows(early).isEmpty, "not due yet: \(early.stderr)")
        let second = try setup.run(config, now: "2026-11-21T09:02:00Z", "deliver")
        #expect(second.status == 2)
        #expect(try setup.rows(second).first?["status"] as? Int == 429)
        let third = try setup.run(config, now: "2026-11-21T09:02:30Z", "deliver --now")
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try setup.rows(third).first?["state"] as? String == "sent")

        let got = try outbound.received(path: path)
        #expect(got.map { $0["answer"] as! String } == ["503", "429", "200"])
        #expect(Set(got.compactMap { $0["idempotencyKey"] as? String }).count == 1, "every try carries the same key")
        let delivery = try #require(try setup.deliveries(config).first)
        #expect(delivery["attempts"] as? Int == 3 && delivery["lastError"] is NSNull)
    }

    @Test(arguments: OutboundEngine.allCases)
    func refusalsAreHeldWithTheOfficesReasonUntilRetried(engine: OutboundEngine) throws {
        let config = try setup.config(engine) { setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + "/status/422") }
        let ids = try setup.importForms(config, completed: ["Pump A", "Pump B"])
        #expect(try setup.run(config, "submit \(ids["Pump A"]!) --yes", "submit \(ids["Pump B"]!) --yes").status == 0)
        let refused = try setup.run(config, "deliver")
        #expect(refused.status == 5, "newly held deliveries need a person, with their own status: \(refused.stderr)")
        #expect(refused.stderr.contains("error: 2 delivery(ies) newly held: the office did not take them"), "\(refused.stderr)")
        let held = try setup.deliveries(config, "--state held")
        #expect(held.count == 2)
        #expect(held.allSatisfy { ($0["lastError"] as? String)
                    == "HTTP 422 Unprocessable Entity: unprocessable: template T-17 is unknown to the office" }, "\(held)")
        #expect(try setup.deliveries(config, "--form \(ids["Pump B"]!)").map { $0["state"] as! String } == ["held"])
        #expect(try setup.run(config, "deliver --now").stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]",
                "held ones are not tried again")

        // 409 is another refusal.
        let conflict = try setup.config(engine) { setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + "/status/409") }
        let other = try setup.importForms(conflict, completed: ["Pump C"])
        _ = try setup.run(conflict, "submit \(other["Pump C"]!) --yes")
        _ = try setup.run(conflict, "deliver")
        #expect(try setup.deliveries(conflict).first?["lastError"] as? String
                == "HTTP 409 Conflict: conflict: another version of this form is being processed")

        // The office fixed its side: one retried by id, then the rest with --held.
        let notHeld = try setup.run(config, "deliveries retry 999")
        #expect(notHeld.status == 1 && notHeld.stderr.contains("no delivery with id 999"))
        let firstId = held[0]["id"] as! Int
        let one = try setup.run(config, "deliveries retry \(firstId) --note 'office fixed T-17'")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try setup.rows(one).map { $0["state"] as! String } == ["queued"])
        let twice = try setup.run(config, "deliveries retry \(firstId)")
        #expect(twice.status == 1 && twice.stderr.contains("is queued, not held"))
        let all = try setup.run(config, "deliveries retry --held")
        #expect(try setup.rows(all).map { $0["id"] as! Int } == [held[1]["id"] as! Int])
        let neither = try setup.run(config, "deliveries retry")
        #expect(neither.status == 1 && neither.stderr.contains("--held"))

        let audit = try setup.rows(setup.run(config, "audit --user mkhan")).filter { $0["command"] as? String == "deliveries.retry" }
        #expect(audit.count == 2)
    }

    @Test(arguments: OutboundEngine.allCases)
    func anUnreachableOfficeGetsNothingAndLosesNothing(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        var url = outbound["WRONG_CA_URL"] + "/seq/200/\(tag)"
        let config = try setup.config(engine) { setKey(&$0, "delivery.url", url) }
        let ids = try setup.importForms(config, completed: ["Pump A", "Pump B"])
        #expect(try setup.run(config, "submit \(ids["Pump A"]!) --yes", "submit \(ids["Pump B"]!) --yes").status == 0)

        // A certificate from another CA: refused before anything is sent; the run stops there.
        let wrongCA = try setup.run(config, "deliver")
        #expect(wrongCA.status == 2, "\(wrongCA.stderr)")
        #expect(wrongCA.stderr.contains("could not be reached") && wrongCA.stderr.contains("certificate"))
        #expect(wrongCA.stderr.contains("2 delivery(ies) stay queued"))
        #expect(try outbound.received(path: "/seq/200/\(tag)").isEmpty, "the receiver got nothing")
        #expect(try setup.deliveries(config, "--state queued").map { $0["attempts"] as! Int } == [1, 0])

        // Nothing listening, a dropped connection, an answer slower than the timeout.
        for (path, words) in [("http-closed", "connect"), ("/drop", "Empty reply"), ("/slow", "too slow")] {
            url = path == "http-closed" ? "https://127.0.0.1:1/x" : outbound["HTTPS_URL"] + path
            let other = try setup.config(engine) { setKey(&$0, "delivery.url", url); setKey(&$0, "delivery.timeoutSeconds", 1) }
            let form = try setup.importForms(other, completed: ["Pump"], mediaBytes: 10)
            _ = try setup.run(other, "submit \(form["Pump"]!) --yes")
            let result = try setup.run(other, "deliver")
            #expect(result.status == 2, "\(path): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(path): \(result.stderr)")
            #expect(try setup.deliveries(other, "--state queued").count == 1, "\(path): still queued")
        }

        // Out of tries: held, with the reason.
        let limited = try setup.config(engine) {
            setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + "/drop")
            setKey(&$0, "delivery.maxAttempts", 2)
        }
        let form = try setup.importForms(limited, completed: ["Pump"], mediaBytes: 10)
        _ = try setup.run(limited, "submit \(form["Pump"]!) --yes")
        _ = try setup.run(limited, "deliver")
        _ = try setup.run(limited, "deliver --now")
        let gaveUp = try #require(try setup.deliveries(limited).first)
        #expect(gaveUp["state"] as? String == "held" && gaveUp["attempts"] as? Int == 2)
        #expect((gaveUp["lastError"] as? String)?.hasSuffix("(gave up after 2 tries)") == true)
    }

    @Test(arguments: OutboundEngine.allCases)
    func mutualTLSNeedsTheClientCertificate(engine: OutboundEngine) throws {
        let tag = OutboundFixture.tag()
        let url = outbound["MTLS_URL"] + "/seq/200/\(tag)"
        let without = try setup.config(engine) { setKey(&$0, "delivery.url", url) }
        let ids = try setup.importForms(without, completed: ["Pump"], mediaBytes: 10)
        _ = try setup.run(without, "submit \(ids["Pump"]!) --yes")
        let refused = try setup.run(without, "deliver")
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(try outbound.received(path: "/seq/200/\(tag)").isEmpty)

        let with = without.replacingOccurrences(of: "miadmin.json", with: "with-cert.json")
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: without))) as! [String: Any]
        setKey(&object, "delivery.clientCertificate", outbound["CLIENT_CERT"])
        setKey(&object, "delivery.clientKey", outbound["CLIENT_KEY"])
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: with))
        let sent = try setup.run(with, "deliver --now")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try outbound.received(path: "/seq/200/\(tag)").count == 1)
    }

    @Test(arguments: OutboundEngine.allCases)
    func theOutboxFollowsTheSubmitsTransactionAndReopen(engine: OutboundEngine) throws {
        let config = try setup.config(engine)
        let ids = try setup.importForms(config, completed: ["Pump A", "Pump B"])
        // A submit rolled back (--atomic, a later command fails) queues nothing.
        let atomic = try setup.run(config, extra: ["--atomic"], ["submit \(ids["Pump A"]!) --yes", "move 999 asmith"])
        #expect(atomic.status != 0 && atomic.stderr.contains("nothing was saved"))
        #expect(try setup.deliveries(config).isEmpty)

        // Reopened before it went out: the delivery is held, the office never gets that version.
        #expect(try setup.run(config, "submit \(ids["Pump A"]!) --yes").status == 0)
        let early = try setup.run(config, "reopen \(ids["Pump A"]!) --note 'photos missing'")
        #expect(early.status == 0 && early.stderr.contains("had not gone to the office yet"), "\(early.stderr)")
        #expect(try setup.deliveries(config).first?["lastError"] as? String
                == "the form was reopened by mkhan before it was delivered; dismiss or resubmit")

        // Reopened after it went out: the console says the office has it.
        #expect(try setup.run(config, "submit \(ids["Pump B"]!) --yes").status == 0)
        #expect(try setup.run(config, "deliver").status == 0)
        let late = try setup.run(config, "reopen \(ids["Pump B"]!) --note 'wrong pump'")
        #expect(late.status == 0, "\(late.stderr)")
        #expect(late.stderr.contains("was already delivered to the office (2026-11-21 09:00:00+00:00)"))
    }

    /// A reopened form's held delivery is no dead end: put back, `deliver` says what it is (the
    /// office was never asked), and `deliveries dismiss` ends it, so neither `today` nor the
    /// nightly `deliver` reports it again.
    @Test(arguments: OutboundEngine.allCases)
    func aReopenedFormsHeldDeliveryIsDismissed(engine: OutboundEngine) throws {
        let config = try setup.config(engine)
        let ids = try setup.importForms(config, completed: ["Pump D"], mediaBytes: 10)
        let form = try #require(ids["Pump D"])
        #expect(try setup.run(config, "submit \(form) --yes").status == 0)
        #expect(try setup.run(config, "reopen \(form) --note 'photos missing'").status == 0)
        let delivery = try #require(try setup.deliveries(config).first?["id"] as? Int)

        #expect(try setup.run(config, "deliveries retry \(delivery)").status == 0)
        let again = try setup.run(config, "deliver")
        #expect(again.status == 5, "\(again.stderr)")
        #expect(again.stderr.contains("1 delivery(ies) newly held: the form was reopened; dismiss or resubmit"), "\(again.stderr)")
        #expect(!again.stderr.contains("the office did not take them"), "the office was never asked")
        let reason = try setup.deliveries(config).first?["lastError"] as? String ?? ""
        #expect(reason.hasPrefix("the form was reopened; dismiss or resubmit (form \(form) is version ") && reason.contains(", incomplete,"),
                "\(reason)")
        func heldInToday() throws -> Int? {
            try setup.rows(try setup.run(config, "today")).first { $0["what"] as? String == "deliveries held" }?["count"] as? Int
        }
        #expect(try heldInToday() == 1)

        // A technician may not; support may.
        #expect(try setup.run(config, as: "jdoe", "deliveries dismiss \(delivery) --note x").status == 1)
        let dismissed = try setup.run(config, as: "lchen", "deliveries dismiss \(delivery) --note 'reopened; will be resubmitted'")
        #expect(dismissed.status == 0, "\(dismissed.stderr)")
        let record = try JSONSerialization.jsonObject(with: Data(dismissed.stdout.utf8)) as? [String: Any]
        #expect(record?["state"] as? String == "dismissed" && record?["id"] as? Int == delivery, "\(dismissed.stdout)")
        #expect(try setup.deliveries(config, "--state held").isEmpty)
        #expect(try heldInToday() == 0)
        let nightly = try setup.run(config, "deliver")
        #expect(nightly.status == 0, "\(nightly.stderr)")
        let audit = try setup.rows(try setup.run(config, "audit --command deliveries.dismiss"))
        #expect(audit.count == 1 && audit.first?["user"] as? String == "lchen"
                && audit.first?["note"] as? String == "reopened; will be resubmitted", "\(audit)")
        // Once: it is no longer held.
        let twice = try setup.run(config, as: "lchen", "deliveries dismiss \(delivery) --note again")
        #expect(twice.status == 1, "\(twice.stderr)")
    }

    @Test func deliverWithoutDeliveryConfigOrWithCleartextIsRefused() throws {
        let none = try setup.fixture.config()
        let result = try setup.run(none, "deliver")
        #expect(result.status == 1 && result.stderr.contains("no delivery configured: set delivery.url"))
        let cleartext = try setup.config(.sqlite) { setKey(&$0, "delivery.url", "http://127.0.0.1:1/forms") }
        let refused = try setup.run(cleartext, "forms")
        #expect(refused.status == 1 && refused.stderr.contains("key delivery.url must be an https:// URL"))
        let atomic = try setup.run(try setup.config(.sqlite), extra: ["--dry-run"], ["deliver"])
        #expect(atomic.status != 0 && atomic.stderr.contains("which no rollback can undo"), "\(atomic.stderr)")
        let technician = try setup.run(try setup.config(.sqlite), as: "jdoe", "deliver")
        #expect(technician.status == 1 && technician.stderr.contains("'deliver' needs the foreman role"))
    }

    /// nginx in front of the office: a 413 names the body's size and the limit, a redirect where
    /// to and the setting; support may put the held ones back.
    @Test func aProxysRefusalsSayWhatToChangeAndSupportMayRetry() throws {
        let engine = OutboundEngine.allCases[0]
        let large = try setup.config(engine) { setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + "/status/413") }
        let big = try setup.importForms(large, completed: ["Pump L"], mediaBytes: 2 << 20)
        #expect(try setup.run(large, "submit \(big["Pump L"]!) --yes").status == 0)
        let refused = try setup.run(large, "deliver")
        #expect(refused.status == 5, "\(refused.stderr)")
        let reason = try #require(try setup.deliveries(large).first?["lastError"] as? String)
        #expect(reason.hasPrefix("HTTP 413 Request Entity Too Large: the body of ") && reason.contains(" MiB (")
                && reason.contains("bytes) (the form and its media) is larger than the receiver takes"), "\(reason)")
        #expect(!reason.contains("<"), "no markup: \(reason)")

        let moved = try setup.config(engine) { setKey(&$0, "delivery.url", outbound["HTTPS_URL"] + "/status/308") }
        let form = try setup.importForms(moved, completed: ["Pump R"], mediaBytes: 10)
        _ = try setup.run(moved, "submit \(form["Pump R"]!) --yes")
        #expect(try setup.run(moved, "deliver").status == 5)
        #expect(try setup.deliveries(moved).first?["lastError"] as? String
                == "HTTP 308 Permanent Redirect → https://office.example/mi/v2/forms: not followed; update delivery.url")

        let support = try setup.run(moved, as: "lchen", "deliveries retry --held")
        #expect(support.status == 0, "\(support.stderr)")
        #expect(try setup.deliveries(moved).first?["state"] as? String == "queued")
    }
}
