import Foundation
import Logging
import MICommands
import MIDirectory
import MIStore
import Testing

/// The crew rule on a real SQLite store: each session opens its own store on one
/// file, as each console process does, and the store enforces the session's scope. Crews come
/// from the fake directory (``FakeDirectory/withCrews()``): Kolonne Nord (mkhan leads; jdoe,
/// zangstrom), Kolonne Süd (tpatel leads; asmith, sobrien), slead in the all-teams group.
@Suite("Crew rule")
struct CrewRuleTests {
    /// A store with the sample tree plus forms for the south crew, and the ids of the forms the
    /// tests act on.
    final class Site {
        let dir: URL
        let path: String
        let directory = FakeDirectory().withCrews()
        /// The site's now, for the stores and sessions made after it is set (a test moves it on).
        var clock = FixedClock(Date(timeIntervalSince1970: 1_796_000_000))
        /// jdoe's incomplete and completed forms (Kolonne Nord).
        var northIncomplete: Int64 = 0, northCompleted: Int64 = 0
        /// asmith's incomplete and completed forms (Kolonne Süd).
        var southIncomplete: Int64 = 0, southCompleted: Int64 = 0

        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("crew-test-\(UUID().uuidString)")
            let tree = dir.appendingPathComponent("Documents")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.sampleTree, toPath: tree.path)
            try Self.copyForm(in: tree, from: "jdoe/Pump station 4", to: "sobrien/Hydrant 9", name: "Hydrant 9")
            try Self.copyForm(in: tree, from: "Completed MIs/jdoe/Generator monthly", to: "Completed MIs/asmith/Generator weekly",
                              name: "Generator weekly")
            path = dir.appendingPathComponent("store.sqlite").path
            let store = try unscoped()
            _ = try store.importTree(at: tree, actor: "setup")
            try store.forEachForm { form in
                switch (form.owner, form.state) {
                case ("jdoe", .incomplete) where form.name == "Pump station 4": northIncomplete = form.id
                case ("jdoe", .completed): northCompleted = form.id
                case ("asmith", .incomplete) where form.name == "Pump station 4": southIncomplete = form.id
                case ("asmith", .completed): southCompleted = form.id
                default: break
                }
            }
        }

        deinit { try? FileManager.default.removeItem(at: dir) }

        static let sampleTree: String = {
            var url = URL(fileURLWithPath: #filePath)
            url.deleteLastPathComponent()
            url.deleteLastPathComponent()
            return url.appendingPathComponent("Fixtures/Documents").path
        }()

        static func copyForm(in tree: URL, from: String, to: String, name: String) throws {
            let source = try String(contentsOf: tree.appendingPathComponent(from).appendingPathComponent("form.json"), encoding: .utf8)
            let oldName = String(from.split(separator: "/").last!)
            let target = tree.appendingPathComponent(to)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try source.replacingOccurrences(of: "\"name\": \"\(oldName)\"", with: "\"name\": \"\(name)\"")
                .write(to: target.appendingPathComponent("form.json"), atomically: true, encoding: .utf8)
        }

        /// The store as support sees it: every crew.
        func unscoped() throws -> FormStore { try FormStore(path: path, clock: clock) }

        /// A console session of `uid` with its own store connection.
        func session(_ uid: String, config json: String = CommandHarness.configJSON) throws -> (Session, RecordingSink) {
            let config = try AppConfig.parse(Data(json.utf8), path: "/fake/config.json")
            let path = self.path, clock = self.clock
            let session = Session(config: config, user: FakeDirectory.user(uid), directory: directory,
                                  logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, clock: clock) {
                try FormStore(path: path, clock: clock)
            }
            session.assumeYes = true
            return (session, RecordingSink())
        }

        func run(_ uid: String, _ words: [String], config: String = CommandHarness.configJSON) throws -> RecordingSink {
            let (session, output) = try session(uid, config: config)
            let (command, name) = try CommandHarness.parse(words)
            try session.run(command, named: name, output: output)
            return output
        }

        /// Everything a refusal must leave as it was: every form (live and trashed) with its
        /// owner, name, state and version, the audit trail's length, and every notice.
        func snapshot() throws -> [String] {
            let store = try unscoped()
            var lines: [String] = []
            try store.forEachForm { lines.append("form \($0.id) \($0.owner)/\($0.name) \($0.state) v\($0.version)") }
            try store.forEachTrashedForm { lines.append("trashed \($0.form.id) \($0.form.owner)/\($0.form.name) v\($0.form.version)") }
            var audit = 0
            try store.forEachAuditEntry { _ in audit += 1 }
            lines.append("audit \(audit)")
            for uid in ["jdoe", "asmith", "sobrien", "mkhan", "tpatel", "zangstrom"] {
                lines += try store.notices(for: uid, unreadOnly: false).map { "notice \($0.id) \(uid) read:\($0.readAt != nil)" }
            }
            return lines
        }
    }

    private func owners(_ output: RecordingSink) -> Set<String> {
        Set(output.rows.compactMap { row -> String? in
            if case .string(let owner) = row[2] { return owner }
            return nil
        })
    }

    @Test func aForemanListsTheFormsOfHisCrewOnly() throws {
        let site = try Site()
        #expect(owners(try site.run("mkhan", ["forms"])) == ["jdoe"])
        #expect(owners(try site.run("tpatel", ["forms"])) == ["asmith", "sobrien"])
        #expect(owners(try site.run("slead", ["forms"])) == ["asmith", "jdoe", "sobrien"])
        #expect(owners(try site.run("lchen", ["forms"])) == ["asmith", "jdoe", "sobrien"])
        #expect(owners(try site.run("jdoe", ["forms"])) == ["jdoe"])
        // A glob on --owner is limited by the crews, not refused.
        #expect(owners(try site.run("mkhan", ["forms", "--owner", "*s*"])).isEmpty)
        #expect(owners(try site.run("mkhan", ["forms", "--state", "completed"])) == ["jdoe"])
        #expect(owners(try site.run("lchen", ["forms", "--team", "Kolonne Süd"])) == ["asmith", "sobrien"])
    }

    /// Every command the issue names, by the north foreman on the south crew's forms (or with a
    /// south target): an owner or target outside refused with the rule and the crew named, an id
    /// of a south form answered as an id no form has, and the store is as it was.
    @Test func outsideTheCrewEveryCommandIsRefusedAndChangesNothing() throws {
        let site = try Site()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("crew-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let a = "\(site.southIncomplete)", c = "\(site.southCompleted)", j = "\(site.northIncomplete)"
        let lines: [[String]] = [
            ["forms", "--owner", "asmith"],
            ["forms", "--team", "Kolonne Süd"],
            ["show", a],
            ["show", "asmith/Pump station 4"],
            ["report", c, "--pdf", out.appendingPathComponent("r.pdf").path],
            ["report", "--state", "completed", "--owner", "asmith", "--dir", out.path],
            ["media", a, "--out", out.path],
            ["comment", c, "looks fine"],
            ["submit", c, "--yes"],
            ["reopen", c, "--note", "redo"],
            ["move", a, "jdoe"],
            ["move", j, "asmith"],
            ["move", "asmith/Pump station 4", "zangstrom"],
            ["notices", "asmith"],
            ["notifications", "--user", "asmith"],
            ["trash", "--owner", "asmith"],
            ["users", "--team", "Kolonne Süd"],
            ["teams", "show", "Kolonne Süd"],
        ]
        let before = try site.snapshot()
        for line in lines {
            let error = #expect(throws: (any Error).self, "\(line)") { _ = try site.run("mkhan", line) }
            if let id = line.dropFirst().first.flatMap({ Int64($0) }), id == site.southIncomplete || id == site.southCompleted {
                #expect((error as? StoreError)?.kind == .notFound, "\(line): \(String(describing: error))")
                #expect("\(error.map { "\($0)" } ?? "")" == "No form \(id).", "\(line): \(String(describing: error))")
            } else {
                let refused = error?.isPermissionDenied == true || (error as? StoreError)?.kind == .forbidden
                #expect(refused, "\(line): \(String(describing: error))")
                #expect("\(error.map { "\($0)" } ?? "")".contains("Kolonne Nord"), "\(line): \(String(describing: error))")
            }
            #expect(try site.snapshot() == before, "\(line) changed the store")
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("r.pdf").path))
    }

    /// The permission matrix extended to crews: every command the issue names, on a form (or
    /// owner, or target) inside the north crew and on one outside it, for the north foreman, the
    /// site lead, support and a technician. "Passes" means the crew rule let it through (the
    /// command may still fail for another reason: a state, a role, a missing option).
    static let crewLines: [(name: String, line: @Sendable (_ form: String, _ owner: String, _ completed: String) -> [String])] = [
        ("forms", { _, owner, _ in ["forms", "--owner", owner] }),
        ("show", { form, _, _ in ["show", form] }),
        ("media", { form, _, _ in ["media", form, "--out", "/nonexistent/media"] }),
        ("report", { _, _, done in ["report", done, "--pdf", "/nonexistent/r.pdf"] }),
        ("comment", { _, _, done in ["comment", done, "fine"] }),
        ("submit", { _, _, done in ["submit", done] }),
        ("reopen", { _, _, done in ["reopen", done, "--note", "redo"] }),
        ("trash", { _, owner, _ in ["trash", "--owner", owner] }),
        ("notices", { _, owner, _ in ["notices", owner] }),
        ("audit", { form, _, _ in ["audit", "--form", form] }),
        ("notifications", { _, owner, _ in ["notifications", "--user", owner] }),
        ("move source", { form, _, _ in ["move", form, "zangstrom"] }),
        ("move target", { _, owner, _ in ["move", "jdoe/Pump station 4", owner] }),
        ("bulk move", { _, owner, _ in ["move", "\(owner)/*", "zangstrom", "--yes"] }),
        ("bulk submit", { _, owner, _ in ["submit", "--owner", owner, "--yes"] }),
        ("workload", { _, owner, _ in ["workload", "--owner", owner] }),
    ]

    @Test(arguments: crewLines.map(\.name))
    func theCrewMatrix(name: String) throws {
        let make = try #require(Self.crewLines.first { $0.name == name }).line
        let site = try Site()
        let inside = make("\(site.northIncomplete)", "jdoe", "\(site.northCompleted)")
        let outside = make("\(site.southIncomplete)", "asmith", "\(site.southCompleted)")
        /// The crew refusal, or (an id outside the reach) the answer of a missing form: an
        /// error saying there is no such form, or an audit trail without a row.
        func keptOut(_ uid: String, _ line: [String]) -> Bool {
            do {
                let output = try site.run(uid, line)
                return name == "audit" && output.rows.isEmpty
            } catch {
                return "\(error)".contains("not in your crews") || "\(error)".hasPrefix("No form")
            }
        }
        func crewRefused(_ uid: String, _ line: [String]) -> Bool {
            do {
                _ = try site.run(uid, line)
                return false
            } catch {
                return "\(error)".contains("not in your crews")
            }
        }
        for uid in ["mkhan", "slead", "lchen", "jdoe"] {
            #expect(!keptOut(uid, inside), "\(uid): \(inside)")
        }
        #expect(keptOut("mkhan", outside), "mkhan: \(outside)")
        for uid in ["slead", "lchen"] {
            // Site leads and support reach every crew.
            #expect(!keptOut(uid, outside), "\(uid): \(outside)")
        }
        // A technician meets his own rule, not the crews'.
        #expect(!crewRefused("jdoe", outside), "jdoe: \(outside)")
    }

    @Test func insideTheCrewTheForemanWorksAsBefore() throws {
        let site = try Site()
        let move = try site.run("mkhan", ["move", "\(site.northIncomplete)", "zangstrom", "--note", "jdoe off sick"])
        #expect(move.records.first?.values[2] == .string("zangstrom"))
        _ = try site.run("mkhan", ["comment", "\(site.northCompleted)", "looks fine"])
        _ = try site.run("mkhan", ["submit", "\(site.northCompleted)", "--yes"])
        let show = try site.run("mkhan", ["show", "zangstrom/Pump station 4"])
        #expect(!show.records.isEmpty || !show.rows.isEmpty)
        // The audit trail a foreman reads is his crews' (and site-wide rows), not the south's.
        let audit = try site.run("mkhan", ["audit"])
        #expect(!audit.rows.isEmpty)
        #expect(!audit.rows.contains { $0.contains { "\($0)".contains("asmith/") } })
    }

    @Test func siteLeadsAndSupportReachEveryCrew() throws {
        let site = try Site()
        // A site lead moves between crews; support reads anywhere.
        let move = try site.run("slead", ["move", "\(site.southIncomplete)", "jdoe"])
        #expect(move.records.first?.values[1] == .string("asmith"))
        #expect(move.records.first?.values[2] == .string("jdoe"))
        _ = try site.run("lchen", ["show", "\(site.southCompleted)"])
        // The move put the form into the north crew: its foreman now sees it, and was told.
        #expect(try site.run("mkhan", ["forms", "--owner", "jdoe"]).rows.contains { $0[0] == .int(site.southIncomplete) })
        let store = try site.unscoped()
        let told = try store.notices(for: "mkhan").filter { $0.source == Notice.sourceMoveIntoCrew }
        #expect(told.map(\.text) == ["Form 'Pump station 4 (2)' came into your crew (Kolonne Nord): given to jdoe from asmith by foreman slead."])
        // The south foreman hears that his technician's form went; the crew's other members are not told.
        #expect(try store.notices(for: "tpatel").map(\.text)
                == ["Form 'Pump station 4 (2)' of asmith in your crew (Kolonne Süd) was given to jdoe by foreman slead."])
        // The audit row names the crews before and after.
        var row: AuditEntry?
        try store.forEachAuditEntry(AuditFilter(command: "move")) { row = $0 }
        #expect(row?.before?.contains(#""crews":["Kolonne Süd"]"#) == true)
        #expect(row?.after?.contains(#""crews":["Kolonne Nord"]"#) == true)
    }

    /// A move inside one crew tells no foreman as such (the owners get their notices as before).
    @Test func aMoveInsideTheCrewTellsNoForeman() throws {
        let site = try Site()
        _ = try site.run("mkhan", ["move", "\(site.northIncomplete)", "zangstrom"])
        #expect(try site.unscoped().notices(for: "mkhan").isEmpty)
    }

    @Test func aForemansExpiryTakesHisCrewsFormsOnly() throws {
        let site = try Site()
        _ = try site.run("mkhan", ["expire", "--days", "1", "--yes"])
        let store = try site.unscoped()
        var trashedOwners = Set<String>()
        try store.forEachTrashedForm { trashedOwners.insert($0.form.owner) }
        #expect(trashedOwners == ["jdoe"])
        #expect(try store.countForms(FormFilter(owner: "asmith", state: .incomplete)) == 2)
        // Restore is the crew's too: the south foreman cannot take the north's form back.
        let error = #expect(throws: StoreError.self) { _ = try site.run("tpatel", ["restore", "jdoe/Pump station 4"]) }
        #expect(error?.kind == .forbidden)
        _ = try site.run("mkhan", ["restore", "jdoe/Pump station 4"])
    }

    @Test func whoamiAndTeamsSayWhichCrews() throws {
        let site = try Site()
        #expect(try site.run("mkhan", ["whoami"]).records.first?.values.last == .string("Kolonne Nord"))
        #expect(try site.run("slead", ["whoami"]).records.first?.values.last == .string("every crew (site lead)"))
        let teams = try site.run("mkhan", ["teams"])
        #expect(teams.columns == ["team", "foremen", "technicians", "incomplete", "completed", "submitted"])
        #expect(teams.rows.map { $0[0] } == [.string("Kolonne Nord")])
        #expect(teams.rows.first?[1] == .list([.string("mkhan")]))
        #expect(teams.rows.first?[2] == .int(2))
        let all = try site.run("lchen", ["teams"])
        #expect(all.rows.map { $0[0] } == [.string("Kolonne Nord"), .string("Kolonne Süd")])
        #expect(all.rows.last?[2] == .int(3))  // tpatel (foreman and technician), asmith, sobrien
        let members = try site.run("tpatel", ["teams", "show", "Kolonne Süd"])
        #expect(members.rows.map { $0[0] } == [.string("asmith"), .string("sobrien"), .string("tpatel")])
    }

    /// Counts and workloads: by crew, and the technicians with no forms only from the user's crews.
    /// Where the crews come without their members (Active Directory's from `tokenGroups`, whose
    /// nested crew groups may hold thousands), `whoami` and the notices at login read none: the
    /// first command on forms reads them, and the store, opened before for the user's own rows,
    /// then acts for the whole crew.
    @Test func theCrewMembersAreReadWhenACommandFirstNeedsThem() throws {
        let site = try Site()
        _ = site.directory.lazyMembers()
        let (session, output) = try site.session("mkhan")
        let (whoami, name) = try CommandHarness.parse(["whoami"])
        try session.run(whoami, named: name, output: output)
        #expect(output.records.first?.values.last == .string("Kolonne Nord"))
        _ = try session.storeForOwnRows().listing.notices(for: "mkhan", unreadOnly: true)
        #expect(site.directory.questions.filter { $0.hasPrefix("led crews") } == ["led crews mkhan without members"])
        let (forms, formsName) = try CommandHarness.parse(["forms"])
        let listing = RecordingSink()
        try session.run(forms, named: formsName, output: listing)
        #expect(owners(listing) == ["jdoe"])
        #expect(site.directory.questions.filter { $0.hasPrefix("led crews") }
                == ["led crews mkhan without members", "led crews mkhan"])
    }

    @Test func countsAndWorkloadsStayInsideTheCrews() throws {
        let site = try Site()
        let all = try site.run("lchen", ["forms", "--count-by", "team"])
        #expect(all.columns == ["team", "count"])
        #expect(all.rows == [[.string("Kolonne Süd"), .int(4)], [.string("Kolonne Nord"), .int(3)]])
        let north = try site.run("mkhan", ["forms", "--count-by", "team,state"])
        #expect(north.rows == [[.string("Kolonne Nord"), .string("incomplete"), .int(2)],
                               [.string("Kolonne Nord"), .string("completed"), .int(1)]])
        let owners = try site.run("mkhan", ["forms", "--count-by", "owner"])
        #expect(owners.rows == [[.string("jdoe"), .int(3)], [.string("zangstrom"), .int(0)]])
        let workload = try site.run("mkhan", ["workload"])
        #expect(workload.rows.map { $0[0] } == [.string("jdoe"), .string("zangstrom")])
        let south = try site.run("lchen", ["workload", "--team", "Kolonne Süd"])
        #expect(south.rows.map { $0[0] } == [.string("asmith"), .string("sobrien"), .string("tpatel")])
    }

    /// The outbox keeps to the crews too: a foreman lists the deliveries of his crews' forms
    /// only, and puts back in the queue only theirs; another crew's delivery is refused by name
    /// and stays held. Support sees every crew's.
    @Test func deliveriesStayInsideTheCrews() throws {
        let site = try Site()
        let store = try site.unscoped()
        var held: [String: Int64] = [:]
        for (owner, id) in [("jdoe", site.northCompleted), ("asmith", site.southCompleted)] {
            _ = try store.submit(.id(id), actor: "setup")
            let delivery = try #require(try store.dueDeliveries(ignoringBackoff: true).first { $0.formId == id })
            _ = try store.recordDeliveryTry(delivery.id, outcome: .held(error: "HTTP 422"))
            held[owner] = delivery.id
        }
        func deliveryOwners(_ uid: String) throws -> Set<String> {
            Set(try site.run(uid, ["deliveries"]).rows.compactMap { row -> String? in
                if case .string(let owner) = row[2] { return owner }
                return nil
            })
        }
        #expect(try deliveryOwners("mkhan") == ["jdoe"])
        #expect(try deliveryOwners("tpatel") == ["asmith"])
        #expect(try deliveryOwners("lchen") == ["jdoe", "asmith"])

        let before = try site.snapshot()
        let south = try #require(held["asmith"]), north = try #require(held["jdoe"])
        let error = #expect(throws: StoreError.self) { _ = try site.run("mkhan", ["deliveries", "retry", "\(south)"]) }
        #expect(error?.kind == .forbidden && error?.message == "asmith is not in your crews (Kolonne Nord)")
        #expect(try site.snapshot() == before)
        let retried = try site.run("mkhan", ["deliveries", "retry", "--held"])
        #expect(retried.rows.map { $0[0] } == [.int(north)])
        #expect(try store.delivery(north).state == .queued && store.delivery(south).state == .held)

        // Dismissing is for those who reach every crew: a foreman of some is refused, even for
        // his own crew's delivery; support ends the south's.
        let dismissRefused = #expect(throws: (any Error).self) {
            _ = try site.run("mkhan", ["deliveries", "dismiss", "\(north)", "--note", "reopened"])
        }
        #expect(dismissRefused?.isPermissionDenied == true && "\(dismissRefused!)".contains("support staff and site leads"),
                "\(String(describing: dismissRefused))")
        _ = try site.run("lchen", ["deliveries", "dismiss", "\(south)", "--note", "office retired the template"])
        #expect(throws: StoreError.self) { _ = try store.delivery(south) }
    }

    /// A foreman's session stays open while the directory moves jdoe from Kolonne Nord to
    /// Kolonne Süd. Once the crews are `teams.refreshSeconds` old the next command reads them
    /// again and says so once; from then on jdoe's forms are out of reach.
    @Test func aSessionReadsItsCrewsAgainWhenTheyAreOld() throws {
        let site = try Site()
        _ = site.directory.refreshing(every: 60)
        let (session, _) = try site.session("mkhan")
        var uptime = 1_000.0
        session.crewUptime = { uptime }
        func run(_ words: [String]) throws -> RecordingSink {
            let output = RecordingSink()
            let (command, name) = try CommandHarness.parse(words)
            try session.run(command, named: name, output: output)
            return output
        }
        #expect(owners(try run(["forms"])) == ["jdoe"])
        site.directory.moveMember("jdoe", from: "Kolonne Nord", to: "Kolonne Süd")
        // Within the refresh time the session still acts on what it read.
        uptime += 59
        #expect(owners(try run(["forms"])) == ["jdoe"])
        uptime += 1
        let before = try site.snapshot()
        let moveOutput = RecordingSink()
        let (move, moveName) = try CommandHarness.parse(["move", "\(site.northIncomplete)", "zangstrom"])
        let refused = #expect(throws: (any Error).self) { try session.run(move, named: moveName, output: moveOutput) }
        // Out of reach now: the id is answered as one no form has.
        #expect("\(refused.map { "\($0)" } ?? "")" == "No form \(site.northIncomplete).")
        #expect(try site.snapshot() == before)
        #expect(moveOutput.warnings == ["crews changed: jdoe left Kolonne Nord"])
        // Said once; jdoe's forms are out of reach in the listing, a lookup and the store's scope.
        let forms = try run(["forms"])
        #expect(forms.warnings.isEmpty)
        #expect(owners(forms).isEmpty)
        #expect(throws: (any Error).self) { _ = try run(["show", "\(site.northCompleted)"]) }
        #expect(try session.store().administration.ownerScope.allows("jdoe") == false)

        // `refresh` reads them at once: jdoe back in the north crew.
        site.directory.moveMember("jdoe", from: "Kolonne Süd", to: "Kolonne Nord")
        let refreshed = try run(["refresh"])
        #expect(refreshed.messages == ["crews changed: jdoe joined Kolonne Nord"])
        #expect(owners(try run(["forms"])) == ["jdoe"])
        #expect(try run(["refresh"]).messages == ["crews unchanged: Kolonne Nord"])
    }

    /// `deliver` is site-wide: a crew foreman who is no site lead sends the whole queue (a timer
    /// under his account must not stall on another crew's form), and its rows name only his
    /// crews' forms; the others are counted. The office is a closed port: the first try (the
    /// south crew's form, first in the queue) is made and recorded, and the run stops there as
    /// for any foreman, with the rest left queued.
    @Test func deliverSendsTheWholeQueueForAnyForeman() throws {
        let site = try Site()
        let store = try site.unscoped()
        var queued: [String: Int64] = [:]
        for (owner, id) in [("asmith", site.southCompleted), ("jdoe", site.northCompleted)] {
            _ = try store.submit(.id(id), actor: "setup")
            queued[owner] = try #require(try store.dueDeliveries(ignoringBackoff: true).first { $0.formId == id }).id
        }
        let config = CommandHarness.configJSON.replacingOccurrences(
            of: #""store": {"#, with: #""delivery": {"url": "https://127.0.0.1:1/forms"}, "store": {"#)
        let (session, output) = try site.session("mkhan", config: config)
        let (command, name) = try CommandHarness.parse(["deliver", "--now"])
        let error = #expect(throws: (any Error).self) { try session.run(command, named: name, output: output) }
        // Stopped by the office, not by the crew rule.
        #expect(error is OutboundFailure, "\(String(describing: error))")
        #expect(!"\(String(describing: error))".contains("not in your crews"))
        // The south form was tried (and stays queued for the next run); its row is not shown.
        let south = try store.delivery(try #require(queued["asmith"]))
        #expect(south.attempts == 1 && south.state == .queued)
        #expect(output.rows.isEmpty)
        #expect(output.notes.contains { $0.contains("1 delivery(ies) of other crews' forms") }, "\(output.notes)")
    }

    /// An import by a foreman takes his crews' folders and reports the others untouched; a copy
    /// of the whole store is for those who reach every crew.
    @Test func importAndStoreCopiesKeepToTheCrews() throws {
        let site = try Site()
        let tree = site.dir.appendingPathComponent("Mixed")
        let documents = site.dir.appendingPathComponent("Documents")
        try Site.copyForm(in: documents, from: "jdoe/Pump station 4", to: "../Mixed/jdoe/North new", name: "North new")
        try Site.copyForm(in: documents, from: "jdoe/Pump station 4", to: "../Mixed/asmith/South new", name: "South new")
        let before = try site.snapshot().filter { $0.contains("asmith") }
        let (session, output) = try site.session("mkhan")
        let (command, name) = try CommandHarness.parse(["import", tree.path, "--yes"])
        #expect(throws: CommandError.self) { try session.run(command, named: name, output: output) }
        #expect(output.warnings.contains { $0.contains("asmith is not in your crews (Kolonne Nord); not imported") },
                "\(output.warnings)")
        let store = try site.unscoped()
        #expect(try store.countForms(FormFilter(owner: "jdoe")) == 4)
        #expect(try site.snapshot().filter { $0.contains("asmith") } == before)

        let backup = site.dir.appendingPathComponent("copy.sqlite").path
        let refused = #expect(throws: CommandError.self) { _ = try site.run("mkhan", ["store", "backup", backup]) }
        #expect(refused?.isPermissionDenied == true)
        #expect(refused?.description.contains("only support staff and site leads") == true)
        #expect(!FileManager.default.fileExists(atPath: backup))
        _ = try site.run("lchen", ["store", "backup", backup])
        #expect(FileManager.default.fileExists(atPath: backup))
    }

    /// A form that comes in completed tells the foremen of its owner's crews, once.
    @Test func aCompletedFormTellsTheForemenOfItsCrew() throws {
        let site = try Site()
        let tree = site.dir.appendingPathComponent("Later")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try Site.copyForm(in: site.dir.appendingPathComponent("Documents"), from: "Completed MIs/jdoe/Generator monthly",
                          to: "../Later/Completed MIs/zangstrom/Generator yearly", name: "Generator yearly")
        _ = try site.run("lchen", ["import", tree.path, "--yes"])
        let store = try site.unscoped()
        let told = try store.notices(for: "mkhan").filter { $0.source == Notice.sourceCompleted }
        #expect(told.count == 1)
        #expect(told.first?.text.contains("'Generator yearly' of zangstrom was completed") == true)
        #expect(try store.notices(for: "tpatel").isEmpty)
        // Importing the same tree again completes nothing new: nobody is told twice.
        _ = try site.run("lchen", ["import", tree.path, "--yes"])
        #expect(try store.notices(for: "mkhan").count == 1)
    }

    /// Without `teams` in the config nothing is limited: the sample harness's foreman sees all.
    @Test func withoutCrewsEveryForemanSeesEveryForm() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["forms"])
        #expect(harness.store.ownerScope == .everyone)
        #expect(harness.directory.questions.isEmpty)
        let error = #expect(throws: CommandError.self) { try harness.run(["teams"]) }
        #expect(error?.description.contains("keeps no crews") == true)
    }
}
