import MIPostgres
import ArgumentParser
import Foundation
import MIDirectory
import MIFiles
import MIStore

/// `store`: what the store is (`store info`) and moving it to another engine or host
/// (`store copy --to`).
public struct StoreCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Show the store's engine, place and size, or copy it into another store.",
        discussion: """
            Examples:
              store info
              store copy --to 'postgresql://miadmin@db.example:5432/mi?sslrootcert=/etc/miadmin/db-ca.pem' --password-file ~/db.pw
              store copy --to /var/backups/miadmin/store-copy.sqlite
              store backup /var/backups/miadmin/store-2026-11-24.sqlite
            """,
        subcommands: [StoreInfoCommand.self, StoreCopyCommand.self, StoreBackupCommand.self],
        defaultSubcommand: StoreInfoCommand.self)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    /// Never run: the parser always picks a subcommand (`info` by default).
    public func run(in session: Session, output: OutputSink) throws {
        try StoreInfoCommand().run(in: session, output: output)
    }
}

/// `store info`: engine, location (never a password), schema version, rows per table.
public struct StoreInfoCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the engine, where the store is, its schema version and row counts.")
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let info = try session.store().administration.info()
        var columns = [Column("engine"), Column("location"), Column("schema")]
        var values: [Value] = [.string(info.engine), .string(info.location), info.schemaVersion.map(Value.string) ?? .null]
        for count in info.counts {
            columns.append(Column(count.table))
            values.append(.int(Int64(count.rows)))
        }
        output.record(columns, values)
    }
}

/// `store copy --to TARGET`: everything into an empty store of either engine, verified.
public struct StoreCopyCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy the whole store into an empty one (SQLite file or PostgreSQL), then verify it.",
        discussion: """
            Copies forms, media bytes, foreman comments, notices, the audit trail and the \
            policy, keeping every id, in one transaction on the target; then counts the rows \
            on both sides and hashes every copied media file again (SHA-256), and prints both. \
            The target is a postgresql:// URI (TLS verified: sslmode=verify-full unless the \
            config's store.allowCleartext is true; no password in the URI) or a SQLite file \
            path (created if missing; a symbolic link there is refused, never followed). A target \
            that holds data is refused unless --append is given and no id is in both stores. \
            Asks for confirmation; a script needs --yes.
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(name: .customLong("to"), help: ArgumentHelp("The target store: a postgresql:// URI or a SQLite file.",
                                                         valueName: "target"), transform: UserPath.expanded)
    public var target: String

    @Option(name: .customLong("password-file"),
            help: ArgumentHelp("A file whose first line is the target PostgreSQL password (else libpq's ~/.pgpass, PGPASSWORD...).",
                               valueName: "file"), completion: .file(), transform: UserPath.expanded)
    public var passwordFile: String?

    @Flag(help: "Add to a target that holds data already (no id may be in both).")
    public var append = false

    @Flag(help: "Do not ask for confirmation (a script needs this).")
    public var yes = false

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        try session.requireEveryCrew(for: "store copy")
        let source = try session.store()
        // Asked before connecting: a script without --yes stops here, whatever the target.
        let shown = (try? PostgresTarget(uri: target, allowCleartext: true)).map { "postgresql://\($0)" } ?? target
        if !targetIsPostgres { try DestinationFolder.require(forFile: target) }
        try session.confirm("Copy the whole store at \(source.administration.path) into \(shown)"
                            + (append ? " (appending)" : "") + "?", yes: yes)
        let report: StoreCopyReport
        if let postgres = try openPostgresTarget(session) {
            report = try source.administration.copy(to: postgres, append: append, actor: session.user.uid)
        } else {
            guard passwordFile == nil else {
                throw CommandError.failed("--password-file is for a postgresql:// target; a SQLite file has no password")
            }
            // SQLite never gets the path the user named (SQLiteFileTarget): a link planted there is refused.
            let file = try SQLiteFileTarget(URL(fileURLWithPath: target).standardizedFileURL.path, existing: true)
            report = try {
                let destination = try CopyDestination.open(.sqlite(path: file.sqlitePath), password: nil, sqlite: .existingOnly,
                                                           busyTimeout: session.config.store.busyTimeoutSeconds,
                                                           clock: session.clock, logger: session.logger)
                return try source.administration.copy(to: destination, append: append, actor: session.user.uid)
            }()
            try file.finish()
        }
        for key in report.policyKept {
            output.warning("the target's own policy value for \(key) was kept")
        }
        output.beginRows([Column("table"), Column("source"), Column("copied"), Column("target")])
        for table in report.tables {
            output.row([.string(table.table), .int(Int64(table.source)), .int(Int64(table.copied)), .int(Int64(table.target))])
        }
        output.row([.string("media sha256"), .int(Int64(report.mediaChecked)), .int(Int64(report.mediaChecked - report.mediaMismatches)),
                    .string("\(report.mediaBytes) bytes verified")])
        output.endRows()
    }

    /// Whether `--to` names a PostgreSQL database rather than a SQLite file.
    private var targetIsPostgres: Bool { target.hasPrefix("postgresql://") || target.hasPrefix("postgres://") }

    /// The PostgreSQL target, or nil when `--to` names a SQLite file.
    private func openPostgresTarget(_ session: Session) throws -> CopyDestination? {
        guard targetIsPostgres else { return nil }
        let location: AppConfig.Store.Location
        var password: String?
        do {
            location = .postgres(try PostgresTarget(uri: target, allowCleartext: session.config.store.allowCleartext))
        } catch {
            throw CommandError.failed("--to: \("\(error)")")
        }
        if let passwordFile {
            do {
                var secret = try SecretFile.read(passwordFile)
                password = String(decoding: secret.bytes, as: UTF8.self)
                secret.wipe()
            } catch {
                throw CommandError.failed("--password-file: \(error.description)")
            }
        }
        return try CopyDestination.open(location, password: password, sqlite: .createIfMissing,
                                        busyTimeout: session.config.store.busyTimeoutSeconds, clock: session.clock,
                                        logger: session.logger)
    }
}

/// `store backup FILE`: a consistent copy of the SQLite store into a new file, while others work.
public struct StoreBackupCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Write a consistent copy of the SQLite store into a new file.",
        discussion: """
            Uses SQLite's online backup API through the console's own connection: other consoles \
            keep working, and the store's -wal and -shm files stay as they are (the sqlite3 \
            shell's .backup, as the last connection to close, removed them and stopped every \
            console). FILE must not exist; a symbolic link there is refused. The copy is an \
            ordinary store file (miadmin's store.administration.path can name it to restore). A PostgreSQL \
            store is backed up with pg_dump (docs/install.md).

            Examples:
              store backup /var/backups/miadmin/store-2026-11-24.sqlite
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The new file.", valueName: "file"), completion: .file(), transform: UserPath.expanded)
    public var file: String

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        try session.requireEveryCrew(for: "store backup")
        let store = try session.store()
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        try DestinationFolder.require(forFile: path)
        let bytes = try store.administration.backup(to: path)
        output.record([Column("store"), Column("backup"), Column("bytes")],
                      [.string(store.administration.path), .string(path), .int(bytes)])
    }
}
