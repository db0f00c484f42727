import Foundation

/// A pager process (`$PAGER`, default `less -FRX`) reading a command's output from a pipe, as
/// psql pages query results longer than the screen.
final class Pager {
    struct Screen {
        let rows: Int
        let columns: Int

        /// The terminal on stdout, or nil when stdout is not a terminal.
        static func ofStdout() -> Screen? {
            guard stdoutIsTerminal else { return nil }
            var size = winsize()
            guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return nil }
            return Screen(rows: Int(size.ws_row), columns: Int(size.ws_col))
        }

        /// Asked once: the console never puts anything else on its stdout, and a script asked
        /// it before every line, a failing system call each time when stdout is a file or a
        /// pipe. The size is asked each time (a window can be resized).
        private static let stdoutIsTerminal = isatty(1) == 1
    }

    /// The write end of the pipe to the pager.
    let input: Int32
    private let pid: pid_t

    /// The pager command: `$PAGER`, else `less -FRX` (quits at once when the output fits, keeps
    /// colours, leaves the text on the screen) when less is installed; nil for no pager
    /// (`PAGER=` set empty, or no less).
    static func command(environment: [String: String]) -> String? {
        if let pager = environment["PAGER"] {
            return pager.trimmingCharacters(in: .whitespaces).isEmpty ? nil : pager
        }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where access("\(dir)/less", X_OK) == 0 { return "less -FRX" }
        return nil
    }

    /// Starts `/bin/sh -c COMMAND` with its stdin on a new pipe; nil when it cannot start.
    init?(command: String) {
        // A person quitting the pager early closes the pipe: writes then fail with EPIPE (which
        // OutputStream drops) instead of killing the console.
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", &actions, nil, argv, environ)
        close(fds[0])
        guard rc == 0 else {
            close(fds[1])
            return nil
        }
        pid = child
        input = fds[1]
    }

    /// Ends the input and waits for the person to leave the pager.
    func finish() {
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
