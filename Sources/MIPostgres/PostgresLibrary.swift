import CPostgresLazy

/// libpq is opened on the first use of a PostgreSQL store, not at start-up (a SQLite store never
/// loads it; CLazyLibrary says why). Everything that calls libpq opens it here first, so a
/// machine without libpq gets a message instead of an abort.
enum PostgresLibrary {
    /// - Throws: ``PostgresError`` of kind `.configuration` naming the library and dlopen's reason.
    static func open() throws {
        var reason: UnsafePointer<CChar>?
        guard miadmin_postgres_open(&reason) == 0 else { return }
        let soname = String(cString: miadmin_postgres_soname())
        throw PostgresError(.configuration,
                            "The PostgreSQL store needs libpq (\(soname)), which cannot be loaded: "
                            + "\(reason.map { String(cString: $0) } ?? "unknown error"). Install the libpq5 package.")
    }
}
