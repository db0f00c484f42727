import Foundation

/// A Unix account the privilege tests create (useradd) and act as (runuser), and the directory
/// user it logs in as.
public enum Account: String, CaseIterable, Sendable {
    /// Logs in as `jdoe` (technician).
    case technician
    /// Logs in as `mkhan` (foreman).
    case foreman

    public var directoryUser: String { self == .technician ? "jdoe" : "mkhan" }
}

/// miadmin installed by Scripts/install into a temporary prefix (`--binary` the test build),
/// with a group of its own, a system config pointing at the test directory, and real Unix
/// accounts to run it as. Needs root. Everything is removed when the test process exits.
public final class Installation: @unchecked Sendable {
    public let prefix: String
    public let group: String
    public var binary: String { prefix + "/bin/miadmin" }
    public var stateDir: String { prefix + "/var/lib/miadmin" }
    public var storePath: String { stateDir + "/store.sqlite" }
    public var configDir: String { prefix + "/etc/miadmin" }
    public var configPath: String { configDir + "/config.json" }
    public var bindPasswordPath: String { configDir + "/bind.pw" }
    public private(set) var gid: gid_t = 0
    let accounts: [Account: String]

    /// The installation most tests share: installed, configured, store created.
    public static let shared: Result<Installation, Error> = Result {
        let installation = try Installation(tag: "a", groupOf: nil)
        for step in [{ try installation.runInstall([]) }, {
            try installation.writeConfig()
            return try installation.runInstall([])
        }] {
            let result = try step()
            guard result.status == 0 else { throw ShellError(description: "Scripts/install: \(result.stderr)") }
        }
        return installation
    }

    /// A new prefix. `groupOf`: share that installation's group and accounts; nil: make them.
    public init(tag: String, groupOf other: Installation?) throws {
        let id = UUID().uuidString.prefix(6).lowercased()
        prefix = "/tmp/miadmin-prefix-\(tag)-\(id)"
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        if let other {
            group = other.group
            accounts = other.accounts
            gid = other.gid
            // The prefix is this installation's own; the accounts and group are the other's.
            Installation.cleanup.withLock { $0.append(([], "", prefix)) }
            return
        }
        group = "mitest\(id)"
        accounts = [.technician: "mit\(id)t", .foreman: "mit\(id)f"]
        Installation.cleanup.withLock { $0.append((Array(accounts.values), group, prefix)) }
        for name in accounts.values {
            try Self.root("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", name])
        }
        atexit { Installation.removeAll() }
    }

    /// A second installation sharing `other`'s group and accounts: installed, configured, store
    /// created (Scripts/install, the config, Scripts/install again). Remove it with ``remove()``.
    public static func configured(tag: String, groupOf other: Installation, fixture: Fixture = .shared,
                                  edit: (inout [String: Any]) -> Void = { _ in }) throws -> Installation {
        let installation = try Installation(tag: tag, groupOf: other)
        _ = try installation.runInstall([])
        try installation.writeConfig(fixture: fixture, edit: edit)
        _ = try installation.runInstall([])
        return installation
    }

    /// Removes this prefix (the accounts and group stay for the others).
    public func remove() { try? FileManager.default.removeItem(atPath: prefix) }

    /// Runs Scripts/install for this prefix and group with the test binary.
    @discardableResult
    public func runInstall(_ extra: [String]) throws -> ProcessResult {
        let result = try Shell.run(Paths.repoRoot + "/Scripts/install",
                                   ["--prefix", prefix, "--group", group, "--binary", Paths.binary] + extra)
        if let entry = getgrnam(group) { gid = entry.pointee.gr_gid }
        return result
    }

    /// The fixture's config with the store in the state folder and the service password and CA
    /// copied beside it: config 0640 root:group, password 0640 root:group, CA 0644.
    public func writeConfig(fixture: Fixture = .shared, edit: (inout [String: Any]) -> Void = { _ in }) throws {
        var object = try configObject(fixture: fixture)
        edit(&object)
        try FileManager.default.copyItem(atPath: fixture.values["BIND_PW_FILE"] ?? fixture.directory + "/bind.pw",
                                         toPath: bindPasswordPath)
        Glibc.chown(bindPasswordPath, 0, gid)
        chmod(bindPasswordPath, 0o640)
        try FileManager.default.copyItem(atPath: fixture.directory + "/tls/ca.pem", toPath: configDir + "/ca.pem")
        chmod(configDir + "/ca.pem", 0o644)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted])
            .write(to: URL(fileURLWithPath: configPath))
        Glibc.chown(configPath, 0, gid)
        chmod(configPath, 0o640)
    }

    /// The system config as a JSON object (what writeConfig writes).
    public func configObject(fixture: Fixture = .shared) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture.configPath))
        var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        setKey(&object, "store.path", storePath)
        setKey(&object, "ldap.bindPasswordFile", bindPasswordPath)
        setKey(&object, "ldap.caFile", configDir + "/ca.pem")
        return object
    }

    /// Writes a JSON object to `path`, owned by `owner`.
    public func write(_ object: [String: Any], to path: String, owner: Account) throws {
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        try chown(path, to: owner)
    }

    public func home(_ account: Account) -> String { "/home/" + accounts[account]! }

    public func uid(_ account: Account) throws -> uid_t {
        guard let entry = getpwnam(accounts[account]!) else { throw ShellError(description: "no account \(account)") }
        return entry.pointee.pw_uid
    }

    /// Gives `path` (and everything below it) to the account and its own group.
    public func chown(_ path: String, to account: Account) throws {
        let name = accounts[account]!
        try Self.root("/bin/chown", ["-R", "\(name):\(name)", path])
    }

    /// A copy of the sample Documents tree in the account's home, owned by the account.
    public func sampleTree(for account: Account) throws -> String {
        let tree = home(account) + "/Documents-\(UUID().uuidString.prefix(6))"
        try FileManager.default.copyItem(atPath: Paths.sampleTree, toPath: tree)
        try chown(tree, to: account)
        return tree
    }

    /// The account's password file for the directory user: 0600, owned by the account. (Never
    /// in argv or in an environment passed on a command line.)
    func passwordFile(_ account: Account) throws -> String {
        let path = home(account) + "/.miadmin-password"
        if !FileManager.default.fileExists(atPath: path) {
            try (Fixture.shared.password(account.directoryUser) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            try chown(path, to: account)
            chmod(path, 0o600)
        }
        return path
    }

    /// Runs the installed miadmin as `account`, logged in as its directory user; `umask`: under
    /// that umask (`sh -c 'umask 077; exec miadmin …'`), else the default.
    public func run(_ account: Account, _ arguments: [String], environment: [String: String] = [:],
                    umask: String? = nil) throws -> ProcessResult {
        let argv = [binary, "--user", account.directoryUser, "--password-file", try passwordFile(account)] + arguments
        return try runAs(account, umask.map { ["/bin/sh", "-c", "umask \($0) && exec \"$@\"", "sh"] + argv } ?? argv,
                         environment: environment)
    }

    /// Starts any program as `account` in the background (clean environment, as ``runAs``);
    /// reap it with waitpid.
    public func startAs(_ account: Account, _ argv: [String]) throws -> pid_t {
        let command = cleanCommand(account, argv, environment: [:])
        return try Shell.start(command[0], Array(command.dropFirst()), environment: [:])
    }

    /// Starts the installed miadmin as `account` in the background; reap it with waitpid.
    /// `stderr`: a file (written as the account) for its standard error; else /dev/null.
    public func start(_ account: Account, _ arguments: [String], stderr: String? = nil) throws -> pid_t {
        var argv = [binary, "--user", account.directoryUser, "--password-file", try passwordFile(account)] + arguments
        if let stderr { argv = ["/bin/sh", "-c", "exec \"$@\" 2>'\(stderr)'", "sh"] + argv }
        let command = cleanCommand(account, argv, environment: [:])
        return try Shell.start(command[0], Array(command.dropFirst()), environment: [:])
    }

    /// Runs any program as `account`: `runuser`, then `env -i` so only PATH, HOME, LANG and
    /// `environment` reach it, in the account's home folder.
    public func runAs(_ account: Account, _ argv: [String], environment: [String: String] = [:],
                      password: String? = nil) throws -> ProcessResult {
        let command = cleanCommand(account, argv, environment: environment)
        return try Shell.run(command[0], Array(command.dropFirst()))
    }

    private func cleanCommand(_ account: Account, _ argv: [String], environment: [String: String]) -> [String] {
        let name = accounts[account]!
        let variables = ["PATH=/usr/bin:/bin", "HOME=\(home(account))", "LANG=C.UTF-8"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return ["/usr/sbin/runuser", "-u", name, "--", "/usr/bin/env", "-i", "-C", home(account)] + variables + argv
    }

    public struct FileInfo {
        public let mode: mode_t, uid: uid_t, gid: gid_t, inode: ino_t
    }

    public func stat(_ path: String) throws -> FileInfo {
        var info = Glibc.stat()
        guard lstat(path, &info) == 0 else { throw ShellError(description: "cannot stat \(path)") }
        return FileInfo(mode: info.st_mode & 0o7777, uid: info.st_uid, gid: info.st_gid, inode: info.st_ino)
    }

    @discardableResult
    static func root(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        let result = try Shell.run(program, arguments)
        guard result.status == 0 else {
            throw ShellError(description: "\(program) \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result
    }

    private static let cleanup = LockedList()

    /// Removes the accounts (with their homes), the group and the prefix.
    static func removeAll() {
        for (accounts, group, prefix) in cleanup.withLock({ $0 }) {
            for name in accounts { _ = try? Shell.run("/usr/sbin/userdel", ["-r", name]) }
            if !group.isEmpty { _ = try? Shell.run("/usr/sbin/groupdel", [group]) }
            try? FileManager.default.removeItem(atPath: prefix)
        }
        cleanup.withLock { $0.removeAll() }
    }
}

/// What to remove at exit, shared by the test threads.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [([String], String, String)] = []
    func withLock<T>(_ body: (inout [([String], String, String)]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&items)
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The value at a dotted key path (`ldap.groups.foreman`).
    public func value(at path: String) -> Any? {
        var node: Any? = self
        for part in path.split(separator: ".") { node = (node as? [String: Any])?[String(part)] }
        return node
    }
}

extension Installation {
    /// Runs the installed miadmin as `account` under `strace -f -u` (as root, so the setgid bit
    /// is honoured in the traced process), writing every `open`, `openat`, `execve` and change
    /// of ids to `output`.
    public func traced(_ account: Account, _ arguments: [String], output: String) throws -> ProcessResult {
        let name = accounts[account]!
        let argv = [binary, "--user", account.directoryUser, "--password-file", try passwordFile(account)] + arguments
        return try Shell.run("/usr/bin/strace", ["-f", "-qq", "-s", "256", "-o", output,
                                                 "-e", "trace=execve,open,openat,setresgid,setresuid,setgid,setuid",
                                                 "-u", name, "--", "/usr/bin/env", "-i", "-C", home(account),
                                                 "PATH=/usr/bin:/bin", "HOME=\(home(account))", "LANG=C.UTF-8"] + argv)
    }
}
