import Foundation
import Logging
import MIStore

/// The one place a store is opened, on either engine: the console's own store (the launch
/// layer decides when, and with which rights) and the target of `store copy --to`.
public enum StoreOpening {
    /// Opens the store at `location`.
    ///
    /// - Parameters:
    ///   - password: the PostgreSQL password (held only for the connection), or nil for libpq's
    ///     own conventions; a SQLite file has none.
    ///   - privileged: the installed console, before it gives up the group: libpq ignores what
    ///     the invoking user controls (`~/.pgpass`, `~/.postgresql/`, service files; `PG*`
    ///     variables are scrubbed already).
    ///   - sqlite: what to do when the SQLite file is missing.
    ///   - settings: the console's own `store` settings (pooler, reconnect window, read standby);
    ///     nil (a `store copy` target): the defaults.
    static func open(_ location: AppConfig.Store.Location, password: String?, privileged: Bool,
                            sqlite opening: FormStore.Opening, busyTimeout: TimeInterval, clock: any StoreClock,
                            logger: Logger, settings: AppConfig.Store? = nil) throws -> FormStore {
        switch location {
        case .sqlite(let path):
            try FormStore(path: path, busyTimeout: busyTimeout, clock: clock, logger: logger, opening: opening)
        case .postgres(let target):
            try FormStore(postgres: target, password: password, conventions: privileged ? .ignored : .honoured,
                          busyTimeout: busyTimeout, pooler: settings?.pooler, reconnectSeconds: settings?.reconnectSeconds ?? 30,
                          readTarget: settings?.readTarget, maxLagSeconds: settings?.maxLagSeconds ?? 30,
                          clock: clock, logger: logger)
        }
    }
}

extension AppConfig {
    /// Opens the store this config names, with the password of `store.passwordFile` for
    /// PostgreSQL (first line; wiped once connected), or libpq's own conventions when the config
    /// names no file. `privileged`: the password file must be the group's alone (see
    /// ``StoreOpening/open(_:password:privileged:sqlite:busyTimeout:clock:logger:)``).
    public func openStore(privileged: Bool, sqlite opening: FormStore.Opening = .createIfMissing,
                          clock: any StoreClock, logger: Logger, warn: (String) -> Void = { _ in }) throws -> FormStore {
        var bytes: [UInt8]?
        if case .postgres = store.location, let file = store.passwordFile {
            bytes = try readSecret("store.passwordFile", file, privileged: privileged, warn: warn)
        }
        defer { if bytes != nil { for i in bytes!.indices { bytes![i] = 0 } } }
        let opened = try StoreOpening.open(store.location, password: bytes.map { String(decoding: $0, as: UTF8.self) },
                                           privileged: privileged, sqlite: opening, busyTimeout: store.busyTimeoutSeconds,
                                           clock: clock, logger: logger, settings: store)
        if let audit { opened.setAuditRelay(SystemLogRelay.forConfig(audit)) }
        opened.setSnapshotLimit(seconds: TimeInterval(limits.snapshotSeconds))
        return opened
    }
}
