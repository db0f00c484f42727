import Foundation
import MITestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `audit.syslog`: each committed audit row also reaches the system logger, as RFC 5424 with the
/// row as structured data or as journald fields. The test binds its own datagram socket
/// (`audit.socket`) in place of /dev/log and reads what the built binary sent.
@Suite(.tags(.endToEnd, .ldap))
struct AuditSyslogTests {
    let fixture = Fixture.shared

    struct BindError: Error, CustomStringConvertible { let description: String }

    /// A datagram socket bound in a temp folder: the system logger as miadmin sees it.
    final class Receiver {
        let path: String
        private let fd: Int32

        init() throws {
            path = try TempDir.make() + "/log"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0 else { throw BindError(description: "cannot bind \(path): \(String(cString: strerror(errno)))") }
        }

        deinit { close(fd) }

        /// Every datagram received so far.
        func messages() -> [[UInt8]] {
            var all: [[UInt8]] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return all }
                all.append(Array(buffer[0..<count]))
            }
        }
    }

    func config(socket: String, _ edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as! [String: Any]
        setKey(&object, "audit.syslog", true)
        setKey(&object, "audit.socket", socket)
        edit(&object)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        return config
    }

    @Test func aChangeReachesTheLoggerAsRFC5424WithItsNote() throws {
        let logger = try Receiver()
        let config = try config(socket: logger.path) { setKey(&$0, "audit.facility", "local3") }
        let moved = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith --note 'jdoe on \"leave\"'"])
        #expect(moved.status == 0 && moved.stderr.isEmpty, "\(moved.stderr)")

        let messages = logger.messages().map { String(decoding: $0, as: UTF8.self) }
        #expect(messages.count == 1, "\(messages)")
        let message = try #require(messages.first)
        // local3 (19) * 8 + notice (5); version 1; ident miadmin; the command as MSGID.
        #expect(message.hasPrefix("<157>1 "), "\(message)")
        #expect(message.contains(" miadmin ") && message.contains(" move [audit@32473 actor=\"mkhan\" command=\"move\" form=\""),
                "\(message)")
        #expect(message.contains("note=\"jdoe on \\\"leave\\\"\"]"), "quotes escaped in SD: \(message)")
        // The text after the structured data is what `audit` shows of the row: who, what, which
        // form, before -> after, the note.
        let audit = try MIAdmin.as_("mkhan", config: config, format: "json", ["audit --command move"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        let object = try #require(rows.first?["object"] as? String)
        #expect(message.contains("object=\"\(object)\""), "\(message)")
        #expect(message.contains("] mkhan move \(object): {"), "\(message)")
        #expect(message.contains("\"owner\":\"asmith\""), "\(message)")
        #expect(message.hasSuffix("} (note: jdoe on \"leave\")"), "\(message)")
    }

    @Test func journalFormatCarriesMIADMINFields() throws {
        let logger = try Receiver()
        let config = try config(socket: logger.path) { setKey(&$0, "audit.format", "journal") }
        let moved = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith --note handover"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let messages = logger.messages().map { String(decoding: $0, as: UTF8.self) }
        #expect(messages.count == 1, "\(messages)")
        let lines = Set((messages.first ?? "").split(separator: "\n").map(String.init))
        for field in ["SYSLOG_IDENTIFIER=miadmin", "SYSLOG_FACILITY=10", "PRIORITY=5", "MIADMIN_ACTOR=mkhan",
                      "MIADMIN_COMMAND=move", "MIADMIN_NOTE=handover"] {
            #expect(lines.contains(field), "\(field) in \(lines)")
        }
        #expect(lines.contains { $0.hasPrefix("MESSAGE=mkhan move form ") && $0.hasSuffix("(note: handover)") }, "\(lines)")
    }

    /// A dry run commits nothing and so tells the logger nothing; an atomic run that commits tells
    /// it each row once.
    @Test func onlyCommittedRowsAreSent() throws {
        let logger = try Receiver()
        let config = try config(socket: logger.path)
        let dry = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith"], extra: ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(logger.messages().isEmpty)
        let atomic = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith", "move 'asmith/Pump station 4' jdoe"],
                                    extra: ["--atomic"])
        #expect(atomic.status == 0, "\(atomic.stderr)")
        #expect(logger.messages().count == 2)
    }

    /// `undo` runs as one transaction that is retried as a whole; its rows reach the logger too,
    /// once, after it committed.
    @Test func anUndoReachesTheLogger() throws {
        let logger = try Receiver()
        let config = try config(socket: logger.path)
        let store = try fixture.storePath(config)
        let before = Int(try sqlite(store, "SELECT count(*) FROM audit")) ?? -1
        let run = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith", "undo --yes"])
        #expect(run.status == 0, "\(run.stderr)")
        let added = (Int(try sqlite(store, "SELECT count(*) FROM audit")) ?? -1) - before
        let messages = logger.messages().map { String(decoding: $0, as: UTF8.self) }
        // The move's row and the undo's, each sent once.
        #expect(added == 2 && messages.count == added, "\(added) audit rows, messages: \(messages)")
    }

    /// Nothing listens: the change is made and audited in the store, and the console says so
    /// once per session, not once per change.
    @Test func aLoggerThatIsDownNeitherBlocksNorFailsAChange() throws {
        let missing = try TempDir.make() + "/no-logger"
        let config = try config(socket: missing)
        let moved = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith",
                                                               "move 'asmith/Pump station 4' jdoe"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let warnings = moved.stderr.components(separatedBy: "not reaching the system logger").count - 1
        #expect(warnings == 1, "\(moved.stderr)")
        #expect(moved.stderr.contains(missing), "\(moved.stderr)")
        #expect(try sqlite(try fixture.storePath(config), "SELECT count(*) FROM audit WHERE command = 'move'") == "2")
    }
}
