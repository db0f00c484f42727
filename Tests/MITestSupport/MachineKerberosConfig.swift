import Foundation

/// The machine's `/etc/krb5.conf`, which the setgid binary's Kerberos library reads instead of
/// `KRB5_CONFIG`: tests of the installed binary with a KDC fixture put the fixture's file there.
public enum MachineKerberosConfig {
    /// Runs `body` with `file`'s content as /etc/krb5.conf and puts the machine's file back, byte
    /// for byte. One body at a time, across suites and test processes (an exclusive lock on a
    /// file in /tmp): two suites swapping the file at once would restore each other's.
    public static func with<T>(_ file: String, _ body: () throws -> T) throws -> T {
        let lock = open("/tmp/miadmin-test-etc-krb5.conf.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw ShellError(description: "cannot open the /etc/krb5.conf lock: \(String(cString: strerror(errno)))") }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 && errno == EINTR {}
        let path = "/etc/krb5.conf"
        let saved = FileManager.default.contents(atPath: path)
        defer {
            try? FileManager.default.removeItem(atPath: path)
            if let saved { FileManager.default.createFile(atPath: path, contents: saved) }
        }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: file, toPath: path)
        chmod(path, 0o644)
        return try body()
    }
}
