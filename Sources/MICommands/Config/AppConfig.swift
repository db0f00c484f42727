import MIPostgres
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
        public var roleSource: RoleSource
        public var nestedGroups: Bool
        /// nil: `auto` (chosen from the root DSE).
        public var userFilter: String?
        public var userPrincipalSuffix: String?
        public var pageSize: Int
        /// `teams`: where crews come from; nil when the site keeps none.
        public var teams: CrewSettings? = nil
        /// `kerberos`: ticket logins and the service account's keytab; nil: passwords only.
        public var kerberos: KerberosSettings? = nil
    }

    /// The documented bounds of every number in the file (docs/configuration.md).
    public enum Bounds {
        public static let timeoutSeconds = ConnectionSettings.timeoutRange
        /// Active Directory serves at most 1,000 entries a page (MaxPageSize); larger asks get 1,000.
        public static let pageSize = 1...10_000
        public static let busyTimeoutSeconds: ClosedRange<Double> = 0...3_600
        /// Days, as `policy set` takes them: up to ten years.
        public static let days = ExpiryPolicy.dayRange
    }

    public struct Store: Sendable {
        /// Which engine holds the store: `store.path` (SQLite, the default) or `store.url`
        /// (PostgreSQL, a libpq URI checked by ``PostgresTarget``).
        public enum Location: Sendable {
            case sqlite(path: String)
            case postgres(PostgresTarget)
        }
        public var location: Location
        /// `store.passwordFile`: the PostgreSQL store account's password (first line); nil lets
        /// libpq find one by its own conventions (unprivileged runs only).
        public var passwordFile: String?
        /// `store.allowCleartext`: accept a `store.url` (and a `store copy` target) whose sslmode
        /// does not verify the server.
        public var allowCleartext: Bool
        /// How long a command waits for another console's write before giving up.
        public var busyTimeoutSeconds: Double
        /// `store.pooler` (PostgreSQL): what is between the console and the server; nil finds out.
        public var pooler: PostgresPooler? = nil
        /// `store.reconnectSeconds` (PostgreSQL): how long a lost connection is tried again.
        public var reconnectSeconds: Double = 30
        /// `store.readUrl` (PostgreSQL): a hot standby for listings, audit, check and report.
        public var readTarget: PostgresTarget? = nil
        /// `store.maxLagSeconds`: a standby further behind the primary is said to lag.
        public var maxLagSeconds: Double = 30

        /// The SQLite file, or nil for a PostgreSQL store.
        public var path: String? {
            if case .sqlite(let path) = location { return path }
            return nil
        }

        /// Where the store is, for messages and the banner: the file, or the PostgreSQL hosts,
        /// port and database (never a password).
        public var displayName: String {
            switch location {
            case .sqlite(let path): path
            case .postgres(let target): "postgresql://" + target.description
            }
        }
    }

    public struct Policy: Sendable {
        public var expiryDays: Int
        public var notifyDays: [Int]
        /// Days a form stays in the trash before `purge` destroys it.
        public var retentionDays: Int
        /// Whether a `move` restarts the moved form's expiry clock (`assigned`, the default).
        public var expiryFrom: ExpiryStart = .assigned

        /// These values as the store's policy type (the defaults `policy set` overrides).
        public var expiryPolicy: ExpiryPolicy {
            ExpiryPolicy(expiryDays: expiryDays, notifyDays: notifyDays, retentionDays: retentionDays,
                         expiryFrom: expiryFrom)
        }
    }

    /// Limits of `import` (docs/configuration.md).
    public struct Import: Sendable {
        /// The largest media file an import reads, in MiB (form.json is capped at 4 MiB).
        public var maxMediaMiB: Int

        public var limits: ImportLimits {
            ImportLimits(formJSONBytes: ImportLimits.defaults.formJSONBytes, mediaBytes: maxMediaMiB << 20)
        }
    }

    public struct Display: Sendable {
        /// The site's zone: tables show times in it, JSON and CSV give ISO 8601 with its offset.
        public var timeZone: TimeZone
        /// More incomplete forms than this makes a technician overloaded in `today`.
        public var workloadLimit = 25
    }

    /// `limits.*`: bounds on what a user may type, and on how long one read may hold the store.
    public struct Limits: Sendable {
        /// The longest value a command line may carry (a comment, a `--note`), in bytes: a 20 MB
        /// comment was accepted, then made `show` take 7.6 s and `report` 17 s for everyone.
        public var commentBytes: Int
        /// How long one read of a SQLite store may keep its snapshot, in seconds: a reader holds
        /// back every checkpoint, and the `-wal` file grows with the other consoles' changes.
        public var snapshotSeconds = 60
        public static let defaults = Limits(commentBytes: 64 << 10)
    }

    public var file: String
    public var ldap: LDAP
    public var store: Store
    public var policy: Policy
    public var display = Display(timeZone: .autoupdatingCurrent)
    public var `import` = Import(maxMediaMiB: ImportLimits.defaults.mediaBytes >> 20)
    public var limits = Limits.defaults
    /// `delivery` and `mail` (AppConfig+Outbound.swift); nil when the config has none.
    public var delivery: Delivery?
    public var mail: Mail?
    /// `audit`: audit rows to the system logger too; nil: the store only.
    public var audit: Audit? = nil

    /// The system config of a binary installed under the usual prefixes (`/usr/local`, `/usr`).
    public static let defaultSystemPath = "/etc/miadmin/config.json"

    /// Where the config is looked for: `--config`, else `$MIADMIN_CONFIG`, else
    /// `$XDG_CONFIG_HOME/miadmin/config.json` (`~/.config/...`), else the system config
    /// (`/etc/miadmin/config.json`; see ``InstallLayout`` for other prefixes).
    /// A privileged run (the installed setgid binary) reads the system config only.
    public static func resolvePath(explicit: String?, environment: [String: String],
                                   systemPath: String = defaultSystemPath) -> String {
        if let explicit { return explicit }
        if let fromEnv = environment["MIADMIN_CONFIG"], !fromEnv.isEmpty { return fromEnv }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.config"
        let user = "\(xdg)/miadmin/config.json"
        if FileManager.default.fileExists(atPath: user) { return user }
        return systemPath
    }

    /// Loads and validates the file. Relative paths inside it are taken relative to the file.
    public static func load(path: String) throws -> AppConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(file: path, message: "cannot read the config file (use --config FILE or $MIADMIN_CONFIG)")
        }
        return try parse(data, path: path)
    }

    /// Validates a config's JSON, as if read from `path` (relative paths inside it are taken
    /// relative to that file's folder; messages name it).
    public static func parse(_ data: Data, path: String) throws -> AppConfig {
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
        let timeout = try reader.number("ldap.timeoutSeconds", in: Bounds.timeoutSeconds, unit: "seconds") ?? 10
        let roleSource = try reader.choice("ldap.roleSource", RoleSource.allCases.map(\.rawValue))
            .flatMap(RoleSource.init(rawValue:)) ?? .auto
        let userFilter = try reader.string("ldap.userFilter").flatMap { $0.isEmpty || $0 == "auto" ? nil : $0 }
        if let userFilter, !Self.isBalancedFilter(userFilter) {
            throw ConfigError(file: path, message: "key ldap.userFilter must be \"auto\" or an LDAP filter in parentheses, such as (objectClass=inetOrgPerson)")
        }
        var ldap = LDAP(
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
            timeoutSeconds: timeout,
            roleSource: roleSource,
            nestedGroups: try reader.bool("ldap.nestedGroups") ?? false,
            userFilter: userFilter,
            userPrincipalSuffix: try reader.string("ldap.userPrincipalSuffix").flatMap { $0.isEmpty ? nil : $0 },
            pageSize: try reader.integer("ldap.pageSize", in: Bounds.pageSize, unit: "entries") ?? 500)
        ldap.teams = try Self.teams(reader: &reader, file: path)
        ldap.kerberos = try Self.kerberos(reader: &reader, file: path, resolve: resolve)
        let busy = try reader.number("store.busyTimeoutSeconds", in: Bounds.busyTimeoutSeconds, unit: "seconds") ?? 5
        var store = try Self.store(reader: &reader, file: path, busy: busy, resolve: resolve)
        try Self.readPostgresOptions(into: &store, reader: &reader, file: path)
        let expiry = try reader.integer("policy.expiryDays", in: Bounds.days, unit: "days") ?? 7
        let notify = try reader.integerList("policy.notifyDays") ?? [1, 2]
        if let outside = notify.first(where: { !Bounds.days.contains($0) }) {
            throw ConfigError(file: path, message: "key policy.notifyDays must hold whole numbers of days from \(Bounds.days.lowerBound) to \(Bounds.days.upperBound) (not \(outside))")
        }
        let retention = try reader.integer("policy.retentionDays", in: Bounds.days, unit: "days") ?? 30
        var expiryFrom = ExpiryStart.assigned
        if let text = try reader.string("policy.expiryFrom") {
            guard let start = ExpiryStart(rawValue: text) else {
                throw ConfigError(file: path, message: "key policy.expiryFrom must be 'created' or 'assigned', not '\(text)'")
            }
            expiryFrom = start
        }
        let policy = Policy(expiryDays: expiry, notifyDays: notify, retentionDays: retention, expiryFrom: expiryFrom)
        if let problem = policy.expiryPolicy.problems.first {
            // The rules `policy set` enforces (a reminder that would never fire, duplicates, …).
            throw ConfigError(file: path, message: "keys policy.*: \(problem)")
        }
        var display: Display
        if let zone = try reader.string("display.timeZone"), !zone.isEmpty {
            guard let timeZone = TimeZone(identifier: zone) else {
                throw ConfigError(file: path, message: "key display.timeZone must be an IANA time zone name such as Europe/Berlin, not '\(zone)'")
            }
            display = Display(timeZone: timeZone)
        } else {
            display = Display(timeZone: .autoupdatingCurrent)
        }

        if let limit = try reader.number("display.workloadLimit") {
            guard limit >= 1, limit <= 100_000, limit == limit.rounded() else {
                throw ConfigError(file: path, message: "key display.workloadLimit must be a whole number of forms from 1 to 100000")
            }
            display.workloadLimit = Int(limit)
        }

        let maxMedia = try reader.number("import.maxMediaMiB") ?? Double(ImportLimits.defaults.mediaBytes >> 20)
        guard maxMedia >= 1, maxMedia <= 4096, maxMedia == maxMedia.rounded() else {
            throw ConfigError(file: path, message: "key import.maxMediaMiB must be a whole number of MiB from 1 to 4096")
        }

        let commentBytes = try reader.number("limits.commentBytes") ?? Double(Limits.defaults.commentBytes)
        guard commentBytes >= 1_024, commentBytes <= Double(16 << 20), commentBytes == commentBytes.rounded() else {
            throw ConfigError(file: path, message: "key limits.commentBytes must be a whole number of bytes from 1024 to 16777216")
        }

        let snapshotSeconds = try reader.number("limits.snapshotSeconds") ?? Double(Limits.defaults.snapshotSeconds)
        guard snapshotSeconds >= 1, snapshotSeconds <= 86_400, snapshotSeconds == snapshotSeconds.rounded() else {
            throw ConfigError(file: path, message: "key limits.snapshotSeconds must be a whole number of seconds from 1 to 86400")
        }

        let delivery = try Self.delivery(reader: &reader, file: path, resolve: resolve)
        let mail = try Self.mail(reader: &reader, file: path, resolve: resolve)
        let audit = try Self.audit(reader: &reader, file: path)

        let unknown = reader.unknownKeys()
        guard unknown.isEmpty else {
            throw ConfigError(file: path, message: "unknown key\(unknown.count > 1 ? "s" : "") \(unknown.joined(separator: ", ")) (see docs/configuration.md)")
        }
        let keytab = ldap.kerberos?.servesFromKeytab == true
        if keytab && ldap.bindPasswordFile != nil {
            throw ConfigError(file: path, message: "ldap.kerberos.serviceKeytab and ldap.bindPasswordFile are both set: the "
                              + "service account binds either from its keytab or with its password; remove one")
        }
        if ldap.bindDN != nil && ldap.bindPasswordFile == nil && !keytab {
            throw ConfigError(file: path, message: "ldap.bindDN is set, so ldap.bindPasswordFile is required "
                              + "(or ldap.kerberos.serviceKeytab)")
        }
        return AppConfig(file: path, ldap: ldap, store: store, policy: policy, display: display,
                         import: Import(maxMediaMiB: Int(maxMedia)), limits: Limits(commentBytes: Int(commentBytes), snapshotSeconds: Int(snapshotSeconds)),
                         delivery: delivery, mail: mail, audit: audit)
    }

    /// `store.path` or `store.url` (exactly one), `store.passwordFile` and `store.allowCleartext`.
    private static func store(reader: inout ConfigReader, file: String, busy: Double,
                              resolve: (String?) -> String?) throws -> Store {
        let path = try reader.string("store.path").flatMap { $0.isEmpty ? nil : $0 }
        let url = try reader.string("store.url").flatMap { $0.isEmpty ? nil : $0 }
        let passwordFile = resolve(try reader.string("store.passwordFile"))
        let allowCleartext = try reader.bool("store.allowCleartext") ?? false
        switch (path, url) {
        case (nil, nil):
            throw ConfigError(file: file, message: "missing key store.path (a SQLite file) or store.url (a PostgreSQL URI)")
        case (_?, _?):
            throw ConfigError(file: file, message: "store.path and store.url are both set; a store is either a SQLite file "
                              + "(store.path) or a PostgreSQL database (store.url), not both")
        case (let path?, nil):
            if passwordFile != nil {
                throw ConfigError(file: file, message: "store.passwordFile is for a PostgreSQL store (store.url); a SQLite store has no password")
            }
            return Store(location: .sqlite(path: resolve(path)!), passwordFile: nil, allowCleartext: allowCleartext,
                         busyTimeoutSeconds: busy)
        case (nil, let url?):
            do {
                let target = try PostgresTarget(uri: url, allowCleartext: allowCleartext)
                return Store(location: .postgres(target), passwordFile: passwordFile, allowCleartext: allowCleartext,
                             busyTimeoutSeconds: busy)
            } catch let error as PostgresError {
                throw ConfigError(file: file, message: error.description)
            }
        }
    }

    /// The `teams` object: `source` (groups or manager), `base` (groups), `allTeamsGroup`,
    /// `managerAttribute`, `refreshSeconds`. Absent: no crews.
    private static func teams(reader: inout ConfigReader, file: String) throws -> CrewSettings? {
        let source = try reader.choice("teams.source", CrewSettings.Source.allCases.map(\.rawValue)).flatMap(CrewSettings.Source.init)
        let base = try reader.string("teams.base").flatMap { $0.isEmpty ? nil : $0 }
        let allCrewsGroup = try reader.string("teams.allTeamsGroup").flatMap { $0.isEmpty ? nil : $0 }
        let managerAttribute = try reader.string("teams.managerAttribute").flatMap { $0.isEmpty ? nil : $0 }
        let refreshSeconds = try reader.integer("teams.refreshSeconds", in: 0...86_400, unit: "seconds")
        guard let source else {
            if base != nil || allCrewsGroup != nil || managerAttribute != nil || refreshSeconds != nil {
                throw ConfigError(file: file, message: "missing key teams.source (groups or manager)")
            }
            return nil
        }
        switch source {
        case .groups:
            guard base != nil else {
                throw ConfigError(file: file, message: "teams.source is groups, so teams.base (the entry the crew groups are under) is required")
            }
            if managerAttribute != nil {
                throw ConfigError(file: file, message: "teams.managerAttribute is for teams.source manager, not groups")
            }
        case .manager:
            if base != nil {
                throw ConfigError(file: file, message: "teams.base is for teams.source groups; with manager, crews are the foremen's reports")
            }
        }
        if let managerAttribute, !managerAttribute.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
            throw ConfigError(file: file, message: "key teams.managerAttribute must be an attribute name such as manager")
        }
        return CrewSettings(source: source, base: base, allCrewsGroup: allCrewsGroup,
                            managerAttribute: managerAttribute ?? "manager",
                            refreshSeconds: refreshSeconds ?? CrewSettings.defaultRefreshSeconds)
    }

    /// A filter's outer shape: in parentheses, balanced (escaped values use `\\28`, `\\29`).
    /// The server checks the rest and says what it dislikes on first use.
    static func isBalancedFilter(_ filter: String) -> Bool {
        guard filter.hasPrefix("("), filter.hasSuffix(")") else { return false }
        var depth = 0
        for ch in filter {
            if ch == "(" { depth += 1 } else if ch == ")" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }

    /// The directory client's settings, with the service password read from its file (first
    /// line only). `privileged`: the run holds the store group's rights, so the file must not be
    /// readable by other users nor by a group other than the one the process runs as (0640
    /// root:miadmin is right); otherwise a file readable by group or others only gets a warning.
    /// How to reach the directory (`ldap.uri`, TLS, timeouts, page size); no secrets.
    public var connectionSettings: ConnectionSettings {
        var connection = ConnectionSettings(uri: ldap.uri, startTLS: ldap.startTLS, caFile: ldap.caFile,
                                            verifyCertificate: ldap.tlsVerify, allowCleartext: ldap.allowCleartext,
                                            timeoutSeconds: ldap.timeoutSeconds)
        connection.pageSize = Int32(ldap.pageSize)
        return connection
    }

    public func directorySettings(privileged: Bool = false, warn: (String) -> Void = { _ in }) throws -> DirectorySettings {
        // Kept for the session: the service account re-binds.
        let password = try ldap.bindPasswordFile.map { try readSecret("ldap.bindPasswordFile", $0, privileged: privileged, warn: warn) }
        var settings = DirectorySettings(connection: connectionSettings, baseDN: ldap.baseDN, userBase: ldap.userBase,
                                         userAttribute: ldap.userAttribute, bindDN: ldap.bindDN, bindPassword: password,
                                         groups: ldap.groups, roleSource: ldap.roleSource, nestedGroups: ldap.nestedGroups,
                                         userFilter: ldap.userFilter, userPrincipalSuffix: ldap.userPrincipalSuffix,
                                         teams: ldap.teams)
        settings.kerberos = try kerberosSettings(privileged: privileged, warn: warn)
        return settings
    }

    /// The first line of a password file the config names under `key`. `privileged`: the run
    /// holds the store group's rights, so the file must not be readable by other users nor by a
    /// group other than the one the process runs as (0640 root:miadmin is right); otherwise a
    /// file readable by group or others only gets a warning.
    func readSecret(_ key: String, _ path: String, privileged: Bool, warn: (String) -> Void) throws -> [UInt8] {
        var secret: SecretFile
        do {
            secret = try SecretFile.read(path)
        } catch {
            throw ConfigError(file: self.file, message: "\(key): \(error.description)")
        }
        if privileged, secret.readableByOthers || (secret.readableByGroup && secret.groupID != getegid()) {
            secret.wipe()
            // The group the installed binary runs as is the store's (Scripts/install --group).
            let group = getgrgid(getegid()).map { String(cString: $0.pointee.gr_name) } ?? "\(getegid())"
            throw ConfigError(file: self.file, message: "\(key) '\(path)' is readable by other users "
                              + "(mode \(String(secret.mode, radix: 8))); give it to the \(group) group: "
                              + "chgrp \(group) '\(path)'; chmod 640 '\(path)' (docs/install.md)")
        }
        if !privileged, let warning = secret.loosePermissionsWarning { warn(warning) }
        return secret.bytes
    }
}
