import CCurl
import CCurlLazy
import Foundation

/// Sends mail over SMTP with libcurl: STARTTLS required on `smtp://` (unless cleartext is
/// allowed), TLS from the start on `smtps://`, the server's certificate always verified. One
/// handle for its lifetime: consecutive mails reuse the connection. Not thread-safe.
public final class MailClient {
    public struct Settings: Sendable {
        public var url: String
        public var startTLS: Bool
        public var tls: TLSSettings
        public var user: String?
        /// Never part of a message.
        public var password: String?
        public var timeoutSeconds: Int

        public init(url: String, startTLS: Bool, tls: TLSSettings, user: String?, password: String?, timeoutSeconds: Int) {
            self.url = url
            self.startTLS = startTLS
            self.tls = tls
            self.user = user
            self.password = password
            self.timeoutSeconds = timeoutSeconds
        }
    }

    private let handle: CurlHandle
    private let settings: Settings

    public init(_ settings: Settings) throws(OutboundError) {
        handle = try CurlHandle()
        self.settings = settings
    }

    /// Sends `message` from `from` to `to` (envelope addresses). Throws ``OutboundError``:
    /// `.unreachable` or `.tls` when the server cannot be used at all (the caller stops),
    /// `.refused` when it refused this mail (sender, recipient, login).
    public func send(_ message: [UInt8], from: String, to: String) throws(OutboundError) {
        let server = HTTPSClient.serverName(settings.url)
        try handle.begin(settings.url, protocols: "smtp,smtps", timeoutSeconds: settings.timeoutSeconds, tls: settings.tls)
        if settings.startTLS { try handle.set(CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }
        if let user = settings.user { try handle.set(CURLOPT_USERNAME, user) }
        if let password = settings.password { try handle.set(CURLOPT_PASSWORD, password) }
        try handle.set(CURLOPT_MAIL_FROM, "<\(from)>")
        var recipients: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(recipients) }
        recipients = curl_slist_append(recipients, "<\(to)>")
        try handle.set(CURLOPT_MAIL_RCPT, pointer: recipients.map { UnsafeRawPointer($0) })
        try handle.set(CURLOPT_UPLOAD, 1)
        try handle.set(CURLOPT_INFILESIZE_LARGE, offset: Int64(message.count))
        let state = StreamState(size: message.count) { offset, count in
            Array(message[offset..<min(message.count, offset + count)])
        }
        try handle.set(CURLOPT_READDATA, pointer: Unmanaged.passUnretained(state).toOpaque())
        _ = miadmin_curl_setopt_read(handle.raw, streamRead)
        do {
            try withExtendedLifetime(state) { () throws(OutboundError) in try handle.perform(server: server) }
        } catch {
            // A reply of 4xx/5xx to MAIL, RCPT or DATA is the server refusing this mail, not an outage.
            let reply = handle.responseCode
            if error.kind == .unreachable, reply >= 400 {
                throw OutboundError(.refused, curlCode: error.curlCode, "\(error.message) (SMTP reply \(reply))")
            }
            throw error
        }
    }
}
