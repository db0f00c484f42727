import Foundation
import MITestSupport
import Testing

/// `show` (typed answers in every format), `check` and import numbering, the bound on tables,
/// and `report` — the built binary on real stores, the PDFs read back with poppler.
@Suite(.tags(.endToEnd, .ldap)) struct ReviewCommandTests {
    let fixture = Fixture.shared

    func object(_ result: ProcessResult) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
    }

    /// A tree with one completed form of jdoe whose form.json is `json` (raw, so literals stay as written).
    func tree(completedForm name: String, json: String) throws -> String {
        let tree = try DocumentsTree()
        let folder = tree.root + "/Completed MIs/jdoe/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try json.write(toFile: folder + "/form.json", atomically: true, encoding: .utf8)
        return tree.root
    }

    static func formJSON(name: String, questions: String) -> String {
        """
        {"name": "\(name)", "template": "Monthly pump inspection", "templateId": "T-17",
         "created": "2026-11-12T09:00:00Z", "modified": "2026-11-12T09:00:00Z", "questions": [\(questions)]}
        """
    }

    @Test func showGivesTypedAnswersInJSON() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let show = try MIAdmin.as_("mkhan", config: config, format: "json", ["show 'jdoe/Generator monthly'"])
        #expect(show.status == 0, "\(show.stderr)")
        let questions = try object(show)["questions"] as! [[String: Any]]
        #expect(questions.map { $0["#"] as! Int } == [1, 2, 3, 4, 5, 6])
        #expect(questions[0]["answer"] as? [String] == ["Good"])
        #expect(questions[1]["answer"] as? Bool == true)
        #expect(questions[2]["answer"] as? String == "PX-2231-B")
        #expect(questions[3]["answer"] as? Double == 4.5)
        #expect(questions[5]["answer"] as? [String] == ["Noise", "Electrical"])
        let table = try #require(questions[4]["answer"] as? [String: Any])
        #expect(table["columns"] as? [String] == ["Drive end", "Non-drive end"])
        #expect(table["rows"] as? [String] == ["Motor", "Pump"])
        let cells = try #require(table["cells"] as? [[Any]])
        #expect(cells[0] as? [String] == ["41", "39"])
        #expect(cells[1][0] as? String == "44" && cells[1][1] is NSNull)
        #expect(table["noCells"] as? [[Int]] == [[1, 1]])
        #expect(questions[1]["help"] as? String == "Open the valve until water flows, then close it.")
        #expect(questions[1]["media"] as? [String] == ["Qid1(1).mp4", "Qid1(2).jpg"])
        // Each media file with its size.
        let media = try object(show)["mediaFiles"] as! [[String: Any]]
        #expect(media.map { $0["file"] as! String } == ["Qid1(1).mp4", "Qid1(2).jpg"])
        #expect(media.allSatisfy { ($0["bytes"] as! Int) > 0 && ($0["sha256"] as! String).count == 64 })
        #expect(media.map { $0["question"] as! Int } == [2, 2])

        let unanswered = try MIAdmin.as_("mkhan", config: config, format: "json", ["show 'jdoe/Pump station 4'"])
        let open = try object(unanswered)["questions"] as! [[String: Any]]
        #expect(open.allSatisfy { $0["answer"] is NSNull })
    }

    @Test func numericLiteralsAndInvalidAnswersInJSON() throws {
        let json = Self.formJSON(name: "Numbers", questions: """
            {"type": "numeric", "text": "Flow", "answer": 1.50},
            {"type": "numeric", "text": "Volume", "answer": 1e3},
            {"type": "numeric", "text": "Pressure", "answer": "4.5 bar"},
            {"type": "multipleChoice", "text": "Hazards", "options": ["Noise", "Heat", "Dust"], "Max-answers": 1, "answer": [0, 7]}
            """)
        let config = try fixture.store(importing: try tree(completedForm: "Numbers", json: json))
        let show = try MIAdmin.as_("mkhan", config: config, format: "json", ["show jdoe/Numbers"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("\"answer\":1.50,"))
        #expect(show.stdout.contains("\"answer\":1e3,"))
        let questions = try object(show)["questions"] as! [[String: Any]]
        #expect(questions[2]["answer"] is NSNull)
        #expect(questions[2]["invalidAnswer"] as? String == "\"4.5 bar\"")
        #expect((questions[2]["violations"] as! [String]) == ["question 3 'Pressure': the answer is a string, not a number"])
        #expect(questions[3]["answer"] as? [String] == ["Noise"])
        #expect((questions[3]["violations"] as! [String]).count == 2)
        // The table shows the literal as written.
        let table = try MIAdmin.as_("mkhan", config: config, ["show jdoe/Numbers"])
        #expect(table.stdout.contains("| 1.50 "))
        #expect(table.stdout.contains("| 1e3 "))
    }

    @Test func csvIsOneLinePerQuestionAndTheTableDrawsTheGrid() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let csv = try MIAdmin.as_("mkhan", config: config, format: "csv", ["show 'jdoe/Generator monthly'"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\r\n")
        #expect(lines.count == 7, "a header and one line per question: \(csv.stdout)")
        #expect(lines[0].hasPrefix("id,name,owner,state,template,created,modified,media,"))
        // A question's media and violations are named after the list: the form has its own.
        #expect(lines[0].contains(",#,type,question,answer,comment,questions.media,questions.violations,help,invalidAnswer"))
        #expect(lines[5].contains("Motor / Drive end = 41; Motor / Non-drive end = 39; Pump / Drive end = 44"))
        #expect(lines[6].contains("\"Noise, Electrical\""))

        let table = try MIAdmin.as_("mkhan", config: config, ["show 'jdoe/Valve check – north'"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("Noise, Electrical"))          // options by name
        #expect(table.stdout.contains("| true "))                    // trueFalse
        #expect(table.stdout.contains("      | Drive end | Non-drive end"))  // the grid, drawn by the console
        #expect(table.stdout.contains("Pump  | 44        | ×"))      // the no-cell mark
        #expect(table.stdout.contains("Qid0(1).jpg"))
        // Media files with their sizes.
        #expect(table.stdout.contains("mediaFiles:"))
        #expect(table.stdout.range(of: #"Qid3\(1\)\.m4a\s+\|\s+\d+"#, options: .regularExpression) != nil)
    }

    @Test func questionsAreNumberedFromOneInCheckAndImport() throws {
        let json = Self.formJSON(name: "Broken", questions: """
            {"type": "multipleChoice", "text": "Pump condition", "options": ["Good", "Worn"], "Max-answers": 1, "answer": [0, 1]}
            """)
        let root = try tree(completedForm: "Broken", json: json)
        let config = try fixture.config()
        let imported = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(root))"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("question 1 'Pump condition': 2 answers chosen, at most 1 allowed"))
        #expect(!imported.stderr.contains("question 0"))
        let check = try MIAdmin.as_("mkhan", config: config, format: "csv", ["check"])
        #expect(check.stdout.contains("tooManyAnswers: question 1 'Pump condition'"))
        #expect(!check.stdout.contains("question 0"))
        let show = try MIAdmin.as_("mkhan", config: config, format: "json", ["show jdoe/Broken"])
        let questions = try object(show)["questions"] as! [[String: Any]]
        #expect(questions[0]["#"] as? Int == 1)
        #expect((questions[0]["violations"] as! [String]).first?.hasPrefix("question 1 ") == true)
    }

    @Test func aHugeDeclaredTableIsRefusedQuicklyInBoundedMemory() throws {
        let headers = "[" + Array(repeating: "\"\"", count: 100_000).joined(separator: ",") + "]"
        let json = Self.formJSON(name: "Huge", questions: """
            {"type": "shortAnswer", "text": "Serial", "answer": "X1"},
            {"type": "table", "text": "Readings", "rows": \(headers), "columns": \(headers), "answer": [["1"]]}
            """)
        let config = try fixture.store(importing: try tree(completedForm: "Huge", json: json))
        let message = "question 2 'Readings': declares 100000 rows x 100000 columns = 10000000000 cells; "
            + "miadmin reviews tables of at most 10000 cells"
        let fixture = Fixture.shared
        for command in ["show jdoe/Huge", "report jdoe/Huge --pdf \(try TempDir.make())/huge.pdf"] {
            // /usr/bin/time reports the peak resident set size (KiB) of the run.
            let args = ["-f", "maxrss=%M", Paths.binary, "--config", config, "--user", "mkhan", "-c", command]
            let result = try Shell.run("/usr/bin/time", args, environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            let rss = result.stderr.split(separator: "\n").compactMap { $0.hasPrefix("maxrss=") ? Int($0.dropFirst(7)) : nil }.last
            #expect((rss ?? .max) < 100 * 1024, "\(command) peaked at \(rss ?? -1) KiB")
        }
        let check = try MIAdmin.as_("mkhan", config: config, format: "csv", ["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("tableTooLarge: " + message))
        #expect(check.stdout.contains("'show' and 'report' refuse it; read its form.json with 'export DIR'"))
    }

    @Test func reportWritesAPDFAndReplacesOnlyWithForce() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        _ = try MIAdmin.as_("mkhan", config: config, ["comment 'jdoe/Generator monthly' 'Bearings run hot'"])
        let dir = try TempDir.make()
        let pdf = dir + "/generator.pdf"
        let first = try MIAdmin.as_("mkhan", config: config, format: "json", ["report 'jdoe/Generator monthly' --pdf \(shellQuote(pdf))"])
        #expect(first.status == 0, "\(first.stderr)")
        let pages = try #require(try object(first)["pages"] as? Int)
        let info = try Shell.run("/usr/bin/pdfinfo", [pdf]).stdout
        #expect(info.contains("Pages:           \(pages)\n"), "\(info)")
        let text = try Shell.run("/usr/bin/pdftotext", ["-layout", pdf, "-"]).stdout
        for expected in ["Generator monthly", "jdoe (John Doe)", "1. Pump condition", "6. Hazards present", "PX-2231-B",
                         "Bearings run hot", "mkhan ·", "Page 1 of \(pages)", "Qid1(1).mp4 · video"] {
            #expect(text.contains(expected), "report lacks \(expected)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: pdf))
        let again = try MIAdmin.as_("mkhan", config: config, ["report 'jdoe/Generator monthly' --pdf \(shellQuote(pdf))"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists; add --force to replace it"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: pdf)) == before)
        let forced = try MIAdmin.as_("mkhan", config: config, ["report 'jdoe/Generator monthly' --pdf \(shellQuote(pdf)) --force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["generator.pdf"])

        // Every role that may show the form may print it; a technician only their own.
        let own = try MIAdmin.as_("jdoe", config: config, ["report 'jdoe/Generator monthly' --pdf \(shellQuote(dir + "/own.pdf"))"])
        #expect(own.status == 0, "\(own.stderr)")
        let other = try MIAdmin.as_("asmith", config: config, ["report 'jdoe/Generator monthly' --pdf \(shellQuote(dir + "/x.pdf"))"])
        #expect(other.status != 0)
        // Another's form answers exactly as a missing one (Session.visibleOwner).
        let missing = try MIAdmin.as_("asmith", config: config, ["report 'jdoe/No such form' --pdf \(shellQuote(dir + "/x.pdf"))"])
        #expect(other.stderr.contains("jdoe has no form named 'Generator monthly'"), "\(other.stderr)")
        #expect(other.status == missing.status)
        #expect(other.stderr.replacingOccurrences(of: "Generator monthly", with: "No such form") == missing.stderr)
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.pdf"))
        let usage = try MIAdmin.as_("mkhan", config: config, ["report 'jdoe/Generator monthly'"])
        #expect(usage.status != 0)
        #expect(usage.stderr.contains("--pdf"))
    }

    @Test func reportManyFormsIntoAFolder() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Open one")
        try tree.form("jdoe", "Done 1", completed: true)
        try tree.form("asmith", "Zoë's pump", completed: true)
        try tree.form("asmith", "泵站 4 检查", completed: true)
        let config = try fixture.store(importing: tree.root)
        let dir = try TempDir.make()
        let all = try MIAdmin.as_("mkhan", config: config, format: "csv", ["report --state completed --dir \(shellQuote(dir))"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir))
                == ["jdoe - Done 1.pdf", "asmith - Zoë's pump.pdf", "asmith - 泵站 4 检查.pdf"])
        let cjk = try Shell.run("/usr/bin/pdftotext", [dir + "/asmith - 泵站 4 检查.pdf", "-"]).stdout
        #expect(cjk.contains("泵站 4 检查"))
        // Existing files stay unless --force; the command says which and fails.
        let again = try MIAdmin.as_("mkhan", config: config, ["report --state completed --owner jdoe --dir \(shellQuote(dir))"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("jdoe - Done 1.pdf exists; add --force"))
        let forced = try MIAdmin.as_("mkhan", config: config, format: "json",
                                     ["report --state completed --owner jdoe --dir \(shellQuote(dir)) --force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(forced.stdout.utf8)) as! [[String: Any]]).count == 1)
        // A technician reports only their own.
        let mine = try TempDir.make()
        let technician = try MIAdmin.as_("asmith", config: config, ["report --state completed --dir \(shellQuote(mine))"])
        #expect(technician.status == 0, "\(technician.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mine).count == 2)
        let refused = try MIAdmin.as_("asmith", config: config, ["report --state completed --owner jdoe --dir \(shellQuote(mine))"])
        #expect(refused.status != 0)
    }

    @Test func reportShowsAProgressBarOnATerminal() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "One", completed: true)
        try tree.form("jdoe", "Two", completed: true)
        let config = try fixture.store(importing: tree.root)
        let dir = try TempDir.make()
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor("mkhan@foreman> ")
        try term.type("report --state completed --dir \(shellQuote(dir))")
        try term.press("Enter")
        let screen = try term.waitFor("(2 rows)")
        #expect(screen.contains("report [##############################] 2/2"), "\(screen)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["jdoe - One.pdf", "jdoe - Two.pdf"])
    }
}
