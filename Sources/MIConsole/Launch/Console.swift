import Foundation
import Logging
import MICommands
import MIDirectory

/// Starts a console session: config, login, then commands from `-c`, `-f`, a pipe or the prompt.
public enum Console {
    public static func launch(_ options: LaunchOptions) -> ExitStatus {
        let out = OutputStream(fd: 1)
        let err = OutputStream(fd: 2)
        defer { out.flush(); err.flush() }
        func fail(_ error: Error) -> ExitStatus {
            out.flush()
            err.write("miadmin: " + TerminalText.escape(ErrorReport.message(for: error), keepNewlines: true) + "\n")
            return ErrorReport.status(for: error)
        }

        let environment = ProcessInfo.processInfo.environment
        let logger = makeLogger(environment)
        let config: AppConfig
        do {
            config = try AppConfig.load(path: AppConfig.resolvePath(explicit: options.configPath, environment: environment))
        } catch {
            return fail(error)
        }
        let stdinIsTerminal = isatty(0) == 1

        guard let uid = options.user ?? environment["MIADMIN_USER"], !uid.isEmpty else {
            err.write("miadmin: no user: pass --user UID or set MIADMIN_USER\n")
            return .failure
        }
        let session: Session
        do {
            let password = try PasswordSource.read(passwordFile: options.passwordFile, user: uid,
                                                    interactive: stdinIsTerminal)
            let directory = Directory(settings: try config.directorySettings(), logger: logger)
            let user = try directory.authenticate(uid: uid, password: password)
            session = Session(config: config, user: user, directory: directory, logger: logger)
        } catch let error as PasswordSource.Failure {
            err.write("miadmin: \(error.description)\n")
            return .failure
        } catch {
            return fail(error)
        }

        let sink = options.format.makeSink(stdout: out, stderr: err)
        let runner = CommandRunner(session: session, sink: sink)
        let loop = RunLoop(runner: runner, err: err, stopOnError: !options.continueOnError)

        let source: LineSource
        let name: String
        if !options.commands.isEmpty {
            source = CommandListSource(options.commands)
            name = "-c"
        } else if let scriptFile = options.scriptFile {
            guard let file = StreamLineSource(path: scriptFile) else {
                err.write("miadmin: cannot read script '\(scriptFile)'\n")
                return .failure
            }
            source = file
            name = scriptFile
        } else if stdinIsTerminal {
            err.write(banner(session) + "\n")
            err.flush()
            source = prompt(for: session, environment: environment)
            name = "<prompt>"
        } else {
            // fdopen rather than the `stdin` global, which strict concurrency rejects.
            source = StreamLineSource(file: fdopen(0, "r"), ownsFile: false)
            name = "<stdin>"
        }
        return status(of: loop.run(source, name: name), commandLine: name == "-c")
    }

    /// One line at login: who, with which roles, on which store and directory.
    static func banner(_ session: Session) -> String {
        let user = session.user
        let roles = user.roles.map(\.rawValue).joined(separator: ", ")
        return "miadmin: \(user.uid) (\(user.name); \(roles)) · store \(session.config.store.path) · "
            + "directory \(session.config.ldap.uri) · 'help' lists commands, Ctrl-D quits"
    }

    /// The readline prompt `uid@role> ` with history and completion for this user.
    static func prompt(for session: Session, environment: [String: String]) -> ReadlineSource {
        let role = session.user.roles.first?.rawValue ?? "?"
        var sources = CompletionEngine.Sources()
        var cachedUserIDs: [String]?
        sources.userIDs = {
            if let cachedUserIDs { return cachedUserIDs }
            var uids: [String] = []
            try? session.directory.forEachUser(matching: nil, role: nil) { uids.append($0.uid) }
            cachedUserIDs = uids
            return uids
        }
        let engine = CompletionEngine(catalog: .shared, sources: sources)
        let history = HistoryFile(path: HistoryFile.path(for: session.user.uid, environment: environment))
        return ReadlineSource(prompt: "\(TerminalText.escape(session.user.uid, keepNewlines: false))@\(role)> ",
                              history: history, completion: engine)
    }

    /// `-c` exits with the failed command's own status; a script that stopped exits 3
    /// (2 when what stopped it was an unreachable directory or store).
    static func status(of outcome: RunLoop.Outcome, commandLine: Bool) -> ExitStatus {
        switch outcome {
        case .quit, .finished(failures: 0): return .success
        case .finished: return .scriptStopped
        case .stopped(let status):
            if status == .unreachable || commandLine { return status }
            return .scriptStopped
        }
    }

    /// Logs go to stderr; `MIADMIN_LOG_LEVEL` (trace … critical) sets the level, default warning.
    static func makeLogger(_ environment: [String: String]) -> Logger {
        var logger = Logger(label: "miadmin") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = environment["MIADMIN_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }
}
