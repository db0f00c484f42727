import Foundation
import MIFiles
import Testing

/// The helper every file the console writes for its user goes through, on its own:
/// what it does with a link, a folder or a file at the real name, with a temporary name that
/// was swapped, and with a folder below a walk that became a link.
@Suite struct NewFileTests {
    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "mifiles-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    }

    private func write(_ text: String, as name: String, existing: NewFile.Existing) throws {
        let file = try NewFile(in: try Folder(path: dir), for: name)
        try file.write(Data(text.utf8))
        try file.commit(as: name, existing: existing)
    }

    private func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

    @Test func aNewFileAppearsWholeWithTheUmasksModeAndNothingElseIsLeft() throws {
        let old = umask(0o077)
        defer { umask(old) }
        try write("hello", as: "a.txt", existing: .keep)
        #expect(try String(contentsOfFile: dir + "/a.txt", encoding: .utf8) == "hello")
        var info = stat()
        #expect(stat(dir + "/a.txt", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try entries() == ["a.txt"])
    }

    @Test func keepRefusesAnyExistingNameAndReplaceOnlyARegularFile() throws {
        try "old".write(toFile: dir + "/f", atomically: false, encoding: .utf8)
        #expect(throws: FileError.self) { try write("new", as: "f", existing: .keep) }
        #expect(try String(contentsOfFile: dir + "/f", encoding: .utf8) == "old")
        try write("new", as: "f", existing: .replaceFile)
        #expect(try String(contentsOfFile: dir + "/f", encoding: .utf8) == "new")

        try "victim".write(toFile: dir + "/victim", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/victim")
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: false)
        for name in ["link", "folder"] {
            for existing in [NewFile.Existing.keep, .replaceFile] {
                #expect(throws: FileError.self) { try write("attack", as: name, existing: existing) }
            }
        }
        #expect(try String(contentsOfFile: dir + "/victim", encoding: .utf8) == "victim")
        #expect(try entries() == ["f", "folder", "link", "victim"], "no temporary file left behind")
    }

    @Test func aTemporaryNameSwappedForALinkIsNotMovedIntoPlace() throws {
        try "victim".write(toFile: dir + "/victim", atomically: false, encoding: .utf8)
        let file = try NewFile(in: try Folder(path: dir), for: "out")
        try file.write(Data("mine".utf8))
        // What an attacker in a shared folder does between the write and the rename.
        try FileManager.default.moveItem(atPath: file.temporaryPath, toPath: dir + "/moved-away")
        try FileManager.default.createSymbolicLink(atPath: file.temporaryPath, withDestinationPath: dir + "/victim")
        #expect(throws: FileError.self) { try file.commit(as: "out", existing: .replaceFile) }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
        #expect(try String(contentsOfFile: dir + "/victim", encoding: .utf8) == "victim")
        #expect(try String(contentsOfFile: dir + "/moved-away", encoding: .utf8) == "mine", "written through the descriptor")
    }

    @Test func aWalkRefusesALinkAtEveryLevel() throws {
        try FileManager.default.createDirectory(atPath: dir + "/a/b", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/a/b/file", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/l", withDestinationPath: dir + "/a")
        let root = try Folder(path: dir)
        #expect(try root.walk(["a", "b"]).readFile("file", limit: 10) == Data("x".utf8))
        #expect(throws: FileError.self) { try root.walk(["l", "b"]) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/b/flink", withDestinationPath: dir + "/a/b/file")
        #expect { try root.walk(["a", "b"]).readFile("flink", limit: 10) } throws: { ($0 as? FileError)?.code == ELOOP }
        #expect { try root.walk(["a", "b"]).readFile("file", limit: 0) } throws: { ($0 as? FileError)?.code == EFBIG }
    }
}
