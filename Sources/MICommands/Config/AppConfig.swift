import Foundation
import MIDirectory
import MIStore

/// The console's configuration file (JSON, nested objects; every key in docs/configuration.md).
public struct AppConfig: Sendable {
    public struct LDAP: Sendable {
        public var uri: String
        public var startTLS: Bool
        public var caFile: String?
        public var tlsVerify: Bool
        public var allowCleartext: Bool
        public var baseDN: String
        public var userBase: String
        public var userAttribute: String
        public var bindDN: String?
        public var bindPasswordFile: String?
        public var groups: [Role: String]
        public var timeoutSeconds: Double
    }

    public struct Store: Sendable {
        public var path: String
        /// How long a command waits for another console's write before giving up.
        public var busyTimeoutSeconds: Double
    }

    public struct Policy: Sendable {
        public var expiryDays: Int
        public var notifyDays: [Int]
        /// Days a form stays in the trash before `purge` destroys it.
        public var retentionDays: Int

        /// These values as the store's policy type (the defaults `policy set` overrides).
        public var expiryPolicy: ExpiryPolicy {
            ExpiryPolicy(expiryDays: expiryDays, notifyDays: notifyDays, retentionDays: retentionDays)
        }
    }

    public struct Display: Sendable {
        /// The site's zone: tables show times in it, JSON and CSV give ISO 8601 with its offset.
        public var timeZone: TimeZone
    }

    public var file: String
    public var ldap: LDAP
    public var store: Store
    public var policy: Policy
    public var display = Display(timeZone: .current)

    /// Where the config is looked for: `--config`, else `$MIADMIN_CONFIG`, else
    /// `$XDG_CONFIG_HOME/miadmin/config.json` (`~/.config/...`), else `/etc/miadmin/config.json`.
    public static func resolvePath(explicit: String?, environment: [String: String]) -> String {
        if let explicit { return explicit }
        if let fromEnv = environment["MIADMIN_CONFIG"], !fromEnv.isEmpty { return fromEnv }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.config"
        let user = "\(xdg)/miadmin/config.json"
        if FileManager.default.fileExists(atPath: user) { return user }
        return "/etc/miadmin/config.json"
    }

    /// Loads and validates the file. Relative paths inside it are taken relative to the file.
    public static func load(path: String) throws -> AppConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(file: path, message: "cannot read the config file (use --config FILE or $MIADMIN_CONFIG)")
        }
        var reader = try ConfigReader(file: path, data: data)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        func resolve(_ value: String?) -> String? {
            guard let value, !value.isEmpty else { return nil }
            return value.hasPrefix("/") ? value : directory.appendingPathComponent(value).standardizedFileURL.path
        }
        var groups: [Role: String] = [:]
        for role in Role.allCases {
            groups[role] = try reader.requiredString("ldap.groups.\(role.rawValue)")
        }
        let timeout = try reader.number("ldap.timeoutSeconds") ?? 10
        guard timeout > 0 else { throw ConfigError(file: path, message: "key ldap.timeoutSeconds must be above 0") }
        let ldap = LDAP(
            uri: try reader.requiredString("ldap.uri"),
            startTLS: try reader.bool("ldap.startTLS") ?? false,
            caFile: resolve(try reader.string("ldap.caFile")),
            tlsVerify: try reader.bool("ldap.tlsVerify") ?? true,
            allowCleartext: try reader.bool("ldap.allowCleartext") ?? false,
            baseDN: try reader.requiredString("ldap.baseDN"),
            userBase: try reader.requiredString("ldap.userBase"),
            userAttribute: try reader.string("ldap.userAttribute") ?? "uid",
            bindDN: try reader.string("ldap.bindDN").flatMap { $0.isEmpty ? nil : $0 },
            bindPasswordFile: resolve(try reader.string("ldap.bindPasswordFile")),
            groups: groups,
            timeoutSeconds: timeout)
        let busy = try reader.number("store.busyTimeoutSeconds") ?? 5
        guard busy >= 0 else { throw ConfigError(file: path, message: "key store.busyTimeoutSeconds must not be negative") }
        let store = Store(path: resolve(try reader.requiredString("store.path"))!, busyTimeoutSeconds: busy)
        let expiry = try reader.number("policy.expiryDays") ?? 7
        guard expiry >= 1, expiry == expiry.rounded() else {
            throw ConfigError(file: path, message: "key policy.expiryDays must be a whole number of days, 1 or more")
        }
        let notify = try reader.integerList("policy.notifyDays") ?? [1, 2]
        let retention = try reader.number("policy.retentionDays") ?? 30
        guard retention >= 1, retention == retention.rounded() else {
            throw ConfigError(file: path, message: "key policy.retentionDays must be a whole number of days, 1 or more")
        }
        let policy = Policy(expiryDays: Int(expiry), notifyDays: notify, retentionDays: Int(retention))
        if let problem = policy.expiryPolicy.problems.first {
            // The rules `policy set` enforces (a reminder that would never fire, duplicates, …).
            throw ConfigError(file: path, message: "keys policy.*: \(problem)")
        }
        var display = Display(timeZone: .current)
        if let zone = try reader.string("display.timeZone"), !zone.isEmpty {
            guard let timeZone = TimeZone(identifier: zone) else {
                throw ConfigError(file: path, message: "key display.timeZone must be an IANA time zone name such as Europe/Berlin, not '\(zone)'")
            }
            display.timeZone = timeZone
        }

        let unknown = reader.unknownKeys()
        guard unknown.isEmpty else {
            throw ConfigError(file: path, message: "unknown key\(unknown.count > 1 ? "s" : "") \(unknown.joined(separator: ", ")) (see docs/configuration.md)")
        }
        if ldap.bindDN != nil && ldap.bindPasswordFile == nil {
            throw ConfigError(file: path, message: "ldap.bindDN is set, so ldap.bindPasswordFile is required")
        }
        return AppConfig(file: path, ldap: ldap, store: store, policy: policy, display: display)
    }

    /// The directory client's settings, with the service password read from its file.
    public func directorySettings() throws -> DirectorySettings {
        var password: [UInt8]?
        if let file = ldap.bindPasswordFile {
            guard var bytes = FileManager.default.contents(atPath: file).map(Array.init) else {
                throw ConfigError(file: self.file, message: "cannot read ldap.bindPasswordFile '\(file)'")
            }
            while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
            password = bytes
        }
        let connection = ConnectionSettings(uri: ldap.uri, startTLS: ldap.startTLS, caFile: ldap.caFile,
                                            verifyCertificate: ldap.tlsVerify, allowCleartext: ldap.allowCleartext,
                                            timeoutSeconds: ldap.timeoutSeconds)
        return DirectorySettings(connection: connection, baseDN: ldap.baseDN, userBase: ldap.userBase,
                                 userAttribute: ldap.userAttribute, bindDN: ldap.bindDN, bindPassword: password,
                                 groups: ldap.groups)
    }
}
