import Foundation

/// A real terminal for the prompt tests: tmux on its own socket runs the built binary;
/// keys go in with `send-keys`, the screen comes back with `capture-pane`.
///
/// `waitFor` polls the screen until text appears, bounded by a deadline: it waits for the
/// program, it never asserts how fast the program was.
public final class TerminalSession {
    private let socket: String
    public let home: String

    /// Starts `miadmin --config CONFIG --user UID --password-file …` in a 120x40 terminal, with
    /// HOME set to `home` (where the history file goes).
    /// `environment` adds variables (`PAGER=…`) to the clean environment. `askPassword`: no
    /// password file, so miadmin asks on the terminal. `afterwards`: a shell command run in the
    /// same terminal once miadmin has exited (before `[exited N]` shows miadmin's status).
    /// `fixture`: the directory whose users' passwords are used. `arguments` go after the login flags.
    /// `wrapper`: a command miadmin runs under (`strace -o FILE`). `size`: the terminal's columns
    /// and rows.
    public init(uid: String, config: String? = nil, home: String? = nil, environment: [String: String] = [:],
                askPassword: Bool = false, afterwards: String = ":", fixture: Fixture = .shared,
                arguments: [String] = [], wrapper: [String] = [], size: (columns: Int, rows: Int) = (120, 40)) throws {
        socket = "miadmin-test-\(UUID().uuidString.prefix(8))"
        self.home = try home ?? TempDir.make()
        let passwordFile = self.home + "/.pw"
        try fixture.password(uid).write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        var words: [String] = ["env", "-i", "PATH=/usr/bin:/bin", "HOME=\(self.home)", "TERM=xterm", "LANG=C.UTF-8"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { words.append("\(key)=\(value)") }
        words += wrapper + [Paths.binary, "--config", config ?? fixture.configPath, "--user", uid]
        words += askPassword ? [] : ["--password-file", passwordFile]
        words += arguments
        let command = words
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        // `; sleep` keeps the pane readable after the program exits. The trap keeps the shell
        // itself alive when Ctrl-C ends the program (a shell whose child dies of SIGINT quits too).
        try tmux(["new-session", "-d", "-x", String(size.columns), "-y", String(size.rows),
                  "trap : INT; " + command + "; s=$?; " + afterwards + "; echo '[exited '$s']'; sleep 30"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    @discardableResult
    private func tmux(_ args: [String]) throws -> ProcessResult {
        let result = try Shell.run("/usr/bin/tmux", ["-L", socket] + args, environment: ["TERM": "xterm"], deadline: 20)
        guard result.status == 0 else { throw ShellError(description: "tmux \(args.first ?? ""): \(result.stderr)") }
        return result
    }

    /// Types literal text (no Enter).
    public func type(_ text: String) throws { try tmux(["send-keys", "-t", "0", "-l", text]) }
    /// Types a line and presses Enter.
    public func enter(_ line: String) throws {
        try type(line)
        try press("Enter")
    }
    /// Sends named keys: "Enter", "Tab", "C-c", "C-d", "Up".
    public func press(_ keys: String...) throws {
        for key in keys {
            try tmux(["send-keys", "-t", "0", key])
            usleep(150_000)  // readline needs a moment between keys (platform notes)
        }
    }

    /// The visible screen. `-N` keeps trailing spaces: the prompt ends in one.
    public func screen() throws -> String { try tmux(["capture-pane", "-p", "-N", "-t", "0"]).stdout }

    /// The visible screen with its colours and attributes as escape sequences (`capture-pane -e`).
    public func screenWithEscapes() throws -> String { try tmux(["capture-pane", "-p", "-e", "-N", "-t", "0"]).stdout }

    /// The pane's whole history: what scrolled off the top, then the visible screen.
    public func scrollback() throws -> String { try tmux(["capture-pane", "-p", "-N", "-S", "-", "-t", "0"]).stdout }

    /// Waits until the screen contains `text`; returns the screen. Throws with the screen
    /// after `deadline` seconds.
    /// `times`, with `inScrollback`: waits until the pane's history holds `text` that many
    /// times. Output taller than the screen scrolls a line off before a poll can see it, so
    /// such a line is looked for in the history, never on the visible screen.
    @discardableResult
    public func waitFor(_ text: String, times: Int = 1, inScrollback: Bool = false,
                        deadline: TimeInterval = 20) throws -> String {
        let end = Date().addingTimeInterval(deadline)
        var last = ""
        while Date() < end {
            last = try inScrollback ? scrollback() : screen()
            if last.components(separatedBy: text).count - 1 >= times { return last }
            usleep(100_000)
        }
        let sessions = (try? Shell.run("/usr/bin/tmux", ["-L", socket, "list-sessions"], environment: ["TERM": "xterm"]))
        throw ShellError(description: "terminal never showed \"\(text)\"; sessions: \(sessions?.stdout ?? "") \(sessions?.stderr ?? ""); screen:\n\(last)")
    }

    /// Waits until the current input line is `expected` (completion answers when the program
    /// gets to it: the first Tab of a session reads every command's definition) and returns the
    /// line last seen, so a mismatch shows what was there. Bounded by `deadline`; never timed.
    public func currentLine(prompt: String, becomes expected: String, deadline: TimeInterval = 10) throws -> String {
        let end = Date().addingTimeInterval(deadline)
        var line = try currentLine(prompt: prompt)
        while line != expected && Date() < end {
            usleep(100_000)
            line = try currentLine(prompt: prompt)
        }
        return line
    }

    /// The current input line: the text between the prompt and the cursor (tmux reports the
    /// cursor, so a space that completion appended is told apart from the pane's padding).
    public func currentLine(prompt: String) throws -> String {
        let position = try tmux(["display-message", "-p", "-t", "0", "#{cursor_x} #{cursor_y}"]).stdout
            .split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let lines = try screen().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard position.count == 2, position[1] < lines.count else { return "" }
        let line = Array(lines[position[1]])
        let upToCursor = String(line.prefix(position[0]))
        guard upToCursor.hasPrefix(prompt) else { return "" }
        return String(upToCursor.dropFirst(prompt.count))
    }
}
