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
    /// Runs a program with a clean environment (PATH, a private HOME, plus `environment`),
    /// stdin from `input` (or /dev/null, so it is never a terminal), outputs captured in
    /// temp files (no pipe deadlock on big outputs). `deadline` kills a hung process: it bounds
    /// the test run, it is not a timing assertion.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:],
                           input: String? = nil, deadline: TimeInterval = 120) throws -> ProcessResult {
        let dir = try TempDir.make()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outPath = dir + "/out", errPath = dir + "/err", inPath = dir + "/in"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        FileManager.default.createFile(atPath: inPath, contents: Data((input ?? "").utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": dir, "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = input == nil ? FileHandle.nullDevice : try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        try process.run()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { process.waitUntilExit(); done.signal() }
        if done.wait(timeout: .now() + deadline) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            throw ShellError(description: "\(program) \(arguments) did not finish within \(deadline) s")
        }
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
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
                           extra: [String] = [], input: String? = nil) throws -> ProcessResult {
        let fixture = Fixture.shared
        var args = ["--config", config ?? fixture.configPath, "--user", uid]
        if let format { args += ["--format", format] }
        args += extra
        for command in commands { args += ["-c", command] }
        return try run(args, password: fixture.password(uid), input: input)
    }
}
