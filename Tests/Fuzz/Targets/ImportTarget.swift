import Foundation
import MIStore

/// A whole-tree import of a `Documents/` folder generated from the input, into a fresh store.
///
/// The input's first line lays out the tree: entries separated by `|`, each a path relative to
/// `Documents/` (`jdoe/Pump 4`, `Completed MIs/jdoe/Gen`, `Error/jdoe`, `jdoe/Pump 4/Qid1(1).jpg`);
/// a path ending in a form folder gets the rest of the input as its `form.json`, an `Error/`
/// path gets it as notice lines, a media path gets it as its bytes. Path segments that would
/// leave the folder (`..`, empty) are dropped.
///
/// Checks: the import finishes (with errors for what is broken, never a crash); importing the
/// same tree again changes nothing (the import is idempotent).
enum ImportTarget {
    static let scratch: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return URL(fileURLWithPath: base).appendingPathComponent("miadmin-fuzz-import-\(getpid())")
    }()

    static func importTree(_ data: Data) throws(FuzzFinding) {
        let bytes = Array(data)
        let newline = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let layout = String(decoding: bytes[..<newline], as: UTF8.self)
        let body = Data(bytes[min(newline + 1, bytes.count)...])

        let fm = FileManager.default
        try? fm.removeItem(at: scratch)
        defer { try? fm.removeItem(at: scratch) }
        let root = scratch.appendingPathComponent("Documents")
        do {
            try fm.createDirectory(at: root, withIntermediateDirectories: true)
            for entry in layout.split(separator: "|").prefix(8) {
                let segments = entry.split(separator: "/").map(String.init)
                    .filter { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }
                    .prefix(4)
                guard !segments.isEmpty else { continue }
                let path = segments.reduce(root) { $0.appendingPathComponent($1) }
                let isMedia = segments.last!.hasPrefix("Qid")
                let isError = segments.first == "Error" && segments.count == 2
                if isMedia || isError {
                    try fm.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
                    guard !isDirectory(path) else { continue }
                    try body.write(to: path)
                } else {
                    guard !isFile(path) else { continue }
                    try fm.createDirectory(at: path, withIntermediateDirectories: true)
                    try body.write(to: path.appendingPathComponent("form.json"))
                }
            }
        } catch {
            return  // a layout the file system refuses (name too long, a file where a folder goes)
        }

        let store: FormStore
        do {
            store = try FormStore(path: scratch.appendingPathComponent("store.sqlite").path, busyTimeout: 1)
        } catch {
            throw FuzzFinding("cannot open a fresh store: \(error)")
        }
        do {
            _ = try store.importTree(at: root, actor: "fuzz")
            let second = try store.importTree(at: root, actor: "fuzz")
            try check(second.changedNothing, "a second import of the same tree changed the store")
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("import threw instead of reporting: \(error)")
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &flag) && flag.boolValue
    }

    private static func isFile(_ url: URL) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &flag) && !flag.boolValue
    }
}
