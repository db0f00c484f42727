import Foundation
import MIStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `audit.syslog`: every committed audit row also goes to the system logger, one datagram each,
/// so sites collect who changed what where they collect everything else (docs/configuration.md,
/// "Audit to the system logger").
///
/// Two wire formats: an RFC 5424 message with the row as structured data (`/dev/log`, or the
/// socket `audit.socket` names), or journald's native protocol, whose `MIADMIN_*` fields the
/// journal keeps (journald's syslog socket does not turn structured data into fields). The
/// socket is non-blocking: a logger that is down or full loses the message, never the change.
public final class SystemLogRelay: AuditRelay {
    public enum Format: String, Sendable, CaseIterable {
        case rfc5424
        case journal
    }

    /// journald's native socket: where the `journal` format goes when no socket is configured.
    public static let journalSocket = "/run/systemd/journal/socket"
    public static let syslogSocket = "/dev/log"
    /// The structured-data ID: a private SD-ID needs an enterprise number after the `@`; the
    /// project has none, so it uses the one RFC 5612 sets aside for documentation.
    static let structuredDataID = "audit@32473"
    /// RFC 5424 severity of an audit row: notice (a normal but significant event).
    static let severity = 5

    public let socketPath: String
    public let format: Format
    public let facility: SyslogFacility
    private let hostname: String
    private let pid = getpid()
    private let socket = Mutex<Int32>(-1)

    public init(socketPath: String, format: Format, facility: SyslogFacility) {
        self.socketPath = socketPath
        self.format = format
        self.facility = facility
        var name = [CChar](repeating: 0, count: 256)
        hostname = gethostname(&name, name.count - 1) == 0 ? String(cString: name) : "-"
    }

    /// The relay `audit.syslog` asks for: the configured socket and format, else journald's
    /// native socket when it is there, else `/dev/log` with RFC 5424.
    public static func forConfig(_ audit: AppConfig.Audit) -> SystemLogRelay {
        let format = audit.format ?? (audit.socket == nil && FileManager.default.fileExists(atPath: journalSocket) ? .journal : .rfc5424)
        let path = audit.socket ?? (format == .journal ? journalSocket : syslogSocket)
        return SystemLogRelay(socketPath: path, format: format, facility: audit.facility)
    }

    deinit {
        socket.withLock { if $0 >= 0 { close($0) } }
    }

    public func relay(_ records: [AuditRecord]) -> String? {
        var problem: String?
        for record in records {
            let datagram = format == .journal ? journalDatagram(record) : rfc5424(record)
            if let failure = send(datagram), problem == nil { problem = failure }
        }
        return problem
    }

    /// What a person reads in `audit` for the row, on one line.
    static func text(_ record: AuditRecord) -> String {
        var text = "\(record.actor) \(record.command) \(record.object)"
        if record.before != nil || record.after != nil {
            text += ": \(record.before ?? "{}") -> \(record.after ?? "{}")"
        }
        if let note = record.note, !note.isEmpty { text += " (note: \(note))" }
        return String(text.map { $0.isNewline ? " " : $0 })
    }

    /// The row's fields, named as `audit` names its columns.
    static func fields(_ record: AuditRecord) -> [(String, String)] {
        var fields = [("actor", record.actor), ("command", record.command)]
        if let formId = record.formId { fields.append(("form", String(formId))) }
        fields.append(("object", record.object))
        if let before = record.before { fields.append(("before", before)) }
        if let after = record.after { fields.append(("after", after)) }
        if let note = record.note { fields.append(("note", note)) }
        return fields
    }

    /// `<PRI>1 TIMESTAMP HOST miadmin PID COMMAND [audit@32473 actor="…" …] TEXT` (RFC 5424).
    public func rfc5424(_ record: AuditRecord) -> [UInt8] {
        let priority = facility.code * 8 + Self.severity
        let clock = ISO8601DateFormatter()
        clock.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let time = clock.string(from: record.at)
        let parameters: String = Self.fields(record).map { name, value -> String in
            // Inside a parameter value only '"', '\' and ']' are escaped (RFC 5424, 6.3.3).
            var escaped = ""
            for character in value {
                if character == "\"" || character == "\\" || character == "]" { escaped.append("\\") }
                escaped.append(character.isNewline ? " " : character)
            }
            return " \(name)=\"\(escaped)\""
        }.joined()
        let messageID = Self.printable(record.command, limit: 32)
        let header = "<\(priority)>1 \(time) \(Self.printable(hostname, limit: 255)) miadmin \(pid) \(messageID)"
        return Array("\(header) [\(Self.structuredDataID)\(parameters)] \(Self.text(record))".utf8)
    }

    /// journald's native protocol: `NAME=value` lines; a value with a newline as the name, a
    /// newline, its length as 64-bit little-endian, the bytes and a newline.
    public func journalDatagram(_ record: AuditRecord) -> [UInt8] {
        var fields = [("MESSAGE", Self.text(record)), ("PRIORITY", String(Self.severity)),
                      ("SYSLOG_FACILITY", String(facility.code)), ("SYSLOG_IDENTIFIER", "miadmin"),
                      ("SYSLOG_PID", String(pid))]
        fields += Self.fields(record).map { ("MIADMIN_" + $0.0.uppercased(), $0.1) }
        var bytes: [UInt8] = []
        for (name, value) in fields {
            bytes += Array(name.utf8)
            let data = Array(value.utf8)
            if data.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(data.count).littleEndian) { bytes += $0 }
            } else {
                bytes.append(UInt8(ascii: "="))
            }
            bytes += data
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// Printable ASCII only, at most `limit` characters, "-" when empty (RFC 5424 header fields).
    private static func printable(_ text: String, limit: Int) -> String {
        let kept = String(text.unicodeScalars.filter { $0.value > 32 && $0.value < 127 }.prefix(limit))
        return kept.isEmpty ? "-" : kept
    }

    /// Sends one datagram without waiting; what went wrong, or nil.
    private func send(_ datagram: [UInt8]) -> String? {
        socket.withLock { fd -> String? in
            if fd < 0 {
                fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                if fd < 0 { return "cannot make a socket: \(String(cString: strerror(errno)))" }
            }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let path = Array(socketPath.utf8)
            guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return "the socket path \(socketPath) is too long" }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: path) }
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    datagram.withUnsafeBytes { bytes in
                        sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            guard sent < 0 else { return nil }
            let reason = errno == EAGAIN ? "its queue is full" : String(cString: strerror(errno))
            return "cannot send to \(socketPath): \(reason)."
        }
    }
}

/// The syslog facilities by name (`audit.facility`), with their RFC 5424 codes.
public enum SyslogFacility: String, Sendable, CaseIterable {
    case kern, user, mail, daemon, auth, syslog, lpr, news, uucp, cron, authpriv, ftp
    case local0, local1, local2, local3, local4, local5, local6, local7

    /// RFC 5424's numbers: kern 0 to ftp 11 in order; 12-15 are facilities without a name here;
    /// local0-local7 are 16-23.
    public var code: Int {
        let index = Self.allCases.firstIndex(of: self)!
        return index < 12 ? index : index + 4
    }
}
