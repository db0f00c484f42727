import Foundation
import MIDirectory

/// `ldap.kerberos`: ticket logins and the service account's keytab (docs/configuration.md).
extension AppConfig {
    /// The `ldap.kerberos` object, checked; nil when absent or when it asks for nothing (no
    /// login, no keytab): then nothing about the directory changes.
    static func kerberos(reader: inout ConfigReader, file: String, resolve: (String?) -> String?) throws -> KerberosSettings? {
        let login = try reader.bool("ldap.kerberos.login") ?? false
        let keytab = resolve(try reader.string("ldap.kerberos.serviceKeytab"))
        let principal = try reader.string("ldap.kerberos.servicePrincipal").flatMap { $0.isEmpty ? nil : $0 }
        switch (keytab, principal) {
        case (_?, nil):
            throw ConfigError(file: file, message: "ldap.kerberos.serviceKeytab is set, so ldap.kerberos.servicePrincipal "
                              + "(the principal whose key it holds, such as svc-miadmin@EXAMPLE.COM) is required")
        case (nil, _?):
            throw ConfigError(file: file, message: "ldap.kerberos.servicePrincipal is set, so ldap.kerberos.serviceKeytab is required")
        case (_?, let principal?):
            let parts = KerberosPrincipal(principal)
            guard !parts.name.isEmpty, let realm = parts.realm, !realm.isEmpty,
                  !principal.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw ConfigError(file: file, message: "key ldap.kerberos.servicePrincipal must be a principal name@REALM, "
                                  + "such as svc-miadmin@EXAMPLE.COM, not '\(principal)'")
            }
        case (nil, nil):
            break
        }
        let realms = try reader.stringList("ldap.kerberos.realms") ?? []
        if let bad = realms.first(where: { $0.isEmpty || $0.contains(where: { $0.isWhitespace || $0 == "@" }) }) {
            throw ConfigError(file: file, message: "key ldap.kerberos.realms must list realm names such as "
                              + "EXAMPLE.COM, not '\(bad)'")
        }
        guard login || keytab != nil else { return nil }
        return KerberosSettings(login: login, serviceKeytab: keytab, servicePrincipal: principal, realms: realms)
    }

    /// The service account's ticket from `ldap.kerberos.serviceKeytab`, got once and kept in
    /// memory for the session (the keytab is not read again). `privileged`: the run holds the
    /// store group's rights, so the keytab must not be readable by other users nor by a group
    /// other than the one the process runs as (0640 root:miadmin is right); otherwise a keytab
    /// readable by group or others only gets a warning, as a password file does.
    func kerberosSettings(privileged: Bool, warn: (String) -> Void) throws -> KerberosSettings? {
        guard var kerberos = ldap.kerberos else { return nil }
        guard let keytab = kerberos.serviceKeytab, let principal = kerberos.servicePrincipal else { return kerberos }
        var info = stat()
        guard lstat(keytab, &info) == 0 else {
            throw ConfigError(file: file, message: "ldap.kerberos.serviceKeytab: cannot read '\(keytab)': \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError(file: file, message: "ldap.kerberos.serviceKeytab '\(keytab)' is not a regular file (a symbolic link is refused)")
        }
        let byGroup = info.st_mode & 0o040 != 0, byOthers = info.st_mode & 0o004 != 0
        let mode = String(info.st_mode & 0o7777, radix: 8)
        if privileged, byOthers || (byGroup && info.st_gid != getegid()) {
            throw ConfigError(file: file, message: "ldap.kerberos.serviceKeytab '\(keytab)' is readable by other users "
                              + "(mode \(mode)); give it to the miadmin group: chgrp miadmin '\(keytab)'; "
                              + "chmod 640 '\(keytab)' (docs/install.md)")
        }
        if !privileged, byGroup || byOthers {
            warn("the keytab '\(keytab)' is readable by \(byOthers ? "other users" : "its group") (mode \(mode)); chmod 600 it")
        }
        do {
            kerberos.serviceCache = try Kerberos.serviceTicket(keytab: keytab, principal: principal)
        } catch let error as DirectoryError where error.kind != .unreachable {
            // A keytab without the key, or one that cannot be read, is the config's to fix
            // (exit 1); a KDC that cannot be reached stays unreachable (exit 2).
            throw ConfigError(file: file, message: error.message)
        }
        return kerberos
    }
}
