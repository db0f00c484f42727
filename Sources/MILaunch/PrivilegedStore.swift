import Foundation
import Logging
import MICommands
import MIStore

/// The store opened before a run gives up the group (the installed setgid binary), or by
/// `--init-store`.
enum PrivilegedStore {
    /// Opens the store before a privileged run gives up the group: an existing store only (a
    /// mistyped store.path must not start an empty one), whose three files belong to root,
    /// unless root's `--init-store` asked to create it; created 0660 so the group, and only the
    /// group, shares it. Every connection is opened now, because after the drop the process may
    /// not open the file again.
    ///
    /// A PostgreSQL store creates nothing on disk here: `--init-store` only applies the schema,
    /// which opening does anyway; the connection outlives the group drop. It is root's on both
    /// engines all the same.
    ///
    /// Returns nil for a PostgreSQL store that logs in with the user's Kerberos ticket
    /// (``opensAfterTheDrop(_:privileged:)``): it is the caller's to open once the group is
    /// given up.
    static func open(_ config: AppConfig, privileged: Bool, create: Bool, logger: Logger,
                     clock: any StoreClock) throws -> FormStore? {
        // Root's on both engines: creating or migrating the shared store is the installer's act,
        // not something any local account with the group's rights decides.
        if privileged && create && getuid() != 0 {
            throw Privilege.Refusal(description: "--init-store of the installed miadmin is for root (Scripts/install does it)")
        }
        if try opensAfterTheDrop(config, privileged: privileged) { return nil }
        guard case .sqlite(let path) = config.store.location else {
            return try config.openStore(privileged: privileged, clock: clock, logger: logger)
        }
        // A -wal or -shm deleted by another program (sqlite3's .backup) comes back from root's spares.
        if privileged && !create { StoreCompanionFiles.repairVanished(path) }
        if privileged && !create, let problem = Privilege.storeFilesProblem(path) {
            throw Privilege.Refusal(description: problem)
        }
        let store = try config.openStore(privileged: privileged, sqlite: create ? .createIfMissingWithMode(0o660) : .existingOnly,
                                         clock: clock, logger: logger)
        if privileged && create {
            // The writer made -wal and -shm; with persistent WAL they stay, root's.
            try Privilege.giveStoreFilesToRoot(path)
            try StoreCompanionFiles.makeSpares(path)
            if let problem = Privilege.storeFilesProblem(path) { throw Privilege.Refusal(description: problem) }
        }
        if privileged { try store.openAllConnections() }
        return store
    }

    /// Whether a privileged run leaves the store to be opened after the group is given up: a
    /// PostgreSQL store whose URL logs in with the user's Kerberos ticket. libpq's GSSAPI reads
    /// the user's credential cache (and writes the service ticket into it); with the group's
    /// rights that would be the group's rights lent to a file the user chooses. The group
    /// protects nothing of such a store (the server authenticates each user by their ticket),
    /// so it is opened with the user's rights only. A store password file beside such a URL is
    /// refused: it would be the group's secret, readable only before the drop.
    static func opensAfterTheDrop(_ config: AppConfig, privileged: Bool) throws -> Bool {
        guard privileged, case .postgres(let target) = config.store.location, target.asksForGSSAPI else { return false }
        if config.store.passwordFile != nil {
            throw Privilege.Refusal(description: "store.url logs in with the user's Kerberos ticket (krbsrvname or gssencmode) "
                                    + "and store.passwordFile names a password: the installed miadmin uses one of them; "
                                    + "remove the other (docs/security.md)")
        }
        return true
    }
}
