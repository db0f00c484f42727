import Foundation
import MIFiles
import MIText

/// The per-user history file: created 0600, appended one accepted line at a time so it survives
/// a crash or a kill, and never given a line that mentions a secret or starts with a space.
/// Read and written by miadmin itself through the folder's descriptor (readline's own file
/// functions open paths and write a predictable temporary file).
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

    /// The history's lines (the last ``limit``), after making the file private (0600) and, when it
    /// has grown past twice the limit, rewriting it with the last ``limit`` lines (a ``NewFile``
    /// renamed over it). The folder (0700) is made if missing. Every open is relative to the
    /// folder's descriptor with `O_NOFOLLOW`: a link at the history's name is never followed.
    func load() -> [String] {
        let name = (path as NSString).lastPathComponent
        guard let folder = Self.folder(of: path) else { return [] }
        guard let data = try? folder.readFile(name, limit: 64 << 20) else { return [] }
        let fd = openat(folder.fd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 {
            fchmod(fd, 0o600)  // an older file with looser permissions is tightened
            close(fd)
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        let kept = Array(lines.suffix(Int(Self.limit)))
        if lines.count > 2 * Int(Self.limit), let file = try? NewFile(in: folder, for: name, mode: 0o600) {
            if (try? file.write(Data(kept.map { $0 + "\n" }.joined().utf8))) != nil {
                try? file.commit(as: name, existing: .replaceFile)
            }
        }
        return kept
    }

    /// Appends one line: created 0600 if missing, opened through the folder's descriptor with
    /// `O_NOFOLLOW | O_APPEND`, so a crash or a kill loses nothing already accepted.
    func append(_ line: String) {
        guard let folder = Self.folder(of: path) else { return }
        let fd = openat(folder.fd, (path as NSString).lastPathComponent,
                        O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The history's folder, made (0700) if missing, opened.
    private static func folder(of path: String) -> Folder? {
        let dir = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        return try? Folder(path: dir)
    }

    /// Words that mark a line as carrying a secret (like redis-cli's AUTH): a line is run but
    /// never stored when any of its words contains one, in any case (`--bind-password=x`,
    /// `API_TOKEN=x`, `comment 1 my password is hunter2`, `Kennwort: …`): docs/security.md
    /// promises "mentioning", and a secret typed into free text is as secret as one after an
    /// option. The sites speak German too: the plurals (`Passwörter`, `Kennwoerter` as typed
    /// without umlauts) and the compounds (`Kennwortliste`, `Passwort-Reset`) are caught by
    /// their stems.
    static let secretMarkers = ["password", "passwd", "passphrase", "secret", "token", "credential",
                                "passwort", "passwört", "passwoert", "kennwort", "kennwört", "kennwoert", "geheimnis"]

    /// Short words that mark a secret only as a word of their own (`PIN 1234`, `pw: x`), not
    /// inside another (`spinning`, `pwm`).
    static let secretWords: Set<String> = ["pin", "pw", "pwd"]

    static func shouldRecord(_ line: String) -> Bool {
        if line.hasPrefix(" ") || line.trimmingCharacters(in: .whitespaces).isEmpty { return false }
        return !mentionsSecret(line)
    }

    /// Whether the line, as a reader sees it, holds a secret word: the words are looked for in
    /// its confusable skeleton (``Skeleton``: fullwidth `ＰＡＳＳＷＯＲＤ`, Cyrillic `pаssword`
    /// and invisible code points inside a word such as `Pass\u{34F}word` or a soft hyphen all
    /// read as `password`), in any case.
    static func mentionsSecret(_ line: String) -> Bool {
        // Format characters are dropped too (a few, such as the Arabic number signs, are
        // not default-ignorable but still invisible inside a word).
        let visible = Skeleton.of(String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.properties.generalCategory != .format })))
        let lowered = visible.lowercased()
        if secretMarkers.contains(where: { lowered.contains($0) }) { return true }
        let words = lowered.split { !$0.isLetter }
        if words.contains(where: { secretWords.contains(String($0)) }) { return true }
        return hasURIWithPassword(visible)
    }

    /// `postgresql://mi:hunter2@db/mi`, `ldaps://cn=x:pw@host`: a URI whose user part carries a
    /// password (a colon before the `@` of its authority).
    static func hasURIWithPassword(_ line: String) -> Bool {
        var rest = Substring(line)
        while let scheme = rest.range(of: "://") {
            let authority = rest[scheme.upperBound...].prefix { !"/?#".contains($0) && !$0.isWhitespace && $0 != "'" && $0 != "\"" }
            if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") { return true }
            rest = rest[scheme.upperBound...]
        }
        return false
    }
}
