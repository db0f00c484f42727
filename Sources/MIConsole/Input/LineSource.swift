import Foundation

/// Where the run loop gets lines: the prompt (readline), a script file, a pipe, or `-c`.
/// `nil` means end of input, which ends the loop (never an empty string standing for it).
protocol LineSource: AnyObject {
    func nextLine() -> String?
    /// True for a person at a terminal: errors do not stop the loop, confirmations may be asked.
    var isInteractive: Bool { get }
    /// Why the line `nextLine` just returned must not run (a NUL byte in it), or nil.
    var unreadableLine: Error? { get }
}

extension LineSource {
    var unreadableLine: Error? { nil }
}

/// The `-c` commands, in order.
final class CommandListSource: LineSource {
    private var lines: [String]
    init(_ lines: [String]) { self.lines = lines.reversed() }
    func nextLine() -> String? { lines.popLast() }
    var isInteractive: Bool { false }
}

/// Plain line reads from a file descriptor's stream (a script file or a pipe). Handles any
/// line length and a last line without a newline.
final class StreamLineSource: LineSource {
    private let file: UnsafeMutablePointer<FILE>
    private let ownsFile: Bool
    /// The folder of the script file (`\ir` finds its FILE there); nil for a pipe.
    private(set) var folder: String?

    init(file: UnsafeMutablePointer<FILE>, ownsFile: Bool) {
        self.file = file
        self.ownsFile = ownsFile
    }

    /// Why a script file cannot be read, in words: `cannot read 'x.mi': no such file`.
    struct CannotRead: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot read '\(path)': \(reason)" }
    }

    /// Opens a script file, or says why it cannot: missing, permission denied, a folder.
    /// (`fopen` opens a folder for reading on Linux and the first read fails, which would run
    /// it as an empty script.)
    convenience init(path: String) throws {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CannotRead(path: path, reason: "it is a folder, not a file")
        }
        guard let file = fopen(path, "re") else {  // e: close-on-exec, a pager inherits no script
            throw CannotRead(path: path, reason: Self.reason(errno))
        }
        self.init(file: file, ownsFile: true)
        folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES, EPERM: return "permission denied"
        case ENOTDIR: return "a part of the path is not a folder"
        case EISDIR: return "it is a folder, not a file"
        default: return String(cString: strerror(code))
        }
    }

    /// Reads `contents` (a script file read whole before the run, ``ScriptInput``), from the
    /// first line; `folder` is the script's own.
    convenience init(contents: [UInt8], path: String, folder: String?) throws {
        // fmemopen reads the bytes in place: they are a copy of this source's own, freed with it.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(contents.count, 1), alignment: 1)
        contents.withUnsafeBytes { if let start = $0.baseAddress { memory.copyMemory(from: start, byteCount: $0.count) } }
        guard let file = fmemopen(memory, contents.count, "r") else {
            let code = errno
            memory.deallocate()
            throw CannotRead(path: path, reason: Self.reason(code))
        }
        self.init(file: file, ownsFile: true)
        self.memory = memory
        self.folder = folder
    }

    private var memory: UnsafeMutableRawPointer?

    /// What is left to read, when the stream is a regular file (read whole now); nil for a pipe,
    /// a FIFO or a device, whose lines can only be read once, as they come.
    func restIfRegularFile(path: String) throws -> [UInt8]? {
        var info = stat()
        guard fstat(fileno(file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[..<count]
            if count < chunk.count { break }
        }
        guard ferror(file) == 0 else { throw CannotRead(path: path, reason: Self.reason(errno)) }
        return bytes
    }

    deinit {
        if ownsFile { fclose(file) }
        memory?.deallocate()
    }

    /// A line holding a NUL byte: C strings, and so the command's words, would end there and
    /// run a shorter command than the one written.
    struct NULInLine: Error, CustomStringConvertible {
        var description: String { "the line holds a NUL byte (is this a text file?); it was not run" }
    }

    private(set) var unreadableLine: Error?
    private var atStart = true

    /// The next line as psql reads one: by bytes, so `\r\n` (one Character in Swift) and a lone
    /// `\r` before the end are line ends too (a script saved on Windows runs as written), and a
    /// UTF-8 byte order mark before the first line is skipped.
    func nextLine() -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else { return nil }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
        var start = 0
        var end = count
        if atStart {
            atStart = false
            if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        }
        if end > start, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = bytes[start..<end]
        unreadableLine = line.contains(0) ? NULInLine() : nil
        return String(decoding: line, as: UTF8.self)
    }

    var isInteractive: Bool { false }
}
