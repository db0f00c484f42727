import Foundation
import Logging
import MIStore

/// A store opened only to be copied into (`store copy --to`). A command holds it and hands it to
/// ``StoreAdministration/copy(to:append:actor:progress:)``; it offers nothing else, so no command
/// holds a whole store, with no reach, next to the session's.
public struct CopyDestination {
    let store: FormStore

    /// Opens the target at `location` with the user's own rights (the console has given up the
    /// group's by the time a command runs, so libpq's conventions are the user's), with the
    /// default store settings.
    public static func open(_ location: AppConfig.Store.Location, password: String?, sqlite opening: FormStore.Opening,
                            busyTimeout: TimeInterval, clock: any StoreClock, logger: Logger) throws -> CopyDestination {
        CopyDestination(store: try StoreOpening.open(location, password: password, privileged: false, sqlite: opening,
                                                     busyTimeout: busyTimeout, clock: clock, logger: logger))
    }
}

extension FormStore {
    /// ``copy(to:append:actor:progress:)`` into a ``CopyDestination``.
    public func copy(to destination: CopyDestination, append: Bool, actor: String,
                     progress: (String, Int) -> Void) throws -> StoreCopyReport {
        try copy(to: destination.store, append: append, actor: actor, progress: progress)
    }
}
