import Foundation
import Testing
@testable import MIStore

@Suite("Exporting a Documents tree")
struct ExportTests {
    /// Everything a tree can carry, per form: owner, state, content and media bytes.
    static func snapshot(_ store: FormStore) throws -> [String: String] {
        var result: [String: String] = [:]
        for summary in try store.summaries() {
            let form = try store.form(.id(summary.id))
            var media = ""
            for file in form.media {
                media += "\(file.fileName)=\(MediaDigest.hex(try store.mediaData(.id(form.id), fileName: file.fileName)));"
            }
            result["\(form.owner)/\(form.name)"] = "\(form.state) \(JSONWriter.compact(form.document.json)) \(media)"
        }
        return result
    }

    @Test(arguments: TestEngine.allCases) func exportThenImportRoundTrips(engine: TestEngine) throws {
        let dir = try TempDir()
        let original = try makeStore(dir, engine: engine, file: "original.sqlite")
        let tree = try Samples.writeTree(at: dir.sub("Documents"))
        try tree.write("jdoe/Odd (extra keys)/form.json", Samples.formJSON(
            name: "Odd (extra keys)", created: "2026-11-19T13:40:00.250+05:30", modified: "2026-11-19T13:40:00.250+05:30",
            answered: false).replacingOccurrences(of: "\"templateId\": \"T-17\",", with: "\"templateId\": \"T-17\", \"gps\": {\"lat\": 1.50},"))
        try tree.write("jdoe/Odd (extra keys)/Qid0(1).heic", Data((0..<1000).map { UInt8($0 % 256) }))
        _ = try original.importTree(at: tree.root, actor: "importer")
        _ = try original.move(ref("jdoe/Pump station 4"), to: "asmith", actor: "mkhan")  // becomes "Pump station 4 (3)"
        _ = try original.comment(ref("jdoe/Generator monthly"), text: "Looks fine.", author: "mkhan")
        _ = try original.comment(ref("jdoe/Generator monthly"), text: "Check again in May.", author: "bwong")

        let report = try original.exportTree(to: dir.sub("export"))
        #expect(report.incompleteForms == 5 && report.completedForms == 1 && report.submittedSkipped == 0)
        #expect(report.mediaFiles == 5 && report.noticeFiles == 2 && report.notices == 3)  // asmith: imported + received
        #expect(report.skipped == [])
        let exported = dir.sub("export")
        #expect(FileManager.default.fileExists(atPath: exported.path + "/asmith/Pump station 4 (3)/form.json"))
        let comments = try FormDocument(jsonData: Data(contentsOf: exported.appendingPathComponent(
            "Completed MIs/jdoe/Generator monthly/form.json"))).foremanComments
        #expect(comments == "Looks fine.\nCheck again in May.")
        #expect(try String(contentsOf: exported.appendingPathComponent("Error/jdoe"), encoding: .utf8)
                == "Form 'Pump station 4' was reassigned to asmith as 'Pump station 4 (3)' by foreman mkhan.\n")

        let copy = try makeStore(dir, engine: engine, file: "copy.sqlite")
        let imported = try copy.importTree(at: exported, actor: "importer")
        #expect(imported.errors == [] && imported.collisions == [] && imported.inserted.count == 6)
        #expect(try Self.snapshot(copy) == Self.snapshot(original))
        #expect(Set(try copy.notices(for: "jdoe").map(\.text)) == Set(try original.notices(for: "jdoe").map(\.text)))
        #expect(try copy.notices(for: "asmith").count == 2)

        // And the original store takes its own export back without any change.
        let back = try original.importTree(at: exported, actor: "importer")
        #expect(back.changedNothing && back.unchanged == 6 && back.collisions == [] && back.warnings == [])
    }

    @Test(arguments: TestEngine.allCases) func submittedFormsAreSkippedAndCounted(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        _ = try store.submit(ref("jdoe/Done"), actor: "mkhan")
        let report = try store.exportTree(to: dir.sub("export"))
        #expect(report.submittedSkipped == 1 && report.completedForms == 0 && report.incompleteForms == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/export/Completed MIs"))
    }

    @Test func refusesANonEmptyTargetAndLeavesNothingBehind() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, ["jdoe/Pump"])
        let target = dir.sub("export")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: target.appendingPathComponent("existing.txt"))
        #expect { try store.exportTree(to: target) } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidInput && error.path == target.path && error.message.contains("not empty")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path) == ["existing.txt"])

        // An empty existing directory is fine.
        try FileManager.default.removeItem(at: target.appendingPathComponent("existing.txt"))
        #expect(try store.exportTree(to: target).incompleteForms == 1)
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["store.sqlite", "store.sqlite-wal",
                                                                                         "store.sqlite-shm", "seed", "export"])
    }

    @Test(arguments: TestEngine.allCases) func failedExportLeavesNoTemporaryFolder(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        // A form name that cannot be a folder is reported; a target in a missing parent fails as a whole.
        try store.write { try $0.execute(literal: "UPDATE forms SET name = 'a/b' WHERE name = 'Pump'") }
        let report = try store.exportTree(to: dir.sub("export"))
        #expect(report.skipped.map(\.reason) == ["the name 'a/b' contains '/', which a folder name cannot"])
        #expect { try store.exportTree(to: dir.sub("missing/export")) } throws: { ($0 as! StoreError).kind == .io }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/missing"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") } == [])
    }
}
