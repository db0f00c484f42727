import CKerberosLazy
import Synchronization

/// The Kerberos credentials the directory binds with: the user's own ticket (their default
/// credential cache) and the service account's ticket got from its keytab. MIT Kerberos'
/// GSSAPI library is opened on first use here (CKerberosLazy), never for a password login.
public enum Kerberos {
    /// What the user's credential cache holds.
    public enum Ticket: Sendable, Equatable {
        case valid(KerberosPrincipal)
        /// No cache, an empty one or an unreadable one: GSSAPI's words.
        case missing(String)
        case expired
    }

    /// The ticket in the user's default credential cache (KRB5CCNAME for an unprivileged run,
    /// else krb5.conf's `default_ccache_name`; the installed binary's Kerberos library ignores
    /// the environment, docs/security.md).
    public static func ticket() -> Ticket {
        var principal = [CChar](repeating: 0, count: 1024)
        var error = [CChar](repeating: 0, count: 512)
        var lifetime: UInt32 = 0
        // A thread that bound as the service account has its memory cache selected; a failure
        // here shows again in the look-up below, which says what is wrong.
        try? use(cache: nil)
        let state = miadmin_kerberos_ticket(nil, &principal, principal.count, &lifetime, &error, error.count)
        switch state {
        case Int32(MIADMIN_TICKET_VALID.rawValue):
            return .valid(KerberosPrincipal(Kerberos.text(principal)))
        case Int32(MIADMIN_TICKET_EXPIRED.rawValue):
            return .expired
        default:
            return .missing(Kerberos.text(error))
        }
    }

    /// The in-memory credential cache holding a ticket for `principal`, got with the key in
    /// `keytab` once per process (the early connection's thread and the login ask alike).
    public static func serviceTicket(keytab: String, principal: String) throws -> String {
        try serviceCaches.withLock { caches in
            let key = keytab + "\u{0}" + principal
            if let cache = caches[key] { return cache }
            let cache = "MEMORY:miadmin-service-\(caches.count)"
            var error = [CChar](repeating: 0, count: 512)
            guard miadmin_kerberos_keytab_ticket("FILE:" + keytab, principal, cache, &error, error.count) == 0 else {
                throw DirectoryError(.serviceBindFailed,
                    "cannot get a Kerberos ticket for \(principal) from the keytab \(keytab) " +
                    "(ldap.kerberos.serviceKeytab): \(Kerberos.text(error))")
            }
            caches[key] = cache
            return cache
        }
    }

    private static let serviceCaches = Mutex<[String: String]>([:])

    /// The text a C helper wrote into `buffer` (up to its NUL).
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes `cache` (nil: the user's default one) the cache the calling thread's next GSSAPI
    /// bind takes its ticket from (Cyrus SASL's GSSAPI plug-in asks GSSAPI for its defaults).
    static func use(cache: String?) throws {
        var error = [CChar](repeating: 0, count: 512)
        guard miadmin_kerberos_use_cache(cache, &error, error.count) == 0 else {
            throw DirectoryError(.configuration, "cannot use Kerberos: \(Kerberos.text(error))")
        }
    }
}
