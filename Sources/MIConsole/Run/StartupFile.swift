import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The user's rc file, psql's `~/.psqlrc`: display settings and variables (`\x auto`,
/// `\timing`, `\set`, `set format csv`) read before the first command of every run, at the
/// prompt, for `-c`, `-f` and a pipe alike; `-X` (`--no-rc`) skips it.
///
/// `~/.miadminrc` is read when it exists, else `$XDG_CONFIG_HOME/miadmin/rc` (default
/// `~/.config/miadmin/rc`). It is read with the user's own rights only (the installed binary
/// has given its group up before the console starts; ``open(_:)`` refuses to read otherwise),
/// and only when it is the user's own file that nobody else can write: another user's file, or
/// one the group or others may write, could make the console run what its owner never wrote.
/// Such a file is not read, with a warning.
enum StartupFile {
    /// Where the rc file is looked for, in order; the first that exists is read.
    static func candidates(environment: [String: String]) -> [String] {
        guard let home = environment["HOME"].flatMap({ $0.isEmpty ? nil : $0 }) else { return [] }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.config"
        return ["\(home)/.miadminrc", "\(config)/miadmin/rc"]
    }

    /// The rc file opened for reading, nil when there is none, or why it is not read.
    enum Opened {
        case none
        case file(path: String, source: StreamLineSource)
        case refused(path: String, reason: String)
    }

    static func open(environment: [String: String]) -> Opened {
        for path in candidates(environment: environment) {
            switch open(path) {
            case .none: continue
            case let found: return found
            }
        }
        return .none
    }

    /// Opens `path` if it exists. The checks are made on the opened descriptor, so what is
    /// judged is what is read. A symbolic link is followed (a dotfile kept in a repository of
    /// one's own), and the file it reaches is judged.
    static func open(_ path: String) -> Opened {
        // Never with the rights of a setgid binary: they would read what the user cannot.
        guard getegid() == getgid(), geteuid() == getuid() else {
            return .refused(path: path, reason: "the console still holds other rights than yours")
        }
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .none }
            return .refused(path: path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            return .refused(path: path, reason: String(cString: strerror(code)))
        }
        if let reason = refusal(of: info) {
            close(fd)
            return .refused(path: path, reason: reason)
        }
        // Back to blocking reads for the line reader (O_NONBLOCK only kept a FIFO from hanging the open).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        guard let file = fdopen(fd, "r") else {
            close(fd)
            return .refused(path: path, reason: "cannot be read")
        }
        return .file(path: path, source: StreamLineSource(file: file, ownsFile: true))
    }

    /// Why a file `info` describes is not read as the user's rc file, or nil.
    static func refusal(of info: stat, uid: uid_t = getuid()) -> String? {
        if info.st_mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if info.st_uid != uid { return "it belongs to another user" }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return "others can write it ('chmod go-w' makes it yours alone)"
        }
        return nil
    }

    /// What the rc file may hold: backslash commands and `set` (display settings). Commands
    /// that change or list the store, `\o`, `\watch`, `\gset`, `\q` and the `source` family
    /// belong in scripts: an rc file runs before every run, scripts included.
    static func allows(_ words: [String]) -> Bool {
        guard let first = words.first else { return true }
        if first == "set" { return true }
        guard first.hasPrefix("\\") else { return false }
        return !refusedBackslashCommands.contains(first)
    }

    static let refusedBackslashCommands: Set<String> = ["\\i", "\\ir", "\\o", "\\watch", "\\gset", "\\q"]
}
