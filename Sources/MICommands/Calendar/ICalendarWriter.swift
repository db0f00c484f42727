import Foundation

/// Writes an iCalendar file (RFC 5545) event by event: CRLF line endings, content lines folded
/// at 75 octets (never inside a UTF-8 sequence), TEXT values escaped. Times are UTC (`...Z`).
///
/// The file appears only when ``finish()`` succeeds: it is written beside the target under a
/// hidden name and renamed into place.
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

    init(path: String, now: Date) throws {
        target = URL(fileURLWithPath: path)
        temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else {
            throw CommandError.failed("cannot write '\(path)'")
        }
        self.handle = handle
        stamp = Self.utc(now)
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//miadmin//MI reminder plan//EN")
        line("CALSCALE:GREGORIAN")
        line("METHOD:PUBLISH")
        line("X-WR-CALNAME:" + Self.escape("MI reminders"))
    }

    deinit {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    func add(_ event: Event) throws {
        line("BEGIN:VEVENT")
        line("UID:" + Self.escape(event.uid))
        line("DTSTAMP:" + stamp)
        line("DTSTART:" + Self.utc(event.start))
        line("DURATION:PT15M")
        line("SUMMARY:" + Self.escape(event.summary))
        if let description = event.description { line("DESCRIPTION:" + Self.escape(description)) }
        line("END:VEVENT")
        events += 1
        if buffer.count > 64 * 1024 { try flush() }
    }

    func finish() throws {
        line("END:VCALENDAR")
        try flush()
        try handle.close()
        do {
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: temporary, to: target)
        } catch {
            throw CommandError.failed("cannot write '\(target.path)': \(error.localizedDescription)")
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
