import Foundation

/// The per-user history file: created 0600, appended one accepted line at a time so it survives
/// a crash or a kill, and never given a line that carries a secret or starts with a space.
struct HistoryFile {
    let path: String
    static let limit: Int32 = 2000

    /// `$XDG_STATE_HOME/miadmin/history-<uid>` (default `~/.local/state/...`).
    static func path(for uid: String, environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/state"
        let safe = uid.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" }
        return "\(state)/miadmin/history-\(String(safe))"
    }

    /// Creates the file (and its folder, 0700) if missing and makes sure it is private.
    func prepare() {
        let dir = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)  // an older file with looser permissions is tightened
            close(fd)
        }
    }

    /// Names that mark a value as secret (like redis-cli's AUTH). A line is run but never stored
    /// when it *carries* such a value: an option named like one (`--password x`,
    /// `--bind-password=x`) or an assignment to one (`password=x`, `API_TOKEN=x`). A line that
    /// merely mentions the word (`forms --template 'Gas token meter'`) is recorded, so it can be
    /// recalled with Up.
    static let secretMarkers = ["password", "passwd", "secret", "token", "credential"]

    static func shouldRecord(_ line: String) -> Bool {
        if line.hasPrefix(" ") || line.trimmingCharacters(in: .whitespaces).isEmpty { return false }
        return !carriesSecret(line)
    }

    static func carriesSecret(_ line: String) -> Bool {
        for raw in line.lowercased().split(whereSeparator: \.isWhitespace) {
            let word = raw.drop { $0 == "'" || $0 == "\"" }
            let name: Substring
            if word.hasPrefix("-") {
                name = word.prefix { $0 != "=" }
            } else if let equals = word.firstIndex(of: "=") {
                name = word[..<equals]
            } else {
                continue
            }
            if secretMarkers.contains(where: { name.contains($0) }) { return true }
        }
        return false
    }
}
