import Foundation
import MIFiles

/// Writes an iCalendar file (RFC 5545) event by event: CRLF line endings, content lines folded
/// at 75 octets (never inside a UTF-8 sequence), TEXT values escaped. Times are UTC (`...Z`).
///
/// The file appears only when ``finish()`` succeeds: it is written beside the target through a
/// ``NewFile`` (the folder's descriptor, an unpredictable temporary name, `O_EXCL | O_NOFOLLOW`)
/// and renamed into place. An existing regular file is replaced; a folder, a symbolic link or
/// any other kind of file at the target is refused and left alone. A dry run checks the same,
/// counts the events and writes nothing.
final class ICalendarWriter {
    struct Event {
        let uid: String
        let start: Date
        let summary: String
        let description: String?
    }

    private let target: String
    private let name: String
    private let folder: Folder
    /// Nil in a dry run.
    private let file: NewFile?
    private let stamp: String
    private var buffer = Data()
    private(set) var events = 0

    init(path: String, now: Date, dryRun: Bool = false) throws {
        target = path
        do {
            let opened = try Folder.parent(of: path)
            name = opened.name
            folder = opened.folder
            try Self.checkTarget(path, kind: opened.folder.kind(of: name))
            file = dryRun ? nil : try NewFile(in: opened.folder, for: name)
        } catch let error as FileError {
            throw CommandError.failed("cannot write '\(path)': \(error.reason)")
        }
        stamp = Self.utc(now)
        Self.headerLines.forEach(line)
    }

    func add(_ event: Event) throws {
        Self.lines(event, stamp: stamp).forEach(line)
        events += 1
        if buffer.count > 64 * 1024 { try flush() }
    }

    func finish() throws {
        line("END:VCALENDAR")
        try flush()
        try Self.checkTarget(target, kind: folder.kind(of: name))
        guard let file else { return }
        do {
            // renameat replaces a regular file in one step, never follows a link, and refuses a folder.
            try file.commit(as: name, existing: .replaceFile)
        } catch {
            throw CommandError.failed("cannot write '\(target)': \(error.reason)")
        }
    }

    /// Refuses a target that exists and is not a regular file (checked without following a link).
    static func checkTarget(_ path: String, kind: EntryKind) throws {
        switch kind {
        case .file, .missing: return
        case .folder: throw CommandError.failed("'\(path)' is a folder: give --ics a file name inside it")
        case .symbolicLink: throw CommandError.failed("'\(path)' is a symbolic link: not replaced; give --ics another file name")
        case .other: throw CommandError.failed("'\(path)' is not a regular file: not replaced")
        }
    }

    private func flush() throws {
        do { try file?.write(buffer) } catch {
            throw CommandError.failed("cannot write '\(target)': \(error.reason)")
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
