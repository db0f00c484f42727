import Foundation

public struct ShellError: Error, CustomStringConvertible {
    public let description: String
}

/// What a finished process left: exit status and its whole stdout and stderr.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// stdout split into lines at LF or CRLF (without the trailing empty one).
    /// ("\r\n" is one Character in Swift, hence `isNewline` rather than a separator.)
    public var lines: [String] {
        let parts = stdout.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        return parts.last == "" ? Array(parts.dropLast()) : parts
    }
}

public enum Shell {
    /// The write end of `fifo`, opened once a process has opened it for reading (a sign that
    /// the process got that far), or -1 after `seconds`: a process that died must fail the
    /// test, not hang it.
    public static func openWriter(of fifo: String, within seconds: TimeInterval) -> Int32 {
        let end = Date().addingTimeInterval(seconds)
        var fd: Int32 = -1
        while fd < 0 && Date() < end {
            fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd < 0 { usleep(50_000) }
        }
        return fd
    }

    /// Starts a program in the background (outputs to /dev/null) and returns its pid, for tests
    /// that kill a process at an arbitrary moment. Reap it with `waitpid`.
    public static func start(_ program: String, _ arguments: [String], environment: [String: String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        return try spawn(program, arguments, environment: env, actions: &actions)
    }

    /// posix_spawn with an empty signal mask and default handlers: the test runner's blocked
    /// signals would otherwise pass to tmux, slapd and the console (a SIGTERM sent to it would
    /// wait, blocked, and be lost at its exit).
    private static func spawn(_ program: String, _ arguments: [String], environment: [String: String],
                              actions: inout posix_spawn_file_actions_t) throws -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw ShellError(description: "cannot start \(program): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Runs a program with a clean environment (PATH, a private HOME, plus `environment`),
    /// stdin from `input` (or /dev/null, so it is never a terminal), outputs captured in
    /// temp files (no pipe deadlock on big outputs). `deadline` kills a hung process: it bounds
    /// the test run, it is not a timing assertion.
    ///
    /// posix_spawn + waitpid rather than Foundation's `Process`: on Linux, `Process` learns of
    /// a child's exit through a descriptor that daemons started by the child (tmux's server,
    /// slapd) inherit, so `waitUntilExit` never returns for `tmux new-session -d`.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:],
                           input: String? = nil, deadline: TimeInterval = 120) throws -> ProcessResult {
        let dir = try TempDir.make()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outPath = dir + "/out", errPath = dir + "/err", inPath = dir + "/in"
        FileManager.default.createFile(atPath: inPath, contents: Data((input ?? "").utf8))
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": dir, "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input == nil ? "/dev/null" : inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let pid = try spawn(program, arguments, environment: env, actions: &actions)

        var status: Int32 = 0
        let end = Date().addingTimeInterval(deadline)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > end {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw ShellError(description: "\(program) \(arguments) did not finish within \(deadline) s")
            }
            usleep(5_000)
        }
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return ProcessResult(status: exitStatus, stdout: stdout, stderr: stderr)
    }
}

/// Runs the built `miadmin` binary.
public enum MIAdmin {
    public static func run(_ arguments: [String], password: String? = nil, environment: [String: String] = [:],
                           input: String? = nil, deadline: TimeInterval = 120) throws -> ProcessResult {
        var env = environment
        if let password { env["MIADMIN_PASSWORD"] = password }
        return try Shell.run(Paths.binary, arguments, environment: env, input: input, deadline: deadline)
    }

    /// Logs in as `uid` (fixture password) with `config` and runs `-c` commands.
    public static func as_(_ uid: String, config: String? = nil, format: String? = nil, _ commands: [String],
                           extra: [String] = [], input: String? = nil, fixture: Fixture = .shared) throws -> ProcessResult {
        var args = ["--config", config ?? fixture.configPath, "--user", uid]
        if let format { args += ["--format", format] }
        args += extra
        for command in commands { args += ["-c", command] }
        return try run(args, password: fixture.password(uid), input: input)
    }
}
