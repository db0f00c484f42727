import Glibc

/// Whether the service account's keytab can be read by this process, and if not, what to change:
/// Kerberos itself answers an unreadable keytab with "No credentials cache found" (it falls back
/// to a credential cache), which names the wrong thing.
enum KeytabAccess {
    /// Nil when `keytab` opens for reading; else why not, naming its owner, group and mode and
    /// the group this process reads with (the installed miadmin's own group).
    static func problem(_ keytab: String) -> String? {
        let fd = open(keytab, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd >= 0 {
            close(fd)
            return nil
        }
        let reason = errno
        var info = stat()
        guard reason == EACCES, stat(keytab, &info) == 0 else {
            return "cannot open the keytab: \(String(cString: strerror(reason)))"
        }
        let mode = String(info.st_mode & 0o7777, radix: 8)
        let group = groupName(getegid())
        return "the keytab is not readable by this process (owner \(userName(info.st_uid)), group "
            + "\(groupName(info.st_gid)), mode \(mode)); miadmin reads it with the group \(group): "
            + "chgrp \(group) '\(keytab)'; chmod 640 '\(keytab)'"
    }

    private static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }

    private static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }
}
