import Foundation
import MITestSupport
import Testing

/// Every example the console and its documents show — `help CMD`'s "Examples:", the man page,
/// docs/commands.md, docs/commands-expiry.md, the README's console lines (``ExampleSources``) —
/// runs through the built binary against the demo's data, as a demo user whose role may run
/// it, and succeeds (exit 0). The demo is `Scripts/demo --fresh` itself (its directory with
/// crews, its outbound receivers, its store with the sample and demo forms), started in a
/// terminal, on either engine (`--postgres`); each example gets a fresh copy of that store, so
/// one that moves, expires or purges forms leaves the next its data. A few examples fail on purpose (a refusal the docs show)
/// or need what no demo has; each is listed below with why, and must fail as it says.
@Suite(.tags(.endToEnd, .ldap, .outbound), .serialized) struct ExamplesTests {
    /// The demo user who runs an example of a command its roles allow: a foreman of one crew
    /// first, then support, then a technician.
    static let userOfRole = [("foreman", "mkhan"), ("support", "lchen"), ("technician", "jdoe")]

    /// Examples for another demo user than their command's roles pick, and why: where the
    /// site keeps crews, a foreman of one crew may not do what reaches every crew.
    static let runAs: [String: (uid: String, why: String)] = {
        var users: [String: (uid: String, why: String)] = [:]
        for line in ["policy set expiry-days 10", "policy set notify-days 1,2,5", "policy set retention-days 60",
                     "policy set notify-days 1,2,5 --note 'reminders on day 5 too'", "policy set expiry-from created"] {
            users[line] = ("sitelead", "a site-wide policy value: site leads only")
        }
        users["forms --team 'Kolonne Süd' --state completed"] = ("sitelead", "a crew mkhan does not lead")
        for line in ["import /mnt/tablet/Documents", "import --dry-run ./Documents", "import --yes ./Documents"] {
            users[line] = ("sitelead", "the tablet's tree holds forms of two crews")
        }
        for line in ["deliveries dismiss 1 --note 'reopened; resubmitted as a new version'",
                     "deliveries dismiss 1 --note 'reopened for the missing photo; resubmitted as version 3'",
                     "deliveries dismiss 1 --note 'office retired this template' --dry-run"] {
            users[line] = ("lchen", "a dismissed delivery never reaches the office: support and site leads only")
        }
        for line in ["store copy --to /var/backups/miadmin/store-copy.sqlite", "store copy --to /var/backups/miadmin/store-copy.sqlite --yes",
                     "store backup /var/backups/miadmin/store-2026-11-24.sqlite"] + Array(outsideTheDemo.keys) {
            users[line] = ("lchen", "a copy of every crew's forms: support and site leads only")
        }
        return users
    }()

    /// Lines run before an example in the same session, where the example acts on what the
    /// session did: `undo` takes back this session's last move.
    static let prelude: [String: [String]] = [
        "undo": ["move 12 zangstrom"],
        "undo --note 'wrong technician'": ["move 'jdoe/*' zangstrom,u00010 --balance"],
    ]

    /// Examples whose failure is their point, with what they must say.
    static let refusals: [String: (says: String, why: String)] = [
        "move 12 asmith": ("asmith is not in your crews (Kolonne Nord)", "docs/commands.md shows a foreman refused outside his crews"),
        "show 'asmith/Pump station 4'": ("asmith is not in your crews (Kolonne Nord)", "docs/commands.md shows a foreman refused outside his crews"),
    ]

    /// Examples that are refused on a PostgreSQL store, with what they must say.
    static let postgresRefusals: [String: (says: String, why: String)] = [
        "store backup /var/backups/miadmin/store-2026-11-24.sqlite":
            ("a PostgreSQL store is backed up with pg_dump", "store backup copies a SQLite file; a PostgreSQL site uses pg_dump"),
    ]

    /// Examples that need what the demo does not have, with what they must say.
    static let outsideTheDemo: [String: (says: String, why: String)] = [
        "store copy --to 'postgresql://miadmin@db.example:5432/mi?sslrootcert=/etc/miadmin/db-ca.pem' --password-file ~/db.pw":
            ("could not translate host name \"db.example\"", "a PostgreSQL server of the site's, which no demo runs"),
        "store copy --to 'postgresql://miadmin@db.example:5432/mi?sslrootcert=/etc/miadmin/db-ca.pem' --password-file ~/db.pw --yes":
            ("could not translate host name \"db.example\"", "a PostgreSQL server of the site's, which no demo runs"),
    ]

    /// The folders of a site that examples name (`report --dir /srv/reports`, `store backup
    /// /var/backups/miadmin/…`, `import /mnt/tablet/Documents`): each example runs in a folder of
    /// its own that stands for `/`, with those folders made and a tablet's tree in place.
    static let siteFolders = ["/srv/", "/var/backups/", "/tmp/", "/mnt/", "/etc/miadmin/"]

    /// `line` with the site folders it names moved under `root`, in one pass (`root` is
    /// itself under /tmp).
    static func rooted(_ line: String, under root: String) -> String {
        let folders = siteFolders.map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        let pattern = try! NSRegularExpression(pattern: "(?<=[ '\"=])(\(folders))")
        return pattern.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line),
                                                withTemplate: NSRegularExpression.escapedTemplate(for: root) + "$1")
    }

    /// The demo's store on either engine: `Scripts/demo --postgres` seeds the same data into a
    /// PostgreSQL database, and each example gets a database copied from it.
    @Test(arguments: ["sqlite", "postgres"]) func everyExampleSucceedsAgainstTheDemoData(engine: String) throws {
        if engine == "postgres", let why = PostgresFixture.unavailable {
            Issue.record("no PostgreSQL server: \(why)")
            return
        }
        let demo = try TempDir.make() + "/demo"
        let terminals = try DemoTerminals(demoDir: demo)
        try terminals.start("demo", "mkhan", fresh: true, options: engine == "postgres" ? ["--postgres"] : [])
        try terminals.waitFor("demo", "Password for mkhan: ", deadline: 180)
        let banner = try terminals.screen("demo")
        #expect(banner.contains("(new; sample forms imported)"), "\(banner)")
        try terminals.enter("demo", "mkhan-Pa55!")
        try terminals.waitFor("demo", "mkhan@foreman> ")
        defer {
            // The demo's servers stop when its last console ends: its watcher removes its pid
            // file once they have. Waited for, so the test's folders are not removed under them
            // (the receiver's pid file with them).
            _ = try? terminals.press("demo", "C-d")
            _ = try? terminals.waitFor("demo", "[exited ")
            let end = Date().addingTimeInterval(30)
            while FileManager.default.fileExists(atPath: demo + "/watcher.pid") && Date() < end { usleep(100_000) }
        }

        // The demo's store as its first console found it, and its users.
        let snapshot = try DemoStoreSnapshot(engine: engine, demo: demo)
        let passwords = try String(contentsOfFile: demo + "/users.tsv", encoding: .utf8).split(separator: "\n").dropFirst()
            .reduce(into: [String: String]()) { found, line in
                let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                if cols.count >= 2 { found[cols[0]] = cols[1] }
            }
        let config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: demo + "/miadmin.json")))
            as! [String: Any]

        /// Runs console lines as `uid` on a fresh copy of the demo's store, in a folder that
        /// stands for `/`; `--yes` answers the question an example asks at the prompt.
        func run(_ uid: String, _ lines: [String]) throws -> ProcessResult {
            let root = try TempDir.make()
            for folder in ["srv", "var/backups/miadmin", "tmp", "mnt/tablet", "etc/miadmin"] {
                try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
            }
            for tree in ["/mnt/tablet/Documents", "/Documents"] {
                try FileManager.default.copyItem(atPath: Paths.sampleTree, toPath: root + tree)
            }
            // The site's password file for its PostgreSQL server (`--password-file ~/db.pw`).
            try "not the demo's\n".write(toFile: root + "/db.pw", atomically: true, encoding: .utf8)
            return try snapshot.withCopy(of: config["store"] as! [String: Any], root: root) { store in
                var object = config
                object["store"] = store
                try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: root + "/miadmin.json"))
                let rooted = lines.map { Self.rooted($0, under: root) }
                return try Shell.run("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", root, Paths.binary,
                                                 "--config", root + "/miadmin.json", "--user", uid, "--yes"]
                                         + rooted.flatMap { ["-c", $0] },
                                     environment: ["MIADMIN_PASSWORD": passwords[uid] ?? "", "HOME": root], deadline: 120)
            }
        }

        // The commands and who may run them, from `help`'s own list.
        let listing = try run("mkhan", ["help --format json"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]] ?? []
        var roles: [String: Set<String>] = [:]
        for row in rows {
            guard let command = row["command"] as? String else { continue }
            let names: [String] = (row["roles"] as? [String]) ?? ((row["roles"] as? String).map { text in
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            } ?? [])
            roles[command] = Set(names)
        }
        let examples = try ExampleSources.all(commands: Array(roles.keys).sorted()) { try run("mkhan", [$0]) }
        #expect(examples.count > 200, "examples found: \(examples.count)")
        for origin in ["help move", "man page", "docs/commands.md", "docs/commands-expiry.md", "README.md"] {
            #expect(examples.contains { $0.origin == origin }, "no example found in \(origin)")
        }

        // Each line once, however many places show it.
        var origins: [String: [String]] = [:]
        var lines: [String] = []
        for example in examples {
            if origins[example.line] == nil { lines.append(example.line) }
            origins[example.line, default: []].append(example.origin)
        }
        print("examples: \(examples.count) in \(Set(examples.map(\.origin)).count) places, \(lines.count) different lines")
        var failures: [String] = []
        for line in lines {
            let example = ExampleSources.Example(origin: origins[line]!.joined(separator: ", "), line: line)
            let command = String(example.line.prefix { $0 != " " })
            let allowed = roles[command] ?? []
            let uid = Self.runAs[example.line]?.uid ?? Self.userOfRole.first { allowed.contains($0.0) }?.1 ?? "mkhan"
            let result = try run(uid, (Self.prelude[example.line] ?? []) + [example.line])
            let why = Self.runAs[example.line].map { " (\($0.why))" } ?? ""
            let where_ = "\(example.origin) as \(uid)\(why): \(example.line)"
            let refusedHere = engine == "postgres" ? Self.postgresRefusals[example.line] : nil
            if let expected = Self.refusals[example.line] ?? Self.outsideTheDemo[example.line] ?? refusedHere {
                if result.status == 0 || !result.stderr.contains(expected.says) {
                    failures.append("\(where_) should fail saying '\(expected.says)' (\(expected.why)); exit \(result.status): \(result.stderr)")
                }
            } else if result.status != 0 {
                failures.append("\(where_): exit \(result.status): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
        }
        let report = failures.joined(separator: "\n")
        #expect(failures.isEmpty, "\(failures.count) of \(examples.count) examples failed:\n\(report)")
        // Every exception names an example that is still written somewhere.
        for listed in Array(Self.runAs.keys) + Array(Self.prelude.keys) + Array(Self.refusals.keys) + Array(Self.outsideTheDemo.keys)
            + Array(Self.postgresRefusals.keys) {
            #expect(lines.contains(listed), "listed, but no longer an example: \(listed)")
        }
    }

    /// The checks above must be able to fail: the extraction finds what it should, and an
    /// example that names a form the demo lacks fails.
    @Test func theExtractionFindsExamplesAndSkipsSynopses() throws {
        #expect(ExampleSources.examples(inHelp: "Examples:\n  show 12\n  show 12 --format json  # as\nJSON\n\nmore")
                == ["show 12", "show 12 --format json  # as JSON"])
        #expect(ExampleSources.examples(inMarkdown: "    mkhan@foreman> move 41 asmith\n    move 1 form? [y/N]\n\nText\n\n"
                                        + "    move 2 jdoe\n    miadmin --user mkhan -c 'forms -x' | less\n"
                                        + "```\nrestore FORM [--note TEXT]\nrestore 11\npolicy set --team NAME expiry-days N|site\n```\n",
                                        commands: ["move", "forms", "restore", "policy"])
                == ["move 41 asmith", "move 2 jdoe", "forms -x", "restore 11"])
        #expect(ExampleSources.examples(inReadme: "## Try it\n\nTry `help`, `find 'jdoe/Pump\nstation 4'` and `Scripts/demo`.\n\n"
                                        + "## Use\n\n```sh\nmiadmin --user mkhan -c whoami   # one\n```\n",
                                        commands: ["help", "find", "whoami"])
                == ["whoami", "help", "find 'jdoe/Pump station 4'"])
        #expect(ExampleSources.helpTexts(inManual: ".SS show\n.nf\nExamples:\n  show 12 \\-\\-format json\n\\&.x\n.fi\n")
                == ["Examples:\n  show 12 --format json\n.x"])
        #expect(Self.rooted("report 12 --pdf /tmp/pump.pdf --dir '/srv/reports'", under: "/tmp/x")
                == "report 12 --pdf /tmp/x/tmp/pump.pdf --dir '/tmp/x/srv/reports'")
        let missing = try MIAdmin.as_("mkhan", ["show 999999"])
        #expect(missing.status != 0 && !ExampleSources.isParseFailure(missing.stderr), "\(missing.stderr)")
    }
}

extension ExamplesTests {
    /// `--format`/`-o` after a command: that command's output only; the next is in the run's format.
    @Test func aCommandsOwnFormatHoldsForThatCommandOnly() throws {
        let config = try Fixture.shared.store(importing: Paths.copyOfSampleTree())
        let json = try MIAdmin.as_("mkhan", config: config, ["show 'jdoe/Generator monthly' --format json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["name"] as? String == "Generator monthly", "\(json.stdout)")

        let mixed = try MIAdmin.as_("mkhan", config: config, ["workload --owner jdoe -o csv", "whoami"])
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(mixed.lines.first?.hasPrefix("uid,") == true, "\(mixed.stdout)")
        #expect(mixed.stdout.contains("jdoe,John Doe,"))
        #expect(mixed.lines.contains { $0.hasPrefix("uid ") && $0.hasSuffix(" mkhan") }, "the whoami after it is a table: \(mixed.stdout)")

        let refused = try MIAdmin.as_("mkhan", config: config, ["forms --format xml"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: forms: --format: 'xml' is not one of table, csv, json (see 'help forms')\n", "\(refused.stderr)")
    }
}
