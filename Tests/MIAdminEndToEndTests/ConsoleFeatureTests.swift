import Foundation
import MITestSupport
import Testing

/// Console features people reach for, through the built binary against the real slapd and SQLite.
@Suite(.tags(.endToEnd, .ldap)) struct ConsoleFeatureTests {
    let fixture = Fixture.shared

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }
    func rows(_ result: ProcessResult) throws -> [[String: Any]] { try json(result.stdout) as! [[String: Any]] }

    @Test func versionIsPrinted() throws {
        let result = try MIAdmin.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("miadmin 1."))
    }

    /// The command line is parsed by argument-parser's `parseAsRoot`, whose completion-script
    /// check the vendored parser skips when no argument asks for one (PATCHES.md): help, usage
    /// errors and the completion scripts must still be argument-parser's own.
    @Test func helpUsageErrorsAndCompletionScriptsComeFromArgumentParser() throws {
        let help = try MIAdmin.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: miadmin <options>"), "\(help.stdout)")
        #expect(help.stdout.contains("--password-file <file>"))
        let unknown = try MIAdmin.run(["--no-such-option"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("Unknown option '--no-such-option'"), "\(unknown.stderr)")
        let both = try MIAdmin.run(["-c", "whoami", "-f", "script.mi"])
        #expect(both.status == 1)
        #expect(both.stderr.contains("use either -c or -f, not both"), "\(both.stderr)")
        let badFormat = try MIAdmin.run(["--format", "xml"])
        #expect(badFormat.status == 1)
        #expect(badFormat.stderr.contains("'xml'"), "\(badFormat.stderr)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try MIAdmin.run(["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("password-file"), "\(shell): \(script.stdout.prefix(200))")
        }
        let bash = try MIAdmin.run(["--generate-completion-script=bash"])
        #expect(bash.status == 0 && bash.stdout.contains("complete"))
    }

    @Test func mistypedCommandsGetASuggestionAndSplitNamesAQuotingHint() throws {
        let typo = try MIAdmin.as_("mkhan", ["whoamu"])
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("did you mean 'whoami'?"))
        let unknown = try MIAdmin.as_("mkhan", ["zzzzzz"])
        #expect(!unknown.stderr.contains("did you mean"))
        // Quoting is offered when the quoted words name a form: the sample's.
        let split = try MIAdmin.as_("mkhan", config: try fixture.store(importing: try Paths.copyOfSampleTree()),
                                    ["show jdoe/Pump station 4"])
        #expect(split.status == 1)
        #expect(split.stderr.contains("must be quoted, as in: show 'jdoe/Pump station 4'"), "\(split.stderr)")
    }

    /// Hints that say what to type.
    @Test func hintsForHelpTyposForgottenNotesUnquotedTextAndUnknownOwners() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let help = try MIAdmin.as_("mkhan", config: config, ["help mvoe"])
        #expect(help.status == 1 && help.stderr.contains("unknown command 'mvoe'; did you mean 'move'?"), "\(help.stderr)")
        let note = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Valve check – north' asmith 'on leave'"])
        #expect(note.status == 1)
        #expect(note.stderr.contains("to give a reason use --note, as in: move 'jdoe/Valve check – north' asmith --note 'on leave'"),
                "\(note.stderr)")
        let comment = try MIAdmin.as_("mkhan", config: config, ["comment 13 Looks fine"])
        #expect(comment.stderr.contains("the comment's text must be quoted, as in: comment 13 'Looks fine'"), "\(comment.stderr)")
        let glob = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --owner 'as*'"])
        #expect(glob.status == 0 && glob.stdout.contains("asmith") && !glob.stdout.contains(",jdoe,"), "\(glob.stdout)")
        let typo = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --owner jdo"])
        #expect(typo.status == 0, "a note, not an error")
        #expect(typo.stderr.contains("note: no form in the store belongs to 'jdo'; did you mean 'jdoe'?"), "\(typo.stderr)")
        let technicianHelp = try MIAdmin.as_("jdoe", config: config, format: "csv", ["help"])
        #expect(technicianHelp.stdout.contains("forms,") && !technicianHelp.stdout.contains("expire,"), "\(technicianHelp.stdout)")
    }

    @Test func cannotReadAScriptSaysWhy() throws {
        let dir = try TempDir.make()
        let missing = try MIAdmin.as_("mkhan", ["source \(dir)/nope.mi"])
        #expect(missing.stderr.contains("cannot read '\(dir)/nope.mi': no such file"))
        let folder = try MIAdmin.as_("mkhan", ["source \(dir)"])
        #expect(folder.stderr.contains("it is a folder, not a file"))
        let launch = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan", "-f", dir + "/nope.mi"],
                                     password: fixture.password("mkhan"))
        #expect(launch.status == 1 && launch.stderr.contains("no such file"))
    }

    @Test func submitNeedsYesInScriptsAndAForemanCanReopenASubmittedForm() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Done", completed: true)
        let config = try fixture.store(importing: tree.root)
        let store = try fixture.storePath(config)
        let refused = try MIAdmin.as_("mkhan", config: config, ["submit jdoe/Done"])
        #expect(refused.status == 1 && refused.stderr.contains("add --yes"), "\(refused.stderr)")
        #expect(try sqlite(store, "SELECT state FROM forms") == "completed")
        #expect(try MIAdmin.as_("mkhan", config: config, ["submit jdoe/Done --yes"]).status == 0)
        // Support may not take a submitted form back; a foreman may, with a reason, audited.
        let support = try MIAdmin.as_("lchen", config: config, ["reopen jdoe/Done --note 'wrong gauge'"])
        #expect(support.status == 1 && support.stderr.contains("only a foreman"), "\(support.stderr)")
        let foreman = try MIAdmin.as_("mkhan", config: config, ["reopen jdoe/Done --note 'submitted too early'"])
        #expect(foreman.status == 0, "\(foreman.stderr)")
        #expect(try sqlite(store, "SELECT state FROM forms") == "incomplete")
        #expect(try sqlite(store, "SELECT json_extract(before, '$.state') || ' ' || note FROM audit WHERE command = 'reopen'")
                == "submitted submitted too early")
    }

    @Test func importWarnsAboutOwnersWhoAreNotTechnicians() throws {
        let tree = try DocumentsTree()
        try tree.form("nbody", "Nobody's form")
        try tree.form("mkhan", "Foreman's form")
        try tree.form("jdoe", "Fine")
        let config = try fixture.config()
        let result = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(tree.root))"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: owner nbody is not a technician (no role): 1 form(s) imported"))
        #expect(result.stderr.contains("warning: owner mkhan is not a technician (foreman)"))
        #expect(!result.stderr.contains("owner jdoe"))
        let orphans = try rows(MIAdmin.as_("mkhan", config: config, format: "json", ["orphans"]))
        #expect(Set(orphans.map { $0["owner"] as! String }) == ["nbody", "mkhan"])
    }

    @Test func formsCountByGroupsWithTheSameFilters() throws {
        let tree = try DocumentsTree()
        for i in 1...3 { try tree.form("jdoe", "J\(i)") }
        try tree.form("asmith", "A1")
        try tree.form("asmith", "A2", completed: true)
        let config = try fixture.store(importing: tree.root)
        let byOwner = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --state incomplete --count-by owner"])
        // Most first, then the directory's technicians with none, by uid.
        #expect(Array(byOwner.lines.prefix(4)) == ["owner,count", "jdoe,3", "asmith,1", "sobrien,0"], "\(byOwner.lines.prefix(6))")
        #expect(byOwner.lines.contains("u00001,0") && !byOwner.lines.contains { $0.hasPrefix("mkhan,") })
        let byState = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --owner asmith --count-by state"])
        #expect(byState.lines == ["state,count", "completed,1", "incomplete,1"])
    }

    @Test func auditAnswersQuestions() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump")
        try tree.form("asmith", "Pump")
        try tree.form("jdoe", "Other")
        let config = try fixture.config()
        let imported = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "import --yes \(shellQuote(tree.root))"],
                                       password: fixture.password("mkhan"), environment: ["MIADMIN_NOW": "2026-11-18T09:00:00Z"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let now = ["MIADMIN_NOW": "2026-11-21T09:00:00Z"]
        func run(_ command: String, as uid: String = "mkhan", env: [String: String] = [:]) throws -> ProcessResult {
            try MIAdmin.run(["--config", config, "--user", uid, "--format", "json", "-c", command],
                            password: fixture.password(uid), environment: env)
        }
        #expect(try run("move jdoe/Pump asmith --note leave", env: now).status == 0)    // becomes asmith/Pump (2)
        #expect(try run("move 'asmith/Pump (2)' sobrien", as: "lchen", env: now).status == 0)
        #expect(try run("move jdoe/Other asmith", env: ["MIADMIN_NOW": "2026-11-19T09:00:00Z"]).status == 0)

        // --form follows the form by id through both moves, from the name it had first.
        let followed = try rows(run("audit --form jdoe/Pump"))
        #expect(followed.map { $0["command"] as! String } == ["import.insert", "move", "move"], "\(followed)")
        // before and after are objects in JSON.
        let move = try #require(followed.dropFirst().first)
        let before = try #require(move["before"] as? [String: Any])
        let after = try #require(move["after"] as? [String: Any])
        #expect(before["owner"] as? String == "jdoe" && after["name"] as? String == "Pump (2)")
        #expect(try rows(run("audit --command move --last 1")).map { $0["user"] as! String } == ["lchen"])
        #expect(try rows(run("audit --command move --user mkhan")).count == 2)
        #expect(try rows(run("audit --command import")).count == 3, "a family name takes import.insert")
        let recent = try rows(run("audit --command move --since 1d", env: now))
        #expect(recent.count == 2, "\(recent)")
        #expect(try rows(run("audit --command move --since yesterday", env: now)).count == 2)
        #expect(try rows(run("audit --command move --since 2026-11-19")).count == 3)
        let bad = try run("audit --since sometime")
        #expect(bad.status == 1 && bad.stderr.contains("--since"))
    }

    @Test func timesAreShownInTheConfiguredZone() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump", created: "2026-11-16T08:15:00Z")
        let config = try fixture.store(importing: tree.root)
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as! [String: Any]
        setKey(&object, "display.timeZone", "Asia/Tokyo")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let listed = try rows(MIAdmin.as_("mkhan", config: config, format: "json", ["forms"]))
        #expect(listed.first?["created"] as? String == "2026-11-16T17:15:00+09:00")
        let table = try MIAdmin.as_("mkhan", config: config, ["forms"])
        #expect(table.stdout.contains("2026-11-16 17:15:00+09:00"))
        let audit = try MIAdmin.as_("mkhan", config: config, format: "csv", ["audit --last 1"])
        #expect(audit.stdout.contains("+09:00,mkhan,import.insert"), "\(audit.stdout)")
        // UTC: JSON and CSV keep the Z the store's times always had; tables show +00:00.
        setKey(&object, "display.timeZone", "UTC")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        #expect(try rows(MIAdmin.as_("mkhan", config: config, format: "json", ["forms"])).first?["created"] as? String
                == "2026-11-16T08:15:00Z")
        #expect(try MIAdmin.as_("mkhan", config: config, ["forms"]).stdout.contains("2026-11-16 08:15:00+00:00"))

        setKey(&object, "display.timeZone", "Mars/Olympus")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let bad = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(bad.status == 1 && bad.stderr.contains("display.timeZone"))
    }

    @Test func mediaWritesAFormsFilesIncludingTrashedForms() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump", created: "2026-10-01T08:00:00Z",
                      media: ["Qid0(1).jpg": "photo bytes", "Qid1(1).m4a": "voice bytes"])
        try tree.form("asmith", "Hers", media: ["Qid0(1).jpg": "her photo"])
        let config = try fixture.store(importing: tree.root)
        let out = try TempDir.make() + "/review"
        let all = try MIAdmin.as_("mkhan", config: config, format: "csv", ["media jdoe/Pump --out \(shellQuote(out))"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try String(contentsOfFile: out + "/Qid0(1).jpg", encoding: .utf8) == "photo bytes")
        #expect(try String(contentsOfFile: out + "/Qid1(1).m4a", encoding: .utf8) == "voice bytes")
        #expect(all.lines.count == 3)
        #expect(all.lines.first == "form,file,bytes,path", "the word show uses for a file's size")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["Qid0(1).jpg", "Qid1(1).m4a"])

        // In the trash: still readable, by id or by the name it had.
        let expired = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "expire --yes"],
                                      password: fixture.password("mkhan"), environment: ["MIADMIN_NOW": "2026-11-21T09:00:00Z"])
        #expect(expired.status == 0, "\(expired.stderr)")
        let one = try TempDir.make()
        let trashed = try MIAdmin.as_("mkhan", config: config, ["media jdoe/Pump 'Qid1(1).m4a' --out \(shellQuote(one))"])
        #expect(trashed.status == 0, "\(trashed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: one) == ["Qid1(1).m4a"])

        // A technician only for their own forms; a missing file and a file as --out are errors.
        let foreign = try MIAdmin.as_("jdoe", config: config, ["media asmith/Hers --out \(shellQuote(one))"])
        // ... and another's form answers exactly as a missing one.
        let absent = try MIAdmin.as_("jdoe", config: config, ["media asmith/Nothing --out \(shellQuote(one))"])
        #expect(foreign.stderr.contains("asmith has no form named 'Hers'"), "\(foreign.stderr)")
        #expect(foreign.status == absent.status && foreign.status != 0)
        #expect(foreign.stderr.replacingOccurrences(of: "'Hers'", with: "'Nothing'") == absent.stderr)
        let noFile = try MIAdmin.as_("mkhan", config: config, ["media asmith/Hers 'Qid9(1).jpg' --out \(shellQuote(one))"])
        #expect(noFile.status == 1 && noFile.stderr.contains("no media file"))
        let onFile = try MIAdmin.as_("mkhan", config: config, ["media asmith/Hers --out \(shellQuote(one + "/Qid1(1).m4a"))"])
        #expect(onFile.status == 1 && onFile.stderr.contains("not a folder"))
    }

    @Test func settingsLastForTheSessionAndExpandedShowsBlocks() throws {
        let piped = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"], password: fixture.password("mkhan"),
                                    input: "set format json\nwhoami\nset format csv\nusers nbody\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout.contains("{\"uid\":\"mkhan\""))
        #expect(piped.stdout.contains("uid,name,mail,roles\r\nnbody,Nora Body"))
        let expanded = try MIAdmin.as_("mkhan", ["users nbody --expanded", "users nbody"])
        #expect(expanded.stdout.contains("-[ RECORD 1 ]"))
        #expect(expanded.stdout.contains("name  | Nora Body"))
        #expect(expanded.stdout.contains("uid   | name"), "the second command is a grid again")
        let global = try MIAdmin.as_("mkhan", ["users nbody"], extra: ["--expanded"])
        #expect(global.stdout.contains("-[ RECORD 1 ]"))
        let bad = try MIAdmin.as_("mkhan", ["set pager sometimes"])
        #expect(bad.status == 1 && bad.stderr.contains("on or off"))
        // A change is said on stderr, not echoed in the format being left; timeZone works.
        let switched = try MIAdmin.as_("mkhan", format: "json", ["set format table", "set timeZone Europe/Berlin", "set"])
        #expect(switched.status == 0, "\(switched.stderr)")
        #expect(switched.stderr.contains("note: format is table") && switched.stderr.contains("note: timeZone is Europe/Berlin"))
        #expect(!switched.stdout.contains("{"), "no JSON after 'set format table': \(switched.stdout)")
        #expect(switched.stdout.contains("Europe/Berlin"))
        let zone = try MIAdmin.as_("mkhan", ["set timeZone Mars/Olympus"])
        #expect(zone.status == 1 && zone.stderr.contains("IANA time zone name"))
    }
}
