import Foundation
import Testing
@testable import MIStore

@Suite("Importing a Documents tree")
struct ImportTests {
    @Test(arguments: TestEngine.allCases) func importsTheSampleTree(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        let report = try store.importTree(at: dir.sub("Documents"), actor: "importer")

        #expect(report.errors == [])
        #expect(report.collisions == [])
        #expect(report.inserted.count == 5)
        #expect(report.noticesAdded == 1)
        #expect(try store.names(of: "jdoe") == ["Generator monthly", "Pump station 4", "Valve check – north"])
        #expect(try store.names(of: "asmith") == ["Pump station 4", "Pump station 4 (2)"])
        #expect(try store.countForms(FormFilter(state: .completed)) == 1)

        let valve = try store.form(ref("jdoe/Valve check – north"))
        #expect(valve.state == .incomplete)
        #expect(valve.document.created.text == "2026-11-19T13:40:00+01:00")
        #expect(valve.media.map(\.fileName) == ["Qid0(1).jpg", "Qid3(1).m4a"])
        #expect(try store.mediaData(ref("jdoe/Valve check – north"), fileName: "Qid3(1).m4a") == Data("sample-audio".utf8))
        #expect(try store.summaries(FormFilter(owner: "jdoe", state: .completed)).first?.mediaCount == 2)

        #expect(try store.notices(for: "asmith").map(\.text) == ["Form 'Boiler room' was reassigned to jdoe by foreman mkhan."])
        // Completed sample is clean; unanswered incomplete forms break no rule.
        #expect(report.warnings == [])
        #expect(try store.auditEntries().map(\.command).filter { $0 == "import.insert" }.count == 5)
    }

    @Test(arguments: TestEngine.allCases) func reimportChangesNothing(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        _ = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        let auditBefore = try store.auditEntries().count
        let versionsBefore = try store.summaries().map(\.version)

        let again = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        #expect(again.changedNothing)
        #expect(again.unchanged == 5)
        #expect(again.noticesAdded == 0)
        #expect(again.noticesAlreadyPresent == 1)
        #expect(again.collisions == [] && again.errors == [])
        #expect(try store.auditEntries().count == auditBefore)
        #expect(try store.summaries().map(\.version) == versionsBefore)
        #expect(try store.notices(for: "asmith", unreadOnly: false).count == 1)
    }

    /// The real sample tree of the spec, when this checkout sits beside it.
    @Test
    func importsTheSharedSampleTree() throws {
        let dir = try TempDir()
        let store = try makeStore(dir)
        try Samples.copyTree(Samples.sharedSampleTree, to: dir.sub("Documents"))
        let report = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        #expect(report.errors == [] && report.collisions == [] && report.warnings == [])
        #expect(report.inserted.count == 5 && report.noticesAdded == 1)
        #expect(try store.review(ref("jdoe/Generator monthly")).violations == [])
        #expect(try store.importTree(at: dir.sub("Documents"), actor: "importer").changedNothing)
    }

    @Test(arguments: TestEngine.allCases) func brokenFormsAreReportedAndTheRestImported(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        try tree.form("jdoe/Good one")
        try tree.write("jdoe/Bad JSON/form.json", "{\"name\": \"Bad JSON\",")
        try tree.write("jdoe/Missing key/form.json", Samples.formJSON(name: "Missing key", created: "2026-11-10T07:00:00Z",
            modified: "2026-11-10T07:00:00Z", answered: false).replacingOccurrences(of: "\"template\": \"Monthly pump inspection\",", with: ""))
        try tree.write("jdoe/Wrong type/form.json", Samples.formJSON(name: "Wrong type", created: "2026-11-10T07:00:00Z",
            modified: "2026-11-10T07:00:00Z", answered: false).replacingOccurrences(of: "\"Max-answers\": 0", with: "\"Max-answers\": [0]"))
        try tree.form("jdoe/Folder name", name: "Other name")
        try tree.form("jdoe/Media is a folder")
        try FileManager.default.createDirectory(at: tree.root.appendingPathComponent("jdoe/Media is a folder/Qid0(1).jpg"),
                                                withIntermediateDirectories: true)
        try tree.form("jdoe/Dangling media")
        try FileManager.default.createSymbolicLink(atPath: tree.root.path + "/jdoe/Dangling media/Qid0(1).jpg",
                                                   withDestinationPath: "/nonexistent/photo.jpg")
        try tree.form("jdoe/Odd file", media: ["notes.txt": "hello"])
        try tree.form("jdoe/No json")
        try FileManager.default.removeItem(at: tree.root.appendingPathComponent("jdoe/No json/form.json"))
        try tree.form("jdoe/Opaque media", media: ["Qid0(1).xyz": "opaque", ".DS_Store": "junk"])

        let report = try store.importTree(at: tree.root, actor: "importer")
        let reasons = Dictionary(report.errors.map { ($0.path.replacingOccurrences(of: tree.root.path + "/", with: ""), $0.reason) },
                                 uniquingKeysWith: { a, _ in a })
        #expect(reasons["jdoe/Bad JSON/form.json"]?.contains("invalid JSON at line 1") == true)
        #expect(reasons["jdoe/Missing key/form.json"] == "template: missing key")
        #expect(reasons["jdoe/Wrong type/form.json"] == "questions[5].Max-answers: expected an integer, found an array")
        #expect(reasons["jdoe/Folder name/form.json"]?.contains("named 'Other name' but its folder is 'Folder name'") == true)
        #expect(reasons["jdoe/Media is a folder/Qid0(1).jpg"] == "a folder, expected a file")
        // A link is never followed, dangling or not.
        #expect(reasons["jdoe/Dangling media/Qid0(1).jpg"]?.contains("symbolic link: not followed") == true)
        #expect(reasons["jdoe/Odd file/notes.txt"]?.contains("not a media file name") == true)
        #expect(reasons["jdoe/No json"] == "no form.json in the form folder")
        #expect(report.errors.count == 8)
        #expect(report.inserted.map(\.name) == ["Good one", "Opaque media"])
        #expect(try store.form(ref("jdoe/Opaque media")).media.map(\.ext) == ["xyz"])
        #expect(report.warnings.map(\.reason) == ["hidden file ignored"])
        #expect(try store.names(of: "jdoe") == ["Good one", "Opaque media"])
    }

    @Test(arguments: TestEngine.allCases) func ruleViolationsAreImportedAsWarnings(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        // A completed form with nothing answered: every question without a comment is flagged.
        try tree.form("Completed MIs/jdoe/Empty")
        let report = try store.importTree(at: tree.root, actor: "importer")
        #expect(report.inserted.count == 1)
        #expect(report.warnings.count == 5)  // question 3 has a comment
        #expect(report.warnings.allSatisfy { $0.reason.contains("neither an answer nor a comment") })
    }

    @Test(arguments: TestEngine.allCases) func collisionsKeepTheStoreCopy(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let first = try TreeBuilder(dir.sub("first"))
        try first.form("jdoe/Pump", created: "2026-11-10T07:00:00Z")
        try first.form("jdoe/Later", created: "2026-11-10T07:00:00Z", modified: "2026-11-12T07:00:00Z")
        _ = try store.importTree(at: first.root, actor: "importer")

        let second = try TreeBuilder(dir.sub("second"))
        try second.form("jdoe/Pump", created: "2026-11-11T07:00:00Z", answered: true)              // another form
        try second.form("jdoe/Later", created: "2026-11-10T07:00:00Z", modified: "2026-11-11T07:00:00Z",
                        answered: true)                                                            // older save
        try second.form("asmith/Twice")
        try second.form("Completed MIs/asmith/Twice", answered: true)                              // both states
        let report = try store.importTree(at: second.root, actor: "importer")
        #expect(report.inserted == [] && report.updated == [])
        #expect(report.collisions.count == 4)
        #expect(report.collisions.contains { $0.reason.contains("already has another form named 'Pump'") })
        #expect(report.collisions.contains { $0.reason.contains("as new or newer") })
        #expect(report.collisions.filter { $0.reason.contains("more than once") }.count == 2)
        #expect(try store.form(ref("jdoe/Pump")).document.created.text == "2026-11-10T07:00:00Z")
        #expect(try store.names(of: "asmith") == [])
    }

    @Test(arguments: TestEngine.allCases) func newerSaveUpdatesTheForm(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let first = try TreeBuilder(dir.sub("first"))
        try first.form("jdoe/Pump", media: ["Qid0(1).jpg": "old"])
        _ = try store.importTree(at: first.root, actor: "importer")

        let second = try TreeBuilder(dir.sub("second"))
        try second.form("Completed MIs/jdoe/Pump", modified: "2026-11-12T07:00:00Z", answered: true,
                        media: ["Qid0(1).jpg": "new", "Qid2(1).png": "extra"])
        let report = try store.importTree(at: second.root, actor: "importer")
        #expect(report.updated.map(\.name) == ["Pump"])
        let form = try store.form(ref("jdoe/Pump"))
        #expect(form.state == .completed)
        #expect(form.version == 2)
        #expect(form.document.modified.text == "2026-11-12T07:00:00Z")
        #expect(form.media.map(\.fileName) == ["Qid0(1).jpg", "Qid2(1).png"])
        #expect(try store.mediaData(.id(form.id), fileName: "Qid0(1).jpg") == Data("new".utf8))
        let update = try #require(try store.auditEntries().last)
        #expect(update.command == "import.update")
        #expect(update.before?.contains("\"state\":\"incomplete\"") == true)
        #expect(update.after?.contains("\"state\":\"completed\"") == true)
        #expect(try store.importTree(at: second.root, actor: "importer").changedNothing)
    }

    @Test(arguments: TestEngine.allCases) func nonASCIINamesAndUids(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        try tree.form("jdoe/Prüfung – Süd (Halle 3)")
        try tree.form("jdoe/点検 ポンプ")
        try tree.form("zoë/Pump")
        // A decomposed folder and form name (as macOS writes them) is the same name as the composed one.
        try tree.form("jdoe/Cafe\u{301}")
        let report = try store.importTree(at: tree.root, actor: "importer")
        #expect(report.errors == [] && report.inserted.count == 4)
        #expect(try store.form(ref("jdoe/Prüfung – Süd (Halle 3)")).name == "Prüfung – Süd (Halle 3)")
        #expect(try store.form(ref("jdoe/点検 ポンプ")).owner == "jdoe")
        #expect(try store.form(ref("zoe\u{308}/Pump")).owner == "zo\u{EB}")
        #expect(try store.form(ref("jdoe/Caf\u{E9}")).name.unicodeScalars.count == 4)
        #expect(try store.importTree(at: tree.root, actor: "importer").changedNothing)
    }

    @Test(arguments: TestEngine.allCases) func errorFileNoticesAreNotDuplicated(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        try tree.write("Error/jdoe", "first\n\nsecond\r\nfirst\n")
        #expect(try store.importTree(at: tree.root, actor: "importer").noticesAdded == 3)
        _ = try store.markAllRead(for: "jdoe", actor: "jdoe")
        let again = try store.importTree(at: tree.root, actor: "importer")
        #expect(again.noticesAdded == 0 && again.noticesAlreadyPresent == 3)
        try tree.write("Error/jdoe", "first\nsecond\nfirst\nthird\n")
        #expect(try store.importTree(at: tree.root, actor: "importer").noticesAdded == 1)
        #expect(try store.notices(for: "jdoe").map(\.text) == ["third"])
    }

    @Test(arguments: TestEngine.allCases) func notADirectory(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        #expect { try store.importTree(at: dir.sub("missing"), actor: "importer") } throws: {
            ($0 as? StoreError)?.kind == .invalidInput
        }
    }
}
