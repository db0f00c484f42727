import Foundation
import MICommands
import MIStore
import Testing

/// `audit` in the config and the two wire formats of ``SystemLogRelay`` (the end-to-end test,
/// AuditSyslogTests, reads them from a socket of its own).
@Suite("System log relay")
struct SystemLogRelayTests {
    func parse(_ audit: String) throws -> AppConfig {
        let json = CommandHarness.configJSON.replacingOccurrences(of: #""store": {"#, with: #""audit": \#(audit), "store": {"#)
        return try AppConfig.parse(Data(json.utf8), path: "/etc/miadmin/config.json")
    }

    func refusal(_ audit: String) -> String {
        do {
            _ = try parse(audit)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func keysAndTheirDefaults() throws {
        #expect(try AppConfig.parse(Data(CommandHarness.configJSON.utf8), path: "/c.json").audit == nil)
        #expect(try parse(#"{"syslog": false}"#).audit == nil)
        #expect(try parse(#"{"syslog": true}"#).audit == AppConfig.Audit(syslog: true, facility: .authpriv, socket: nil, format: nil))
        #expect(try parse(#"{"syslog": true, "facility": "local5", "socket": "/run/log", "format": "journal"}"#).audit
            == AppConfig.Audit(syslog: true, facility: .local5, socket: "/run/log", format: .journal))
    }

    @Test func badValuesSayWhichKeyAndWhy() {
        #expect(refusal(#"{"syslog": "yes"}"#).contains("key audit.syslog must be true or false"))
        #expect(refusal(#"{"syslog": true, "facility": "security"}"#).contains("key audit.facility must be one of kern, user,"))
        #expect(refusal(#"{"syslog": true, "format": "json"}"#).contains("key audit.format must be one of rfc5424, journal"))
        #expect(refusal(#"{"syslog": true, "socket": "dev/log"}"#).contains("audit.socket must be an absolute path"))
        #expect(refusal(#"{"facility": "local0"}"#).contains("are for audit.syslog, which is not true"))
        #expect(refusal(#"{"syslog": true, "sislog": 1}"#).contains("unknown key audit.sislog"))
    }

    let record = AuditRecord(at: Date(timeIntervalSince1970: 1_796_000_000.25), actor: "mkhan", command: "move", formId: 12,
                             object: "form 12 jdoe/Pump station 4", before: #"{"owner":"jdoe"}"#,
                             after: #"{"owner":"asmith"}"#, note: "line one\nline ] \"two\"")

    @Test func rfc5424MessageWithStructuredData() {
        let relay = SystemLogRelay(socketPath: "/dev/null", format: .rfc5424, facility: .authpriv)
        let text = String(decoding: relay.rfc5424(record), as: UTF8.self)
        let header = #/^<85>1 2026-11-30T00:53:20\.250Z \S+ miadmin \d+ move /#
        #expect(text.contains(header), "\(text)")
        #expect(text.contains(#"[audit@32473 actor="mkhan" command="move" form="12" object="form 12 jdoe/Pump station 4" "#
                              + #"before="{\"owner\":\"jdoe\"}" after="{\"owner\":\"asmith\"}" note="line one line \] \"two\""] "#),
                "\(text)")
        #expect(text.hasSuffix(#"] mkhan move form 12 jdoe/Pump station 4: {"owner":"jdoe"} -> {"owner":"asmith"} (note: line one line ] "two")"#),
                "\(text)")
        #expect(!text.contains("\n"))
    }

    @Test func journalFieldsFrameAValueWithANewline() {
        let relay = SystemLogRelay(socketPath: "/dev/null", format: .journal, facility: .local0)
        let bytes = relay.journalDatagram(record)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("MESSAGE=mkhan move form 12 jdoe/Pump station 4: "))
        #expect(text.contains("\nSYSLOG_FACILITY=16\nSYSLOG_IDENTIFIER=miadmin\n"))
        #expect(text.contains("\nMIADMIN_ACTOR=mkhan\nMIADMIN_COMMAND=move\nMIADMIN_FORM=12\n"))
        // A value with a newline: the name, a newline, its length (64-bit little-endian), the bytes.
        let note = Array("line one\nline ] \"two\"".utf8)
        let framed = Array("MIADMIN_NOTE\n".utf8) + withUnsafeBytes(of: UInt64(note.count).littleEndian, Array.init) + note + [10]
        #expect(Array(bytes.suffix(framed.count)) == framed)
    }
}
