import Foundation
import MIFiles

/// Where `\o FILE` (or `\o >>FILE`) sends the results of the commands that follow, until `\o`
/// alone or the end of the run. Made the one way the console makes its user's files (MIFiles):
/// `\o FILE` writes a ``NewFile`` that takes the name, replacing a regular file there, when the
/// output is closed (`\o`, another `\o FILE`, the end of the run); `\o >>FILE` adds to the end
/// of the file (an ``AppendingFile``) as the results come. The file holds its own document: one
/// JSON array, its own CSV header.
final class OutputFile {
    enum Target { case replacing(NewFile, name: String), appending(AppendingFile), device(Int32) }

    let path: String
    let stream: OutputStream
    let runOutput: RunOutput
    private let target: Target

    /// `words`: what followed `\o`, one word: `FILE`, `>>FILE`, or `>>` and `FILE` as two.
    init(words: [String], shape: RunOutput) throws {
        var appending = false
        var path = words.joined()
        if path.hasPrefix(">>") {
            appending = true
            path.removeFirst(2)
        }
        guard !path.isEmpty, words.count <= 2, words.count == 1 || words[0] == ">>" else {
            throw UsageError()
        }
        path = UserPath.expanded(path)
        self.path = path
        let (folder, name) = try Folder.parent(of: path)
        if appending {
            let file = try AppendingFile(in: folder, name: name)
            target = .appending(file)
            stream = OutputStream(fd: file.fd)
        } else {
            // `\o` over a folder or a link fails now, before any command writes for nothing.
            switch folder.kind(of: name) {
            case .file, .missing: break
            case .folder: throw FileError(folder.pathOf(name), EISDIR, doing: "is a folder")
            case .symbolicLink: throw FileError(folder.pathOf(name), ELOOP, doing: "not replaced")
            case .other:
                // psql's `\o /dev/null`: a character device (the null device, a terminal) is
                // written as it is; a fifo or a socket is still refused.
                guard let device = Self.openCharacterDevice(name, in: folder) else {
                    throw FileError(folder.pathOf(name), EINVAL, doing: "not a regular file or a character device: not replaced")
                }
                target = .device(device)
                stream = OutputStream(fd: device)
                runOutput = RunOutput(json: shape.json, oneCSVHeader: shape.oneCSVHeader)
                return
            }
            let file = try NewFile(in: folder, for: name)
            target = .replacing(file, name: name)
            stream = OutputStream(fd: file.fd)
        }
        runOutput = RunOutput(json: shape.json, oneCSVHeader: shape.oneCSVHeader)
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String { "usage: \\o [FILE | >>FILE] (\\o alone: back to stdout)" }
    }

    /// Writes what is left and gives the file its name.
    func close() throws {
        stream.flush()
        switch target {
        case .replacing(let file, let name): try file.commit(as: name, existing: .replaceFile)
        case .appending(let file): try file.finish()
        case .device(let fd): Foundation.close(fd)
        }
    }

    /// `name` in `folder` opened for writing when it is a character device the user may write,
    /// else nil. Opened without following a link and without blocking (a fifo there would wait
    /// for a reader), then checked by its descriptor, so what is written to is what was checked.
    private static func openCharacterDevice(_ name: String, in folder: Folder) -> Int32? {
        let fd = openat(folder.fd, name, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else {
            Foundation.close(fd)
            return nil
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }
}
