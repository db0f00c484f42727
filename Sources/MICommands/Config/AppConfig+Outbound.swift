import Foundation
import MIOutbound

extension AppConfig {
    /// `delivery`: where `deliver` posts submitted forms (docs/configuration.md).
    public struct Delivery: Sendable {
        /// `https://…` (or `http://` with `allowCleartext`).
        public var url: String
        public var allowCleartext: Bool
        public var tls: TLSSettings
        /// A file whose first line is the bearer token; nil: no Authorization header.
        public var tokenFile: String?
        public var timeoutSeconds: Int
        /// Tries before a delivery the office keeps failing is held.
        public var maxAttempts: Int
        /// The first retry's delay; each further one doubles it (with jitter), up to `retryMaxSeconds`.
        public var retryBaseSeconds: Int
        public var retryMaxSeconds: Int
    }

    /// `mail`: how `remind` sends mail.
    public struct Mail: Sendable {
        /// `smtp://host:port` or `smtps://host:port`.
        public var url: String
        /// STARTTLS on an `smtp://` URL, required (default); off only with `allowCleartext`.
        public var startTLS: Bool
        public var allowCleartext: Bool
        public var tls: TLSSettings
        /// The sender address (envelope and From:).
        public var from: String
        /// Files with the SMTP login's user name and password (first line each); both or neither.
        public var userFile: String?
        public var passwordFile: String?
        public var timeoutSeconds: Int
    }

    /// The documented bounds of the outbound settings.
    public enum OutboundBounds {
        public static let timeoutSeconds = 1...300
        public static let maxAttempts = 1...1_000
        public static let retrySeconds = 1...604_800
    }

    static func delivery(reader: inout ConfigReader, file: String, resolve: (String?) -> String?) throws -> Delivery? {
        let url = try reader.string("delivery.url").flatMap { $0.isEmpty ? nil : $0 }
        let allowCleartext = try reader.bool("delivery.allowCleartext") ?? false
        let tls = TLSSettings(caFile: resolve(try reader.string("delivery.caFile")),
                              clientCertificate: resolve(try reader.string("delivery.clientCertificate")),
                              clientKey: resolve(try reader.string("delivery.clientKey")))
        let tokenFile = resolve(try reader.string("delivery.tokenFile"))
        let timeout = try reader.integer("delivery.timeoutSeconds", in: OutboundBounds.timeoutSeconds, unit: "seconds") ?? 30
        let maxAttempts = try reader.integer("delivery.maxAttempts", in: OutboundBounds.maxAttempts, unit: "tries") ?? 10
        let base = try reader.integer("delivery.retryBaseSeconds", in: OutboundBounds.retrySeconds, unit: "seconds") ?? 60
        let cap = try reader.integer("delivery.retryMaxSeconds", in: OutboundBounds.retrySeconds, unit: "seconds") ?? 21_600
        guard let url else {
            if tokenFile != nil || tls.caFile != nil {
                throw ConfigError(file: file, message: "delivery.* is set but delivery.url is missing")
            }
            return nil
        }
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard scheme == "https" || (scheme == "http" && allowCleartext) else {
            throw ConfigError(file: file, message: "key delivery.url must be an https:// URL (http:// only with "
                              + "delivery.allowCleartext: forms and the bearer token would cross the network readable)")
        }
        guard URLComponents(string: url)?.host?.isEmpty == false else {
            throw ConfigError(file: file, message: "key delivery.url must be a URL with a host, such as https://office.example.com/forms")
        }
        guard (tls.clientCertificate == nil) == (tls.clientKey == nil) else {
            throw ConfigError(file: file, message: "delivery.clientCertificate and delivery.clientKey go together (mutual TLS)")
        }
        guard base <= cap else {
            throw ConfigError(file: file, message: "delivery.retryBaseSeconds (\(base)) is more than delivery.retryMaxSeconds (\(cap))")
        }
        return Delivery(url: url, allowCleartext: allowCleartext, tls: tls, tokenFile: tokenFile, timeoutSeconds: timeout,
                        maxAttempts: maxAttempts, retryBaseSeconds: base, retryMaxSeconds: cap)
    }

    static func mail(reader: inout ConfigReader, file: String, resolve: (String?) -> String?) throws -> Mail? {
        let url = try reader.string("mail.url").flatMap { $0.isEmpty ? nil : $0 }
        let startTLS = try reader.bool("mail.startTLS") ?? true
        let allowCleartext = try reader.bool("mail.allowCleartext") ?? false
        let tls = TLSSettings(caFile: resolve(try reader.string("mail.caFile")))
        let from = try reader.string("mail.from")
        let userFile = resolve(try reader.string("mail.userFile"))
        let passwordFile = resolve(try reader.string("mail.passwordFile"))
        let timeout = try reader.integer("mail.timeoutSeconds", in: OutboundBounds.timeoutSeconds, unit: "seconds") ?? 30
        guard let url else {
            if from != nil { throw ConfigError(file: file, message: "mail.* is set but mail.url is missing") }
            return nil
        }
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard scheme == "smtp" || scheme == "smtps", URLComponents(string: url)?.host?.isEmpty == false else {
            throw ConfigError(file: file, message: "key mail.url must be smtp://host:port or smtps://host:port")
        }
        guard scheme == "smtps" || startTLS || allowCleartext else {
            throw ConfigError(file: file, message: "mail.startTLS is false on an smtp:// URL: mail and the login would cross "
                              + "the network readable; use smtps://, STARTTLS, or set mail.allowCleartext")
        }
        guard let from, Self.isMailAddress(from) else {
            throw ConfigError(file: file, message: "key mail.from must be a mail address such as miadmin@example.com")
        }
        guard (userFile == nil) == (passwordFile == nil) else {
            throw ConfigError(file: file, message: "mail.userFile and mail.passwordFile go together")
        }
        return Mail(url: url, startTLS: startTLS, allowCleartext: allowCleartext, tls: tls, from: from,
                    userFile: userFile, passwordFile: passwordFile, timeoutSeconds: timeout)
    }

    /// A plain `local@domain` address without spaces, angle brackets or line breaks (it goes
    /// into SMTP commands and a header).
    static func isMailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty
            && !text.contains { $0.isWhitespace || $0.isNewline || "<>\",;".contains($0) || !$0.isASCII }
    }
}
