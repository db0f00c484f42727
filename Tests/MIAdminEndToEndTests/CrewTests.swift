import Foundation
import MITestSupport
import Testing

/// Crews through the built binary on a real slapd: crews as groups under an OU and as
/// `manager` attributes (``CrewDirectory``; jdoe works in Kolonne Nord and Kolonne Ost), on a
/// real SQLite store.
@Suite(.tags(.endToEnd, .ldap, .activeDirectory)) struct CrewTests {
    let fixture = CrewDirectory.fixture

    /// A store holding forms of both crews, imported by support; the config's path.
    func store(_ config: String) throws -> String {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "North pump")
        try tree.form("zangstrom", "North valve")
        try tree.form("asmith", "South pump")
        try tree.form("sobrien", "South valve")
        try tree.form("jdoe", "North done", completed: true)
        try tree.form("asmith", "South done", completed: true)
        let result = try run("lchen", config, ["import --yes " + shellQuote(tree.root)])
        #expect(result.status == 0, "\(result.stderr)")
        return config
    }

    func run(_ uid: String, _ config: String, format: String? = nil, _ commands: [String]) throws -> ProcessResult {
        try MIAdmin.as_(uid, config: config, format: format, commands, fixture: fixture)
    }

    /// The owners of a `forms --format csv` listing.
    func owners(_ uid: String, _ config: String, _ extra: String = "") throws -> Set<String> {
        let result = try run(uid, config, format: "csv", ["forms" + extra])
        #expect(result.status == 0, "\(result.stderr)")
        return Set(result.stdout.split(whereSeparator: \.isNewline).dropFirst().map { String($0.split(separator: ",")[2]) })
    }

    /// Every row of every table, to show a refusal changed nothing.
    func dump(_ config: String) throws -> String {
        try sqlite(fixture.storePath(config), ".dump")
    }

    @Test func groupsUnderAnOUAreCrews() throws {
        let config = try store(try CrewDirectory.groupsConfig())
        #expect(try owners("mkhan", config) == ["jdoe", "zangstrom"])
        #expect(try owners("tpatel", config) == ["asmith", "sobrien"])
        #expect(try owners("sitelead", config) == ["jdoe", "zangstrom", "asmith", "sobrien"])
        #expect(try owners("lchen", config) == ["jdoe", "zangstrom", "asmith", "sobrien"])
        #expect(try owners("lchen", config, " --team 'Kolonne Süd'") == ["asmith", "sobrien"])

        let whoami = try run("mkhan", config, format: "json", ["whoami"])
        #expect(whoami.stdout.contains(#""crews":"Kolonne Nord""#), "\(whoami.stdout)")
        let teams = try run("lchen", config, format: "csv", ["teams"])
        #expect(teams.status == 0, "\(teams.stderr)")
        #expect(teams.stdout.hasPrefix("team,foremen,technicians,incomplete,completed,submitted\r\n"), "\(teams.stdout)")
        #expect(teams.stdout.contains("Kolonne Nord,mkhan,3,2,1,0"), "\(teams.stdout)")
        #expect(teams.stdout.contains("Kolonne Süd,tpatel,3,2,1,0"), "\(teams.stdout)")
        let members = try run("mkhan", config, format: "csv", ["users --team 'Kolonne Nord' --role technician"])
        #expect(members.stdout.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",").first! } == ["jdoe", "u00010", "zangstrom"])
    }

    /// jdoe is in Kolonne Nord and Kolonne Ost: `teams` counts him in both and says so; a
    /// mistyped or partial crew name gets the crew it probably meant.
    @Test func teamsNamesWhoIsCountedTwiceAndCrewTyposGetASuggestion() throws {
        let config = try store(try CrewDirectory.groupsConfig())
        let teams = try run("lchen", config, format: "csv", ["teams"])
        #expect(teams.status == 0, "\(teams.stderr)")
        #expect(teams.stderr.contains("counted in each of their crews (technicians and forms): jdoe is in Kolonne Nord and Kolonne Ost"),
                "\(teams.stderr)")
        let own = try run("tpatel", config, format: "csv", ["teams"])
        #expect(!own.stderr.contains("counted in each"), "one crew: nobody twice: \(own.stderr)")
        for (uid, line, meant) in [("lchen", "teams show 'Kolonne Nrod'", "Kolonne Nord"),
                                   ("lchen", "teams show ost", "Kolonne Ost"),
                                   ("mkhan", "policy show --team 'kolone nord'", "Kolonne Nord"),
                                   ("sitelead", "policy set --team 'Kolonne Sud' expiry-days 9 --dry-run", "Kolonne Süd")] {
            let result = try run(uid, config, [line])
            #expect(result.status != 0 && result.stderr.contains("did you mean '\(meant)'?"), "\(line): \(result.stderr)")
        }
    }

    /// Outside his crews a foreman is refused with the rule and his crews named, exit 1, and
    /// the store is byte for byte as it was.
    @Test func refusalsNameTheCrewsAndChangeNothing() throws {
        let config = try store(try CrewDirectory.groupsConfig())
        let before = try dump(config)
        for line in ["show 'asmith/South pump'", "move 'asmith/South pump' jdoe", "move 'jdoe/North pump' asmith",
                     "comment 'asmith/South done' fine", "submit --yes 'asmith/South done'", "forms --owner sobrien",
                     "notices asmith", "reopen 'asmith/South done' --note redo", "teams show 'Kolonne Süd'"] {
            let result = try run("mkhan", config, [line])
            #expect(result.status == 1, "\(line): \(result.stderr)")
            #expect(result.stderr.contains("is not in your crews (Kolonne Nord)")
                    || result.stderr.contains("is not one of your crews (Kolonne Nord)"), "\(line): \(result.stderr)")
        }
        #expect(try dump(config) == before)
        // Expiry by the north foreman takes the north's forms only.
        let expire = try run("mkhan", config, ["expire --days 1 --yes"])
        #expect(expire.status == 0, "\(expire.stderr)")
        let trashed = try sqlite(fixture.storePath(config), "SELECT owner FROM forms WHERE trashed_at IS NOT NULL ORDER BY owner")
        #expect(trashed == "jdoe\nzangstrom")
    }

    /// A crew's own policy (`policy set --team`): the north crew keeps forms 30 days, so the
    /// site lead's `expire` (site policy: 7 days) takes only the south crew's 10-day-old forms.
    /// jdoe is also in Kolonne Ost, whose 8 days lose to the north's longer 30.
    @Test func aCrewsOwnExpiryDaysKeepItsForms() throws {
        let config = try CrewDirectory.groupsConfig()
        let tree = try DocumentsTree()
        let created = Date().addingTimeInterval(-10 * 86_400).formatted(.iso8601)
        for (owner, name) in [("jdoe", "North pump"), ("zangstrom", "North valve"), ("asmith", "South pump"), ("sobrien", "South valve")] {
            try tree.form(owner, name, created: created)
        }
        let imported = try run("lchen", config, ["import --yes " + shellQuote(tree.root)])
        #expect(imported.status == 0, "\(imported.stderr)")

        let set = try run("mkhan", config, format: "csv", ["policy set --team 'Kolonne Nord' expiry-days 30 --note 'long jobs'"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("expiry-days,7,30,team Kolonne Nord"), "\(set.stdout)")
        let ost = try run("sitelead", config, ["policy set --team 'Kolonne Ost' expiry-days 8"])
        #expect(ost.status == 0, "\(ost.stderr)")
        // Not his crew; support sets no policy.
        let refused = try run("tpatel", config, ["policy set --team 'Kolonne Nord' expiry-days 3"])
        #expect(refused.status == 1 && refused.stderr.contains("is not one of your crews (Kolonne Süd)"), "\(refused.stderr)")
        #expect(try run("lchen", config, ["policy set --team 'Kolonne Nord' expiry-days 3"]).status == 1)

        let shown = try run("mkhan", config, format: "csv", ["policy show"])
        #expect(shown.stdout.contains("expiry-days,30,team Kolonne Nord,mkhan,"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("Kolonne Ost"), "\(shown.stdout)")
        let crew = try run("mkhan", config, format: "csv", ["policy show --team 'Kolonne Nord'"])
        #expect(crew.stdout.contains("expiry-days,30,team Kolonne Nord"), "\(crew.stdout)")
        #expect(crew.stdout.contains("notify-days,\"1,2\",config") || crew.stdout.contains("notify-days,1,2,config"), "\(crew.stdout)")

        let preview = try run("sitelead", config, format: "csv", ["expire --dry-run"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let listed = Set(preview.stdout.split(whereSeparator: \.isNewline).dropFirst().map { String($0.split(separator: ",")[2]) })
        #expect(listed == ["asmith", "sobrien"], "\(preview.stdout)")
        let expire = try run("sitelead", config, ["expire --yes"])
        #expect(expire.status == 0, "\(expire.stderr)")
        let trashed = try sqlite(fixture.storePath(config), "SELECT owner FROM forms WHERE trashed_at IS NOT NULL ORDER BY owner")
        #expect(trashed == "asmith\nsobrien")
        let audit = try sqlite(fixture.storePath(config), "SELECT object FROM audit WHERE command = 'policy.set' ORDER BY id")
        #expect(audit == "policy team Kolonne Nord expiry-days\npolicy team Kolonne Ost expiry-days")
    }

    /// A site lead moves a form between crews; the receiving crew's foreman is told, and the
    /// audit row names both crews.
    @Test func aSiteLeadMovesBetweenCrewsAndTheReceivingForemanHears() throws {
        let config = try store(try CrewDirectory.groupsConfig())
        let move = try run("sitelead", config, ["move 'asmith/South pump' jdoe --note 'asmith on leave'"])
        #expect(move.status == 0, "\(move.stderr)")
        let notices = try run("mkhan", config, format: "csv", ["notices"])
        #expect(notices.stdout.contains("came into your crew (Kolonne Nord): given to jdoe from asmith by foreman sitelead: asmith on leave"),
                "\(notices.stdout)")
        // jdoe is in Kolonne Ost too: its foreman hears of it, naming his crew.
        let ost = try run("obauer", config, format: "csv", ["notices"])
        #expect(ost.stdout.contains("came into your crew (Kolonne Ost)"), "\(ost.stdout)")
        let audit = try sqlite(fixture.storePath(config), "SELECT before || ' ' || after FROM audit WHERE command = 'move'")
        #expect(audit.contains(#""crews":["Kolonne Süd"]"#) && audit.contains(#""crews":["Kolonne Nord","Kolonne Ost"]"#), "\(audit)")
        #expect(try owners("mkhan", config).contains("jdoe"))
    }

    /// jdoe works in Kolonne Nord and Kolonne Ost: when mkhan (Nord) gives his form to zangstrom
    /// (Nord only), the Ost foreman hears that his technician's form went, and the undo tells him
    /// once that it came back; the crew's own foreman, who did it, is told nothing.
    @Test func movingATechnicianInTwoCrewsTellsEveryForemanOfHisCrewsOnce() throws {
        let config = try store(try CrewDirectory.groupsConfig())
        let moveAndUndo = try run("mkhan", config, ["move 'jdoe/North pump' zangstrom --yes", "undo --yes"])
        #expect(moveAndUndo.status == 0, "\(moveAndUndo.stderr)")
        func told(_ uid: String) throws -> [String] {
            try sqlite(fixture.storePath(config), "SELECT text FROM notices WHERE uid = '\(uid)' AND source = 'move.crew' ORDER BY id")
                .split(separator: "\n").map(String.init)
        }
        let obauer = try told("obauer")
        #expect(obauer.count == 2, "once each way: \(obauer)")
        #expect(obauer.first == "Form 'North pump' of jdoe in your crew (Kolonne Ost) was given to zangstrom by foreman mkhan.", "\(obauer)")
        #expect(obauer.last?.hasPrefix("Form 'North pump' came into your crew (Kolonne Ost): given to jdoe from zangstrom by foreman mkhan")
                == true, "\(obauer)")
        #expect(try told("mkhan").isEmpty)
        // A site lead's move between crews: the foremen of both hear of it.
        let across = try run("sitelead", config, ["move 'sobrien/South valve' jdoe --yes"])
        #expect(across.status == 0, "\(across.stderr)")
        #expect(try told("tpatel") == ["Form 'South valve' of sobrien in your crew (Kolonne Süd) was given to jdoe by foreman sitelead."])
        #expect(try told("mkhan") == ["Form 'South valve' came into your crew (Kolonne Nord): given to jdoe from sobrien by foreman sitelead."])
    }

    /// A handover of jdoe's two forms inside Kolonne Nord and its undo: Kolonne Ost's foreman
    /// hears once of each change, with both forms, not once per form.
    @Test func aBulkMoveTellsTheOtherCrewsForemanOncePerChange() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "North pump")
        try tree.form("jdoe", "North well")
        let config = try CrewDirectory.groupsConfig()
        let imported = try run("lchen", config, ["import --yes " + shellQuote(tree.root)])
        #expect(imported.status == 0, "\(imported.stderr)")
        let moveAndUndo = try run("mkhan", config, ["move 'jdoe/*' zangstrom,u00010 --yes", "undo --yes"])
        #expect(moveAndUndo.status == 0, "\(moveAndUndo.stderr)")
        let obauer = try sqlite(fixture.storePath(config), "SELECT text FROM notices WHERE uid = 'obauer' ORDER BY id")
            .split(separator: "\n").map(String.init)
        #expect(obauer == ["2 forms of your crew (Kolonne Ost) changed hands by foreman mkhan ('North pump' from jdoe to zangstrom, "
                           + "'North well' from jdoe to u00010).",
                           "2 forms of your crew (Kolonne Ost) changed hands by foreman mkhan ('North pump' from zangstrom to jdoe, "
                           + "'North well' from u00010 to jdoe): undo of a move by mkhan"], "\(obauer)")
    }

    /// Tab at the prompt offers the foreman's crew only: move targets, form owners, crew names.
    @Test func completionStaysInsideTheCrews() throws {
        let config = try store(try CrewDirectory.groupsConfig())
        let prompt = "mkhan@foreman> "
        let term = try TerminalSession(uid: "mkhan", config: config, fixture: fixture)
        try term.waitFor(prompt)
        try term.type("move 'jdoe/North pump' ")
        try term.press("Tab", "Tab")
        let targets = try term.waitFor("zangstrom")
        #expect(!targets.contains("asmith") && !targets.contains("sobrien"), "\(targets)")
        try term.press("C-u")
        try term.type("show ")
        try term.press("Tab", "Tab")
        let owners = try term.waitFor("zangstrom/")
        #expect(owners.contains("jdoe/") && !owners.contains("asmith/") && !owners.contains("sobrien/"), "\(owners)")
        try term.press("C-u")
        try term.type("forms --team Kol")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "forms --team 'Kolonne Nord' ") == "forms --team 'Kolonne Nord' ")
    }

    @Test func theManagerAttributeMakesCrews() throws {
        let config = try store(try CrewDirectory.managerConfig())
        #expect(try owners("mkhan", config) == ["jdoe", "zangstrom"])
        #expect(try owners("tpatel", config) == ["asmith", "sobrien"])
        let refused = try run("mkhan", config, ["move 'jdoe/North pump' sobrien"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("sobrien is not in your crews (mkhan)"), "\(refused.stderr)")
        let moved = try run("mkhan", config, ["move 'jdoe/North pump' zangstrom"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let teams = try run("mkhan", config, format: "csv", ["teams"])
        #expect(teams.stdout.contains("mkhan,mkhan,3,"), "\(teams.stdout)")
    }

    /// Without `teams` the same directory and store behave as before crews: every foreman, every form.
    @Test func withoutCrewsEveryForemanSeesEveryForm() throws {
        let config = try store(try fixture.config())
        #expect(try owners("mkhan", config) == ["jdoe", "zangstrom", "asmith", "sobrien"])
        #expect(try run("mkhan", config, ["move 'asmith/South pump' jdoe"]).status == 0)
    }

    /// Active Directory: a crew whose technicians are in a group nested in the crew group
    /// (`ldap.nestedGroups`), kept outside the crew base.
    @Test(.enabled(if: Fixture.activeDirectory != nil)) func aNestedCrewGroupOnActiveDirectory() throws {
        let ad = try #require(CrewDirectory.activeDirectory)
        let config = try ad.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", "OU=Kolonnen-e2e,\(ad["LDAP_BASE"])")
        }
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Ost pump")
        try tree.form("zangstrom", "Ost valve")
        try tree.form("asmith", "Elsewhere")
        let imported = try MIAdmin.as_("lchen", config: config, ["import --yes " + shellQuote(tree.root)], fixture: ad)
        #expect(imported.status == 0, "\(imported.stderr)")
        let forms = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms"], fixture: ad)
        let owners = Set(forms.stdout.split(whereSeparator: \.isNewline).dropFirst().map { String($0.split(separator: ",")[2]) })
        #expect(owners == ["jdoe", "zangstrom"], "\(forms.stdout) \(forms.stderr)")
        let refused = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Ost pump' asmith"], fixture: ad)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("asmith is not in your crews (Kolonne Ost)"), "\(refused.stderr)")
        let moved = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Ost pump' zangstrom"], fixture: ad)
        #expect(moved.status == 0, "\(moved.stderr)")
        // A foreman in no crew acts on his own forms only.
        let none = try MIAdmin.as_("tpatel", config: config, format: "json", ["whoami"], fixture: ad)
        #expect(none.stdout.contains("no crew"), "\(none.stdout)")
    }
}
