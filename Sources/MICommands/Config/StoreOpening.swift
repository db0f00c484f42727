import Foundation
import Logging
import MIStore

extension AppConfig {
    /// Opens the PostgreSQL store `store.url` names, with the password of `store.passwordFile`
    /// (first line; held only for the connection), or libpq's own conventions when the config
    /// names no file.
    ///
    /// `privileged` (the installed console, before it gives up the group): the password file must
    /// be the group's alone, and libpq ignores what the invoking user controls (`PG*` variables
    /// are scrubbed already; `~/.pgpass`, `~/.postgresql/`, service files are not read; the URI
    /// must name `sslrootcert`).
    public func openPostgresStore(_ target: PostgresTarget, privileged: Bool, clock: any StoreClock,
                                  logger: Logger, warn: (String) -> Void = { _ in }) throws -> FormStore {
        var bytes = try store.passwordFile.map { try readSecret("store.passwordFile", $0, privileged: privileged, warn: warn) }
        defer { if bytes != nil { for i in bytes!.indices { bytes![i] = 0 } } }
        let password = bytes.map { String(decoding: $0, as: UTF8.self) }
        return try FormStore(postgres: target, password: password, conventions: privileged ? .ignored : .honoured,
                             busyTimeout: store.busyTimeoutSeconds, pooler: store.pooler,
                             reconnectSeconds: store.reconnectSeconds, readTarget: store.readTarget,
                             maxLagSeconds: store.maxLagSeconds, clock: clock, logger: logger)
    }
}
