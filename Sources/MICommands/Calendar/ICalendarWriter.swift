import Foundation

/// Writes an iCalendar file (RFC 5545) event by event: CRLF line endings, content lines folded
/// at 75 octets (never inside a UTF-8 sequence), TEXT values escaped. Times are UTC (`...Z`).
///
/// The file appears only when ``finish()`` succeeds: it is written beside the target to a unique
/// temporary file (`mkstemp`) and renamed into place. An existing regular file is replaced; a
/// folder, a symbolic link or any other kind of file at the target is refused and left alone.
final class ICalendarWriter {
    struct Event {
        let uid: String
        let start: Date
        let summary: String
        let description: String?
    }

    private let target: URL
    private let temporary: URL
    private let handle: FileHandle
    private let stamp: String
    private var buffer = Data()
    private(set) var events = 0
    private var renamed = false

    init(path: String, now: Date) throws {
        target = URL(fileURLWithPath: path)
        try Self.checkTarget(path)
        var template = Array(target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).XXXXXX")
            .path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CommandError.failed("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        // mkstemp makes the file 0600; the calendar gets the mode any new file of the user gets.
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        temporary = URL(fileURLWithPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        self.handle = handle
        stamp = Self.utc(now)
        Self.headerLines.forEach(line)
    }

    deinit {
        try? handle.close()
        if !renamed { unlink(temporary.path) }
    }

    func add(_ event: Event) throws {
        Self.lines(event, stamp: stamp).forEach(line)
        events += 1
        if buffer.count > 64 * 1024 { try flush() }
    }

    func finish() throws {
        line("END:VCALENDAR")
        try flush()
        try handle.synchronize()
        try Self.checkTarget(target.path)
        // rename(2) replaces a regular file in one step and refuses to replace a folder.
        guard rename(temporary.path, target.path) == 0 else {
            throw CommandError.failed("cannot write '\(target.path)': \(String(cString: strerror(errno)))")
        }
        renamed = true
    }

    /// Refuses a target that exists and is not a regular file (checked without following a link).
    static func checkTarget(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw CommandError.failed("'\(path)' is a folder: give --ics a file name inside it")
        case S_IFLNK: throw CommandError.failed("'\(path)' is a symbolic link: not replaced; give --ics another file name")
        default: throw CommandError.failed("'\(path)' is not a regular file: not replaced")
        }
    }

    private func flush() throws {
        do { try handle.write(contentsOf: buffer) } catch {
            throw CommandError.failed("cannot write '\(target.path)': \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func line(_ text: String) { buffer.append(Self.fold(text)) }

    /// A content line folded to at most 75 octets per physical line (continuations start with a
    /// space, which counts), each ending in CRLF.
    static func fold(_ text: String) -> Data {
        var out = Data()
        var lineLength = 0
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if lineLength + bytes.count > 75 {
                out.append(contentsOf: [0x0D, 0x0A, 0x20])
                lineLength = 1
            }
            out.append(contentsOf: bytes)
            lineLength += bytes.count
        }
        out.append(contentsOf: [0x0D, 0x0A])
        return out
    }

    /// TEXT escaping: backslash, semicolon, comma, and newlines as `\n`; other controls dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default:
                if scalar.properties.generalCategory == .control { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `20261121T090000Z`.
    static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }
}
