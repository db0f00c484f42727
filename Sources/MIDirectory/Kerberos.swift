import CKerberosLazy
import Glibc
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
        if case .refused(let why) = userCache.withLock({ $0 }) { return .missing(why) }
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
            func refused(_ kind: DirectoryError.Kind, _ why: String) -> DirectoryError {
                DirectoryError(kind, "cannot get a Kerberos ticket for \(principal) from the keytab \(keytab) "
                               + "(ldap.kerberos.serviceKeytab): \(why)")
            }
            if let problem = KeytabAccess.problem(keytab) { throw refused(.serviceBindFailed, problem) }
            var error = [CChar](repeating: 0, count: 512)
            switch miadmin_kerberos_keytab_ticket("FILE:" + keytab, principal, cache, &error, error.count) {
            case 0:
                break
            case Int32(MIADMIN_KEYTAB_KDC_UNREACHABLE.rawValue):
                throw refused(.unreachable, "no Kerberos KDC could be reached (\(Kerberos.text(error)))")
            default:
                throw refused(.serviceBindFailed, Kerberos.text(error))
            }
            caches[key] = cache
            return cache
        }
    }

    private static let serviceCaches = Mutex<[String: String]>([:])

    /// Where the user's ticket is read from: the default cache, a cache file held open
    /// (``pinOwnCache()``), or none, and why.
    private enum UserCache: Sendable {
        case systemDefault
        case pinned(String)
        case refused(String)
    }

    private static let userCache = Mutex(UserCache.systemDefault)

    /// For the installed (setgid) binary, once it has given its group up: the user's ticket is
    /// read from the default cache krb5.conf names (`FILE:/tmp/krb5cc_%{uid}`), and only if that
    /// cache is the user's own. A cache file must be a regular file (not a symbolic link to
    /// someone else's) belonging to the user; it is opened once and then always used through
    /// that descriptor (`FILE:/proc/self/fd/N`), so it cannot be swapped after the check. KCM
    /// and KEYRING caches are the user's by construction (the daemon and the kernel check the
    /// caller); other kinds are refused. A refused cache makes ``ticket()`` answer `.missing`.
    public static func pinOwnCache() {
        var name = [CChar](repeating: 0, count: 1024)
        var error = [CChar](repeating: 0, count: 512)
        let decided: UserCache
        if miadmin_kerberos_default_cache(&name, name.count, &error, error.count) != 0 {
            decided = .refused(text(error))
        } else {
            decided = ownCache(text(name))
        }
        userCache.withLock { $0 = decided }
    }

    private static func ownCache(_ name: String) -> UserCache {
        let kind = name.contains(":") ? String(name[..<name.firstIndex(of: ":")!]).uppercased() : "FILE"
        switch kind {
        case "KCM", "KEYRING":
            return .systemDefault
        case "FILE":
            break
        default:
            return .refused("the installed miadmin reads FILE, KCM and KEYRING credential caches only, not \(name)")
        }
        let path = name.uppercased().hasPrefix("FILE:") ? String(name.dropFirst(5)) : name
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .refused("there is no credential cache at \(path)")
            case ELOOP: return .refused("the credential cache \(path) is a symbolic link; only a cache file of your own is used")
            default: return .refused("cannot open the credential cache \(path): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() else {
            close(fd)
            return .refused("the credential cache \(path) is not a file of yours; only a cache file of your own is used")
        }
        // Kept open for the process: the cache is read (and service tickets are added to it)
        // through this descriptor only.
        return .pinned("FILE:/proc/self/fd/\(fd)")
    }

    /// The realm whose principals are the directory's users when `ldap.kerberos.realms` names
    /// none: krb5.conf's `default_realm`.
    public static func defaultRealm() throws -> String {
        var realm = [CChar](repeating: 0, count: 256)
        var error = [CChar](repeating: 0, count: 512)
        guard miadmin_kerberos_default_realm(&realm, realm.count, &error, error.count) == 0 else {
            throw DirectoryError(.configuration, "cannot tell the directory's Kerberos realm: \(text(error)) "
                                 + "(set default_realm in krb5.conf, or list the realms in ldap.kerberos.realms)")
        }
        return text(realm)
    }

    /// Why a GSSAPI bind to `host` failed, when the reason is that no KDC could be reached:
    /// asks for the service ticket again (with the cache the bind used) and reads the
    /// Kerberos status, which the bind's SASL answer carries only as text.
    static func kdcUnreachable(host: String) -> String? {
        var error = [CChar](repeating: 0, count: 512)
        return miadmin_kerberos_kdc_unreachable("ldap@" + host, &error, error.count) == 1 ? text(error) : nil
    }

    /// The text a C helper wrote into `buffer` (up to its NUL).
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes `cache` (nil: the user's default one) the cache the calling thread's next GSSAPI
    /// bind takes its ticket from (Cyrus SASL's GSSAPI plug-in asks GSSAPI for its defaults).
    static func use(cache: String?) throws {
        var error = [CChar](repeating: 0, count: 512)
        var chosen = cache
        if chosen == nil, case .pinned(let name) = userCache.withLock({ $0 }) { chosen = name }
        guard miadmin_kerberos_use_cache(chosen, &error, error.count) == 0 else {
            throw DirectoryError(.configuration, "cannot use Kerberos: \(Kerberos.text(error))")
        }
    }
}
