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
}
