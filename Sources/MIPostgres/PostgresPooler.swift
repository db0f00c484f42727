/// What sits between the console and the PostgreSQL server, and so which session state the
/// store may keep on its connection (`store.pooler`).
///
/// | mode | named prepared statements | session `SET` | what PgBouncer calls it |
/// |---|---|---|---|
/// | `none` | yes, prepared once per connection | `SET lock_timeout` once | (no pooler) |
/// | `session` | yes | yes | `pool_mode = session`: one server connection per client for its whole session |
/// | `transaction` | no: every statement unnamed | no: `SET LOCAL` in each transaction | `pool_mode = transaction`: each transaction may run on another server connection |
///
/// In every mode the store keeps nothing else across transactions: cursors are declared inside
/// a transaction and never `WITH HOLD`, and the migrations' advisory lock is
/// `pg_advisory_xact_lock`, released with its transaction.
public enum PostgresPooler: String, Sendable, CaseIterable {
    case none, session, transaction

    /// A pooler answers the start-up message with a process id of its own (PgBouncer: a random
    /// cancel key), unlike the server's `pg_backend_pid()`. Whether it pools by session or by
    /// transaction cannot be seen from the client, so a pooler found this way is taken to pool
    /// by transaction, which is safe with both (and costs a parse per statement).
    package static func detect(on connection: PostgresConnection) throws -> PostgresPooler {
        let result = try connection.execute("SELECT pg_backend_pid()")
        return result.string(0, 0).flatMap { Int($0) } == connection.reportedBackendPID ? .none : .transaction
    }
}
