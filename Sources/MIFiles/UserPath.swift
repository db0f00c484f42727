#if canImport(Glibc)
import Glibc
#endif

/// A path the user typed, read as a shell reads it: `~` alone and a leading `~/` stand for
/// `$HOME`, in every option that names a file or a folder and in `\o` and `source`, so that
/// `report --pdf ~/r.pdf` and `store copy --password-file ~/db.pw` reach the same home.
///
/// `$HOME`, not the account database's home: the user chooses it, as for a shell. A setgid
/// run takes `$HOME` out of its environment until the group is given up (docs/security.md),
/// and console lines are read only after that, so while privileged a `~` stays as typed and
/// names nothing of the user's. `~user` is left as typed (no account lookup), and so is a
/// path when `$HOME` is unset or empty.
public enum UserPath {
    public static func expanded(_ path: String) -> String {
        expanded(path, home: getenv("HOME").map { String(cString: $0) })
    }

    public static func expanded(_ path: String, home: String?) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home, !home.isEmpty else { return path }
        let base = home.count > 1 && home.hasSuffix("/") ? String(home.dropLast()) : home
        if path == "~" { return base }
        let rest = path.dropFirst(2)
        return base == "/" ? "/" + rest : base + "/" + rest
    }
}
