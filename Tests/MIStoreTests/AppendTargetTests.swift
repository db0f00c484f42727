import Foundation
import Testing
@testable import MIStore

/// `store copy --to FILE --append` writes every crew's forms into FILE: only into a file of the
/// user's own that has one name. A file planted by another user in a shared folder, or a hard
/// link to somebody's file, is refused and left as it was.
@Suite struct AppendTargetTests {
    @Test func anOwnFileWithOneNameIsAccepted() throws {
        let dir = try TempDir()
        let path = dir.sub("mine.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        let target = try SQLiteFileTarget(path, existing: true)
        #expect(target.existed)
    }

    @Test func aFileWithASecondNameIsRefused() throws {
        let dir = try TempDir()
        let path = dir.sub("copy.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        #expect(link(path, dir.sub("elsewhere").path) == 0)
        #expect { try SQLiteFileTarget(path, existing: true) } throws: {
            ($0 as? StoreError)?.kind == .invalidInput && (($0 as? StoreError)?.message.contains("has more than one name (a hard link)") ?? false)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["copy.sqlite", "elsewhere"],
                "the private folder is gone")
    }

    /// Needs root to give the file away (CI runs as root).
    @Test(.enabled(if: getuid() == 0, "needs root to make a file of another user"))
    func aFileOfAnotherUserIsRefused() throws {
        let dir = try TempDir()
        let path = dir.sub("planted.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        #expect(chown(path, 65534, 65534) == 0)
        #expect { try SQLiteFileTarget(path, existing: true) } throws: {
            ($0 as? StoreError)?.kind == .invalidInput && (($0 as? StoreError)?.message.contains("belongs to another user") ?? false)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "x")
    }
}
