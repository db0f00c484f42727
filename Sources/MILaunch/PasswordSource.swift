import Foundation
import MICommands

/// Where the user's password comes from: `$MIADMIN_PASSWORD`, `--password-file`, or a no-echo
/// prompt on the terminal — never a flag value (argv is visible to every user via `ps`).
enum PasswordSource {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the password and removes it from the environment so child processes never see it.
    /// A password file gives its first line only; one that others can read gets a `warn`.
    /// The caller zeroes the returned bytes once the bind is done.
    static func read(passwordFile: String?, user: String, interactive: Bool,
                     warn: (String) -> Void) throws -> [UInt8] {
        if let passwordFile {
            do {
                let secret = try SecretFile.read(passwordFile)
                if let warning = secret.loosePermissionsWarning { warn(warning) }
                return secret.bytes
            } catch {
                throw Failure(description: error.description)
            }
        }
        if let value = getenv("MIADMIN_PASSWORD") {
            let bytes = Array(String(cString: value).utf8)
            unsetenv("MIADMIN_PASSWORD")
            return bytes
        }
        guard interactive else { return [] }  // refused as an empty password, before any bind
        return prompt("Password for \(user): ")
    }

    /// Reads a line from /dev/tty with echo off. The terminal is restored when the line is read,
    /// and also when a signal (Ctrl-C, Ctrl-\, a hang-up, kill) ends the process at the prompt:
    /// a handler puts the saved settings back, then the signal does what it would have done.
    private static func prompt(_ text: String) -> [UInt8] {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return [] }
        defer { close(tty) }
        var saved = termios()
        tcgetattr(tty, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        PromptTerminal.arm(tty: tty, saved: saved)
        // Echo off before the prompt shows: what the user types once they see it is never
        // echoed. What was typed before (and echoed) is discarded, not taken as the password.
        tcsetattr(tty, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(tty, TCSAFLUSH, &saved)
            PromptTerminal.disarm()
            _ = write(tty, "\n", 1)
        }
        _ = text.withCString { write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Foundation.read(tty, &byte, 1) == 1, byte != 10, byte != 13 {
            bytes.append(byte)
        }
        byte = 0
        return bytes
    }
}

/// The terminal settings to restore if a signal arrives at the password prompt. Plain globals:
/// a signal handler may touch nothing else (no locks, no allocation).
private enum PromptTerminal {
    nonisolated(unsafe) static var tty: Int32 = -1
    nonisolated(unsafe) static var saved = termios()
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func arm(tty: Int32, saved: termios) {
        self.tty = tty
        self.saved = saved
        for signal in signals { Glibc.signal(signal, restoreAndResignal) }
    }

    static func disarm() {
        for signal in signals { Glibc.signal(signal, SIG_DFL) }
        tty = -1
    }
}

/// Puts the terminal back (echo on), restores the default action and raises the signal again,
/// so the process ends as it would have without the handler.
private func restoreAndResignal(_ signal: Int32) {
    if PromptTerminal.tty >= 0 {
        tcsetattr(PromptTerminal.tty, TCSANOW, &PromptTerminal.saved)
        _ = write(PromptTerminal.tty, "\n", 1)
    }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
