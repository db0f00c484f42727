import Foundation

/// Who holds the store while another process waits for it: what the busy error names.
///
/// - SQLite: the process holding SQLite's write lock, found in Linux's `/proc/locks` (a WAL
///   store's writer holds a POSIX lock on byte 120 of the `-shm` file, `WALINDEX_LOCK_OFFSET` +
///   `WAL_WRITE_LOCK` in SQLite's `wal.c`), with its Unix user, command line and start time from
///   `/proc/PID`. Any program is found (miadmin, the sqlite3 shell, a backup tool); what a
///   console at the prompt is running is not (its command line is `miadmin`), nor when it took
///   the lock (the time is when the process started).
/// - PostgreSQL: the other session holding a lock on the store's tables that can stop a change
///   and not itself waiting: a table lock stronger than a row change's (`LOCK TABLE` from psql)
///   first, else a transaction that has written or locked rows, preferring one
///   `pg_blocking_pids` shows blocking another waiter, then the oldest (``PostgresLockHolder``). It
///   carries the miadmin user and command its console puts in `application_name` for each write
///   transaction (``FormStore/setActivity(_:)``), or for another client its role and
///   `application_name`, and when its transaction began. A row lock is not tied to a session in
///   any view the store account may read after its wait ended, so a row holder is the likely
///   one, and the message says so.
public struct StoreHolder: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case process, transaction }
    public let kind: Kind
    public let pid: Int32
    /// The Unix user (SQLite) or the miadmin user and command (PostgreSQL, from
    /// `application_name`), or the database role.
    public let who: String
    /// The process's command line (SQLite), or the client's `application_name` when it is not
    /// a console's (PostgreSQL).
    public let command: String?
    /// When the process started (SQLite) or the transaction began (PostgreSQL).
    public let since: Date?

    /// "process 1234 of alice (sqlite3 store.sqlite), running since …".
    public var sentence: String {
        let since = since.map { $0.iso8601 }
        switch kind {
        case .process:
            return "process \(pid) of \(who)" + (command.map { " (\($0))" } ?? "")
                + (since.map { ", running since \($0)" } ?? "")
        case .transaction:
            return "probably \(who)" + (command.map { " in \($0)" } ?? "") + ", server process \(pid)"
                + (since.map { ", in a transaction since \($0)" } ?? "")
        }
    }
}

/// Finds who holds the lock a PostgreSQL change waited for (``StoreHolder``, PostgreSQL). The
/// statement's own wait ended with its lock timeout, so the lock it waited for is gone from
/// `pg_locks`; the holder is the other session of this database that holds a lock on the
/// store's tables (the schema of `forms`) able to stop a change and is not itself waiting for a
/// lock: a table lock stronger than a row change's (`LOCK TABLE`, `ALTER TABLE`, `VACUUM FULL`,
/// whoever runs it) first, else a transaction that changed or locked rows. Among those, one
/// that `pg_blocking_pids` names as blocking a session that still waits (another console
/// behind the same holder) comes first, then the oldest transaction. Another console that only
/// waits is never named.
enum PostgresLockHolder {
    static let query: StoreSQL = """
        WITH store AS (SELECT relnamespace AS ns FROM pg_class WHERE oid = 'forms'::regclass),
        holding AS (
          SELECT l.pid, max(CASE WHEN l.mode IN ('RowExclusiveLock', 'RowShareLock') THEN 0 ELSE 1 END) AS strong
          FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN store ON c.relnamespace = store.ns
          WHERE l.granted AND l.mode <> 'AccessShareLock'
          GROUP BY l.pid),
        blocking AS (SELECT DISTINCT unnest(pg_blocking_pids(pid)) AS pid FROM pg_stat_activity
                     WHERE wait_event_type = 'Lock')
        SELECT a.pid, a.usename::text AS role, a.application_name,
               extract(epoch FROM coalesce(a.xact_start, a.backend_start))::float8 AS since
        FROM pg_stat_activity a JOIN holding h ON h.pid = a.pid
        WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
          AND a.wait_event_type IS DISTINCT FROM 'Lock'
          AND (h.strong = 1 OR a.backend_xid IS NOT NULL)
        ORDER BY a.pid IN (SELECT pid FROM blocking) DESC, h.strong DESC, a.xact_start
        LIMIT 1
        """

    /// The holder in a row of ``query``: a console by the user and command in its
    /// `application_name` (`miadmin: mkhan expire`), another client by its role and
    /// `application_name`.
    static func holder(_ row: StoreRow) -> StoreHolder {
        let application: String = row["application_name"] ?? ""
        var who = "role " + (row["role"] as String? ?? "?")
        var command: String? = application.isEmpty ? nil : application
        if application.hasPrefix("miadmin: ") {
            let words = application.dropFirst("miadmin: ".count).split(separator: " ", maxSplits: 1)
            who = String(words.first ?? "?") + (words.count > 1 ? " running '\(words[1])'" : "")
            command = nil
        }
        return StoreHolder(kind: .transaction, pid: Int32(row["pid"] as Int), who: who, command: command,
                           since: (row["since"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

/// Finds the holder of an SQLite store's write lock (``StoreHolder``, SQLite).
enum SQLiteLockHolder {
    /// The byte of the `-shm` file SQLite's writer locks (see ``StoreHolder``).
    static let writeLockByte: UInt64 = 120

    static func find(storePath: String, locks: String? = nil) -> StoreHolder? {
        var info = stat()
        guard stat(storePath + "-shm", &info) == 0 else { return nil }
        guard let table = locks ?? (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) else { return nil }
        guard let pid = holder(in: table, device: info.st_dev, inode: UInt64(info.st_ino), byte: writeLockByte),
              pid != getpid() else { return nil }
        return process(pid)
    }

    /// The process holding a write lock over `byte` of the file (`device`, `inode`) in the text
    /// of `/proc/locks`: `1: POSIX  ADVISORY  WRITE 22628 fe:00:16221693 120 120` (waiters,
    /// marked `->`, are skipped).
    static func holder(in table: String, device: dev_t, inode: UInt64, byte: UInt64) -> Int32? {
        let major = UInt64((UInt64(device) >> 8) & 0xfff) | ((UInt64(device) >> 32) & ~0xfff)
        let minor = UInt64(UInt64(device) & 0xff) | ((UInt64(device) >> 12) & ~0xff)
        for line in table.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 8, fields[1] == "POSIX", fields[3] == "WRITE", let pid = Int32(fields[4]) else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                  UInt64(file[2]) == inode, let start = UInt64(fields[6]) else { continue }
            let end = fields[7] == "EOF" ? UInt64.max : UInt64(fields[7]) ?? 0
            if start <= byte && byte <= end && pid > 0 { return pid }
        }
        return nil
    }

    /// What `/proc/PID` tells of a process: its real user, command line and start.
    static func process(_ pid: Int32) -> StoreHolder {
        let base = "/proc/\(pid)"
        var who = "an unknown user"
        if let status = try? String(contentsOfFile: base + "/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
           let uid = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap({ UInt32($0) }) {
            who = userName(uid_t(uid)) ?? "uid \(uid)"
        }
        var command: String?
        if let data = FileManager.default.contents(atPath: base + "/cmdline"), !data.isEmpty {
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            command = printable(words.joined(separator: " "), limit: 160)
        }
        return StoreHolder(kind: .process, pid: pid, who: who, command: command, since: startTime(pid))
    }

    private static func userName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return nil
        }
        return String(cString: name)
    }

    /// Field 22 of `/proc/PID/stat` (clock ticks after boot) plus `btime` of `/proc/stat`.
    private static func startTime(_ pid: Int32) -> Date? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")"),
              let boot = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?
                .split(separator: "\n").first(where: { $0.hasPrefix("btime ") })
                .flatMap({ Double($0.dropFirst(6)) }) else { return nil }
        // After the command name in parentheses: field 3 (state) onwards; starttime is field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Date(timeIntervalSince1970: boot + ticks / max(perSecond, 1))
    }

    /// `text` without control characters, cut to `limit` characters.
    static func printable(_ text: String, limit: Int) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control ? "?" : $0
        }))
        return cleaned.count > limit ? String(cleaned.prefix(limit - 1)) + "…" : cleaned
    }
}
