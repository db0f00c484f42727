import Foundation
import MIFiles
import Testing

/// `\o >>FILE`'s file: added to at its end, created when missing, and never through a link,
/// into a FIFO or a folder.
@Suite struct AppendingFileTests {
    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "mifiles-append-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
    }

    private func append(_ text: String, to name: String) throws {
        let file = try AppendingFile(in: try Folder(path: dir), name: name)
        _ = text.utf8CString.withUnsafeBufferPointer { write(file.fd, $0.baseAddress, $0.count - 1) }
        try file.finish()
    }

    @Test func addsToTheEndAndCreatesAMissingFile() throws {
        try append("one\n", to: "log.txt")
        try append("two\n", to: "log.txt")
        #expect(try String(contentsOfFile: dir + "/log.txt", encoding: .utf8) == "one\ntwo\n")
    }

    @Test func aLinkAFifoOrAFolderAtTheNameIsRefusedAndLeftAlone() throws {
        let victim = dir + "/victim"
        try "secret\n".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, dir + "/link")
        #expect(throws: FileError.self) { try append("planted\n", to: "link") }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret\n")
        mkfifo(dir + "/fifo", 0o600)
        #expect(throws: FileError.self) { try append("x", to: "fifo") }
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false)
        #expect(throws: FileError.self) { try append("x", to: "sub") }
    }

    /// A file with a second name is not added to: the other name may be somebody's file.
    @Test func aHardLinkedFileIsRefusedAndLeftAlone() throws {
        try "mine\n".write(toFile: dir + "/log.txt", atomically: false, encoding: .utf8)
        #expect(link(dir + "/log.txt", dir + "/other") == 0)
        #expect { try append("x", to: "log.txt") } throws: {
            ($0 as? FileError)?.description.contains("has more than one name (a hard link)") ?? false
        }
        #expect(try String(contentsOfFile: dir + "/log.txt", encoding: .utf8) == "mine\n")
    }

    /// Another user's file planted at the name (0666 in a sticky shared folder) is not added to,
    /// as `store copy --append` refuses it. Needs root to give the file away (CI runs as root).
    @Test(.enabled(if: getuid() == 0, "needs root to make a file of another user"))
    func aFileOfAnotherUserIsRefusedAndLeftAlone() throws {
        try "planted\n".write(toFile: dir + "/log.txt", atomically: false, encoding: .utf8)
        #expect(chmod(dir + "/log.txt", 0o666) == 0)
        #expect(chown(dir + "/log.txt", 65534, 65534) == 0)
        #expect { try append("listing\n", to: "log.txt") } throws: {
            ($0 as? FileError)?.description.contains("belongs to another user: not appended to") ?? false
        }
        #expect(try String(contentsOfFile: dir + "/log.txt", encoding: .utf8) == "planted\n")
    }

    /// A report written before counts only as the user's own regular file beginning as asked.
    @Test func holdsOwnFileCountsOnlyTheUsersOwnFileWithTheRightStart() throws {
        let folder = try Folder(path: dir)
        #expect(try !folder.holdsOwnFile("missing.pdf", beginningWith: Array("%PDF-".utf8)))
        try "%PDF-1.5\n".write(toFile: dir + "/mine.pdf", atomically: false, encoding: .utf8)
        #expect(try folder.holdsOwnFile("mine.pdf", beginningWith: Array("%PDF-".utf8)))
        symlink(dir + "/mine.pdf", dir + "/link.pdf")
        #expect { try folder.holdsOwnFile("link.pdf", beginningWith: Array("%PDF-".utf8)) } throws: {
            ($0 as? FileError)?.code == ELOOP
        }
        try "text\n".write(toFile: dir + "/text.pdf", atomically: false, encoding: .utf8)
        #expect(throws: FileError.self) { try folder.holdsOwnFile("text.pdf", beginningWith: Array("%PDF-".utf8)) }
        mkfifo(dir + "/fifo.pdf", 0o600)
        #expect(throws: FileError.self) { try folder.holdsOwnFile("fifo.pdf", beginningWith: Array("%PDF-".utf8)) }
        if getuid() == 0 {
            #expect(chown(dir + "/mine.pdf", 65534, 65534) == 0)
            #expect { try folder.holdsOwnFile("mine.pdf", beginningWith: Array("%PDF-".utf8)) } throws: {
                ($0 as? FileError)?.description.contains("belongs to another user") ?? false
            }
        }
    }
}
