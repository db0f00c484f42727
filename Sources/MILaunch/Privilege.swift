import MIPostgres
import CProcess
import Foundation
import Synchronization

/// The installed binary is setgid to the store's group (docs/security.md): it opens the system
/// config, the service password file and the store with that group's rights, then drops the
/// group for good, before anything the invoking user names (`-f`, `source`, `import`, `export`,
/// `--ics`, `--password-file`, the history file) is touched.
///
/// Everything here is about the process, not about miadmin's data: it never prints (the caller
/// reports ``Refusal``s) and holds no state besides what the kernel holds.
enum Privilege {
    /// Why a privileged run refuses to start. Printed as `miadmin: <description>`, exit 1.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// True when the process holds rights its user does not: setgid (or setuid) in effect.
    static var isPrivileged: Bool {
        getegid() != getgid() || geteuid() != getuid()
    }

    /// Environment variables a privileged run refuses (exit 1) because they would change the
    /// directory, the roles, the store, the policy or the clock the store believes.
    /// Prefixes end with `_`-free stems matched at the start of the name (`LDAP` covers
    /// `LDAPURI`, `LDAPCONF`, `LDAPTLS_CACERT`, every variable libldap reads).
    static let refusedVariables = ["MIADMIN_CONFIG", "MIADMIN_NOW"]
    static let refusedPrefixes = ["LDAP"]

    /// The only variables a privileged run keeps; everything else is removed before any library
    /// reads it (sudo's env_reset: a list of what is safe, not of what is dangerous). Kerberos'
    /// and SASL's (`KRB5CCNAME`, `KRB5_CONFIG`, `KRB5_KTNAME`, `SASL_PATH`) are not kept: a
    /// ticket login reads the system's krb5.conf and the user's own default cache only.
    static let keptVariables: Set<String> = [
        "HOME", "USER", "LOGNAME", "TERM", "COLUMNS", "LINES", "LANG", "LANGUAGE", "PATH",
        "MIADMIN_USER", "MIADMIN_PASSWORD", "MIADMIN_LOG_LEVEL", "XDG_STATE_HOME",
        // Where the rc file is (read after the drop, StartupFile) and whether to colour errors.
        "XDG_CONFIG_HOME", "NO_COLOR",
        // The pager runs as the user, after the drop, and inherits no descriptor (all close-on-exec).
        "PAGER",
    ]

    /// Why a privileged run must not start with this `--config` and this environment, or nil.
    /// The user's own config, and variables that choose the directory, roles, store, policy or
    /// clock, are the user's choice; a privileged run trusts only the system config.
    static func refusal(configPath: String?, environment: [String: String]) -> String? {
        if configPath != nil {
            return "--config is not allowed for the installed miadmin: it reads only the system config "
                + "(docs/security.md). Run a build of your own to use a config of your own."
        }
        let refused = refused(in: environment)
        if !refused.isEmpty {
            return "the installed miadmin reads only the system config; unset \(refused.joined(separator: ", ")) "
                + "(docs/security.md)"
        }
        return nil
    }

    /// Names of variables in `environment` that a privileged run refuses, sorted.
    static func refused(in environment: [String: String]) -> [String] {
        environment.keys.filter { name in
            refusedVariables.contains(name) || refusedPrefixes.contains { name.hasPrefix($0) }
        }.sorted()
    }

    /// The environment a privileged run keeps (`LC_*` locale variables included).
    static func scrubbed(_ environment: [String: String]) -> [String: String] {
        environment.filter { keptVariables.contains($0.key) || $0.key.hasPrefix("LC_") }
    }

    /// First thing a privileged run does: no core file, not dumpable (so the user cannot attach
    /// a debugger or read /proc/PID/fd and use the store's open descriptors after the drop), and
    /// files it creates while privileged (the store's own) are not readable by others: umask
    /// 007 until ``dropForGood()`` gives the user's own umask back.
    static func harden() {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
        mi_set_not_dumpable()
        userUmask.withLock { $0 = umask(0o007) }
    }

    /// The umask the user started miadmin with (saved by ``harden()``).
    private static let userUmask = Mutex<mode_t?>(nil)

    /// Replaces the process environment with `scrubbed(...)`, and keeps `HOME` out of it until
    /// ``dropForGood()``: libraries that run while privileged (libpq, OpenSSL) take files from
    /// `$HOME` (`~/.postgresql/root.crl`, `~/.pgpass`), and the user chooses `$HOME`. Without it
    /// libpq asks the account database, and every file it would look for there is pinned
    /// anyway (PostgresConnection).
    static func scrubEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        let keep = scrubbed(environment)
        for name in environment.keys where keep[name] == nil {
            unsetenv(name)
        }
        userHome.withLock { $0 = environment["HOME"] }
        unsetenv("HOME")
    }

    /// The user's `$HOME`, put back by ``dropForGood()``.
    private static let userHome = Mutex<String?>(nil)

    /// Gives up the group (and user) the binary was installed with, for good: real, effective
    /// and saved ids all become the invoking user's, so nothing can take them back.
    /// Throws when the kernel refuses or the ids did not change (never continue half-privileged).
    static func dropForGood() throws {
        let gid = getgid(), uid = getuid()
        guard mi_drop_for_good(gid, uid) == 0 else {
            throw Refusal(description: "cannot give up the group privilege: \(String(cString: strerror(errno)))")
        }
        guard mi_ids_are(gid, uid) == 1, !isPrivileged else {
            throw Refusal(description: "cannot give up the group privilege (ids did not change)")
        }
        // Everything from now on is written for the user (exports, reports, media, calendars,
        // history, store copies) and the pager or editor inherits it: the user's umask, not the
        // group's 007 (a user with umask 077 expects 0600 files, not 0660).
        if let mask = userUmask.withLock({ $0 }) { umask(mask) }
        if let home = userHome.withLock({ $0 }) { setenv("HOME", home, 1) }
    }

    /// The store's files as a privileged run needs them: the file, its `-wal` and its `-shm`
    /// all present, regular, and belonging to root. The console keeps them open after the drop,
    /// and the kernel lets a file's owner reopen it through `/proc/self/fd/N` (for instance with
    /// `source`), so a store file belonging to a user would be readable by that user. Root's
    /// `--init-store` makes them (persistent WAL keeps them). Returns why not, or nil.
    static func storeFilesProblem(_ path: String) -> String? {
        // The folder: root's and closed to others (2770 root:miadmin), so nobody else can
        // swap the files while they are checked and opened.
        let folder = (path as NSString).deletingLastPathComponent
        var folderInfo = stat()
        if lstat(folder.isEmpty ? "." : folder, &folderInfo) == 0,
           folderInfo.st_mode & S_IFMT != S_IFDIR || folderInfo.st_uid != 0 || folderInfo.st_mode & 0o007 != 0 {
            return "the store's folder \(folder) must be a folder of root's that other users cannot enter "
                + "(install -d -o root -g miadmin -m 2770; docs/install.md)"
        }
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard lstat(file, &info) == 0 else {
                if errno == ENOENT {
                    return file == path
                        ? "there is no store at \(path) (store.path in the system config); check the path, or create it on purpose: Scripts/install, or miadmin --init-store as root"
                        : "\(file) is missing; run miadmin --init-store as root to recreate it (docs/install.md)"
                }
                return "cannot inspect \(file): \(String(cString: strerror(errno)))"
            }
            guard info.st_mode & S_IFMT == S_IFREG else { return "\(file) is not a regular file" }
            guard info.st_uid == 0 else {
                return "\(file) belongs to uid \(info.st_uid), not root; run miadmin --init-store as root to repair it (docs/install.md)"
            }
        }
        return nil
    }

    /// For root's `--init-store`: gives the store's three files to root (a store from an older
    /// install may have a `-wal` or `-shm` a console made, owned by its user). Group and mode stay.
    static func giveStoreFilesToRoot(_ path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid != 0 else { continue }
            guard lchown(file, 0, info.st_gid) == 0 else {
                throw Refusal(description: "cannot give \(file) to root: \(String(cString: strerror(errno)))")
            }
        }
    }
}
