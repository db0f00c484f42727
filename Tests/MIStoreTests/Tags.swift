import MITestSupport
import Testing

/// What a suite needs besides this process: tests tagged with a server are skipped, with the
/// reason, in a run that has none (``TestServer``).
extension Tag {
    /// The throwaway PostgreSQL server (Scripts/pg-fixture), and its standby and PgBouncer.
    @Tag static var postgres: Self
}

extension Trait where Self == ConditionTrait {
    /// Runs only where this run has a PostgreSQL server (a script's, or one it may start).
    static var needsPostgres: Self {
        .enabled(if: PostgresFixture.unavailable == nil, "needs the PostgreSQL fixture (Scripts/pg-fixture), which this run does not have")
    }
}
