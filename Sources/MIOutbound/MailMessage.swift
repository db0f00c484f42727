import Foundation

/// A mail as it goes over SMTP (RFC 5322 with MIME): a plain-text body and, optionally, one
/// attachment. Both parts are UTF-8 and base64 encoded (no 8BITMIME needed); a non-ASCII
/// subject is an RFC 2047 encoded word. Lines end in CRLF.
public struct MailMessage: Sendable {
    public struct Attachment: Sendable {
        public var fileName: String
        /// e.g. `text/calendar; method=PUBLISH`.
        public var contentType: String
        public var data: Data
        public init(fileName: String, contentType: String, data: Data) {
            self.fileName = fileName
            self.contentType = contentType
            self.data = data
        }
    }

    public var from: String
    public var to: String
    public var subject: String
    public var body: String
    public var attachment: Attachment?
    public var date: Date
    /// The Message-ID's left part: unique per message.
    public var id: String

    public init(from: String, to: String, subject: String, body: String, attachment: Attachment? = nil,
                date: Date, id: String = UUID().uuidString.lowercased()) {
        self.from = from
        self.to = to
        self.subject = subject
        self.body = body
        self.attachment = attachment
        self.date = date
        self.id = id
    }

    /// The message's bytes, ready for SMTP DATA.
    public var bytes: [UInt8] {
        let boundary = "=_miadmin_" + id.replacingOccurrences(of: "-", with: "")
        let domain = from.split(separator: "@").last.map(String.init) ?? "miadmin"
        var lines = [
            "From: \(from)",
            "To: \(to)",
            "Subject: \(Self.headerText(subject))",
            "Date: \(Self.rfc5322(date))",
            "Message-ID: <\(id)@\(domain)>",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
        ]
        let text = Self.base64Lines(Data(body.replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n", with: "\r\n").utf8))
        if let attachment {
            lines += ["Content-Type: multipart/mixed; boundary=\"\(boundary)\"", "", "--\(boundary)",
                      "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += text
            lines += ["--\(boundary)", "Content-Type: \(attachment.contentType); charset=utf-8",
                      "Content-Disposition: attachment; filename=\"\(attachment.fileName)\"",
                      "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(attachment.data)
            lines += ["--\(boundary)--"]
        } else {
            lines += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += text
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// ASCII text as it is (control characters dropped); anything else as one RFC 2047 word.
    static func headerText(_ text: String) -> String {
        let clean = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        if clean.unicodeScalars.allSatisfy(\.isASCII) { return clean }
        return "=?UTF-8?B?" + Data(clean.utf8).base64EncodedString() + "?="
    }

    static func base64Lines(_ data: Data) -> [String] {
        data.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
            .components(separatedBy: "\r\n")
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
