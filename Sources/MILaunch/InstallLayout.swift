import Foundation

/// Where an installed miadmin finds its system config, from where its binary is (so an install
/// into a temporary prefix, as the tests do, is self-contained).
///
/// `<prefix>/bin/miadmin` reads `<prefix>/etc/miadmin/config.json`, except for the usual
/// prefixes `/usr/local` and `/usr`, whose config is `/etc/miadmin/config.json` (FHS). A binary
/// that is not in a `bin` folder (a developer's `.build/debug/miadmin`) also uses `/etc`.
enum InstallLayout {
    /// The running binary, as the kernel knows it (symbolic links resolved; not argv[0], which
    /// the caller chooses).
    static var executable: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    }

    static func systemConfigPath(executable: String?) -> String {
        guard let executable else { return "/etc/miadmin/config.json" }
        let bin = (executable as NSString).deletingLastPathComponent
        guard (bin as NSString).lastPathComponent == "bin" else { return "/etc/miadmin/config.json" }
        let prefix = (bin as NSString).deletingLastPathComponent
        if prefix == "/usr" || prefix == "/usr/local" || prefix == "/" || prefix.isEmpty {
            return "/etc/miadmin/config.json"
        }
        return prefix + "/etc/miadmin/config.json"
    }

    /// For a privileged run: `path` and every folder above it must belong to root and be
    /// writable by nobody else (a sticky folder such as /tmp excepted: others cannot replace
    /// root's entries in it), like sshd's StrictModes. Otherwise a user who could edit the file,
    /// or swap a folder on the way, would choose the directory, the roles and the store.
    /// Returns why not, or nil.
    static func untrustedReason(_ path: String) -> String? {
        var current = path
        while true {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                return "cannot inspect '\(current)': \(String(cString: strerror(errno)))"
            }
            let type = info.st_mode & S_IFMT
            if type == S_IFLNK { return "'\(current)' is a symbolic link" }
            if info.st_uid != 0 { return "'\(current)' does not belong to root" }
            let sticky = info.st_mode & S_ISVTX != 0 && type == S_IFDIR
            if info.st_mode & 0o022 != 0 && !sticky {
                return "'\(current)' is writable by a group or other users"
            }
            if current == "/" { return nil }
            current = (current as NSString).deletingLastPathComponent
            if current.isEmpty { current = "/" }
        }
    }
}
