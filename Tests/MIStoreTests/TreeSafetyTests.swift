import Foundation
import GRDB
import Testing
@testable import MIStore

/// Import follows no link and reads no oversized file; export and check refuse rows whose path
/// parts would escape the tree; the store's file modes and opening rules.
@Suite("Tree safety and store opening")
struct TreeSafetyTests {
    @Test(arguments: TestEngine.allCases) func importSkipsAndReportsLinksAtEveryLevel(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        try tree.form("jdoe/Pump")
        // Outside the tree: what a link would make the import read.
        let outside = try TreeBuilder(dir.sub("outside"))
        try outside.form("victim/Secret form")
        try outside.write("secret.txt", "the secret")
        let root = tree.root.path
        try FileManager.default.createSymbolicLink(atPath: root + "/victim", withDestinationPath: outside.root.path + "/victim")
        try FileManager.default.createSymbolicLink(atPath: root + "/jdoe/Linked form",
                                                   withDestinationPath: outside.root.path + "/victim/Secret form")
        try tree.form("jdoe/Valve")
        try FileManager.default.createSymbolicLink(atPath: root + "/jdoe/Valve/Qid1(1).jpg",
                                                   withDestinationPath: outside.root.path + "/secret.txt")
        try FileManager.default.createDirectory(atPath: root + "/Error", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/Error/jdoe", withDestinationPath: outside.root.path + "/secret.txt")
        #expect(mkfifo(root + "/jdoe/Pump/Qid1(2).jpg", 0o600) == 0)

        let report = try store.importTree(at: tree.root, actor: "importer")
        let byPath = Dictionary(report.errors.map { ($0.path, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(byPath[root + "/victim"]?.contains("symbolic link") == true)
        #expect(byPath[root + "/jdoe/Linked form"]?.contains("symbolic link") == true)
        #expect(byPath[root + "/jdoe/Valve/Qid1(1).jpg"]?.contains("symbolic link") == true)
        #expect(byPath[root + "/Error/jdoe"]?.contains("symbolic link") == true)
        #expect(byPath[root + "/jdoe/Pump/Qid1(2).jpg"]?.contains("not a regular file") == true, "\(report.errors)")
        #expect(report.inserted.isEmpty, "forms with a bad entry are not imported, nothing outside is")
        #expect(report.noticesAdded == 0)
        #expect(try store.names(of: "victim") == [])
    }

    @Test(arguments: TestEngine.allCases) func importCapsFormJSONAndMediaSizes(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        try tree.form("jdoe/Small", media: ["Qid1(1).jpg": String(repeating: "x", count: 1024)])
        try tree.form("jdoe/Big media", media: ["Qid1(1).jpg": String(repeating: "x", count: 1025)])
        try tree.write("jdoe/Huge/form.json", String(repeating: " ", count: 2048))
        let limits = ImportLimits(formJSONBytes: 2047, mediaBytes: 1024)
        let report = try store.importTree(at: tree.root, actor: "importer", limits: limits)
        #expect(report.inserted.map(\.name) == ["Small"])
        #expect(report.errors.contains { $0.path.hasSuffix("Big media/Qid1(1).jpg") && $0.reason.contains("more than the limit of 1024 bytes") })
        #expect(report.errors.contains { $0.path.hasSuffix("Huge/form.json") && $0.reason.contains("2048 bytes") })
        #expect(ImportLimits.defaults.formJSONBytes == 4 << 20)
    }

    @Test(arguments: TestEngine.allCases) func exportAndCheckRefuseRowsThatWouldEscape(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try store.importTree(at: Samples.writeTree(at: dir.sub("Documents")).root, actor: "seed")
        // Rows no import would make: an owner `..`, a media name with a slash, a notice for `../x`.
        try store.write { db in
            try db.execute(literal: "UPDATE forms SET owner = '..' WHERE name = 'Pump station 4 (2)'")
            try db.execute(literal: "UPDATE media SET file_name = '../../escaped.m4a' WHERE file_name = 'Qid3(1).m4a'")
            try db.execute(literal: "INSERT INTO notices (uid, text, source, created) VALUES ('../x', 'hello', 'import', 0)")
        }
        let target = dir.sub("parent/export")
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let report = try store.exportTree(to: target)
        #expect(report.skipped.count == 3, "\(report.skipped)")
        #expect(report.skipped.contains { $0.reason.contains("the owner '..'") })
        #expect(report.skipped.contains { $0.reason.contains("'../../escaped.m4a'") })
        #expect(report.skipped.contains { $0.formId == nil && $0.reason.contains("notices of '../x'") })
        let written = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(written == ["export"], "nothing beside the export folder")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/escaped.m4a"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/parent/escaped.m4a"))

        var findings: [StoreFinding] = []
        try store.check { findings.append($0) }
        let paths = findings.filter { $0.kind == .path }
        #expect(paths.count == 3, "\(paths.map(\.message))")
        #expect(paths.contains { $0.object == "notices of ../x" })
    }

    @Test func storeCreatedOnPurposeWithTheModeAskedForAndNeverByAccident() throws {
        let dir = try TempDir()
        let missing = dir.path + "/typo.sqlite"
        #expect { try FormStore(path: missing, opening: .existingOnly) } throws: { error in
            (error as? StoreError)?.kind == .notFound && "\(error)".contains("There is no store at \(missing)")
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let path = dir.path + "/store.sqlite"
        let old = umask(0o022)
        defer { umask(old) }
        let store = try FormStore(path: path, opening: .createIfMissingWithMode(0o660))
        try store.openAllConnections()
        _ = try store.importTree(at: Samples.writeTree(at: dir.sub("Documents")).root, actor: "seed")
        for suffix in ["", "-wal", "-shm"] {
            var info = stat()
            #expect(stat(path + suffix, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660, "\(suffix): \(String(info.st_mode & 0o777, radix: 8))")
        }
        // Opening an existing store with .existingOnly works and sees the data.
        let again = try FormStore(path: path, opening: .existingOnly)
        #expect(try again.names(of: "jdoe").count == 3)
    }
}
