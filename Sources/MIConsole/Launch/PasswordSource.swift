import Foundation

/// Where the user's password comes from: `$MIADMIN_PASSWORD`, `--password-file`, or a no-echo
/// prompt on the terminal — never a flag value (argv is visible to every user via `ps`).
enum PasswordSource {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the password and removes it from the environment so child processes never see it.
    static func read(passwordFile: String?, user: String, interactive: Bool) throws -> [UInt8] {
        if let passwordFile {
            guard var bytes = FileManager.default.contents(atPath: passwordFile).map(Array.init) else {
                throw Failure(description: "cannot read the password file '\(passwordFile)'")
            }
            while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
            return bytes
        }
        if let value = getenv("MIADMIN_PASSWORD") {
            let bytes = Array(String(cString: value).utf8)
            unsetenv("MIADMIN_PASSWORD")
            return bytes
        }
        guard interactive else { return [] }  // refused as an empty password, before any bind
        return prompt("Password for \(user): ")
    }

    /// Reads a line from /dev/tty with echo off, restoring the terminal even on Ctrl-C.
    private static func prompt(_ text: String) -> [UInt8] {
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return [] }
        defer { close(tty) }
        _ = text.withCString { write(tty, $0, strlen($0)) }
        var saved = termios()
        tcgetattr(tty, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(tty, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(tty, TCSAFLUSH, &saved)
            _ = write(tty, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Foundation.read(tty, &byte, 1) == 1, byte != 10, byte != 13 {
            bytes.append(byte)
        }
        return bytes
    }
}
