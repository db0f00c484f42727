import CKerberosLazy
import CLDAP
import Glibc

/// The URIs of `ldap.uri` as libldap reads them: the option may hold a list
/// (`"ldaps://a:636 ldap://b:389"`) that libldap fails over through, so every entry must be safe,
/// not just the first.
public struct LDAPURIList: Sendable, Equatable {
    public let uris: [String]
    public let schemes: [String]

    /// Parses `list` with libldap's own parser (`ldap_initialize` reads it, `LDAP_OPT_URI` gives it
    /// back one URI per space, then `ldap_url_parse` names each scheme). Nil when libldap refuses it.
    public init?(_ list: String) {
        LDAPLibrary.start()
        var ld: OpaquePointer?
        guard ldap_initialize(&ld, list) == LDAP_SUCCESS, let ld else { return nil }
        defer { ldap_unbind_ext_s(ld, nil, nil) }
        var raw: UnsafeMutablePointer<CChar>?
        guard ldap_get_option(ld, LDAP_OPT_URI, &raw) == LDAP_OPT_SUCCESS, let raw else { return nil }
        let canonical = String(cString: raw)
        ldap_memfree(raw)
        var uris: [String] = [], schemes: [String] = []
        for uri in canonical.split(separator: " ").map(String.init) {
            var description: UnsafeMutablePointer<LDAPURLDesc>?
            guard ldap_url_parse(uri, &description) == LDAP_URL_SUCCESS, let description else { return nil }
            schemes.append(String(cString: description.pointee.lud_scheme).lowercased())
            ldap_free_urldesc(description)
            uris.append(uri)
        }
        guard !uris.isEmpty else { return nil }
        self.uris = uris
        self.schemes = schemes
    }

    /// The URIs a bind on them would cross in cleartext: `ldap://` and `ldapi://` without
    /// StartTLS (every other scheme is `ldaps://`, TLS from the first byte).
    public func cleartext(startTLS: Bool) -> [String] {
        zip(uris, schemes).filter { $0.1 != "ldaps" && !startTLS }.map(\.0)
    }

    /// True when some URI needs StartTLS (not `ldaps://`).
    public var needsStartTLS: Bool { schemes.contains { $0 != "ldaps" } }
}

/// libldap's process-wide start. Every path to a libldap handle goes through
/// ``LDAPURIList/init(_:)``, which calls ``start()`` first.
enum LDAPLibrary {
    private static let started: Bool = {
        // SASL without plug-ins (CLDAP/shim.h): password logins are simple binds; a Kerberos
        // bind adds the GSSAPI plug-in when it needs it (addGSSAPI). A failure here
        // only means libldap starts SASL itself later, as it would without this.
        miadmin_sasl_start_without_plugins() == SASL_OK
    }()

    static func start() { _ = started }

    /// libldap reads its defaults once per process, at its first use: the system's ldap.conf,
    /// then the user's `$HOME/ldaprc`, `$HOME/.ldaprc` and `./ldaprc` (a setgid process too).
    /// Made here with no `HOME` in the environment (the caller's duty) and `/` as the working
    /// folder for the moment: the system's file is read (its `TLS_CACERT` is the system CAs),
    /// no file of the user's, and every bind afterwards uses these defaults.
    static let defaultsRead: Void = {
        start()
        let here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard here >= 0, chdir("/") == 0 else {
            if here >= 0 { close(here) }
            return
        }
        defer {
            _ = fchdir(here)
            close(here)
        }
        var version: Int32 = 0
        _ = ldap_get_option(nil, LDAP_OPT_PROTOCOL_VERSION, &version)
    }()

    /// Cyrus SASL's GSSAPI plug-in, added on the first Kerberos bind (CLDAP/shim.h): the
    /// password logins never load it, nor the Kerberos libraries behind it.
    private static let gssapi: Result<Void, DirectoryError> = {
        start()
        var error = [CChar](repeating: 0, count: 512)
        guard miadmin_sasl_add_gssapi(&error, error.count) == SASL_OK else {
            return .failure(DirectoryError(.configuration, "cannot use Kerberos (ldap.kerberos): \(Kerberos.text(error))"))
        }
        return .success(())
    }()

    static func addGSSAPI() throws { try gssapi.get() }
}
