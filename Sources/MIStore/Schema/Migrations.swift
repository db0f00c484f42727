/// One step of the store's schema.
struct Migration: Sendable {
    /// The schema version it brings the store to, recorded in `schema_migrations`.
    let id: String
    /// The tables it creates, parents first: `store copy` copies them in this order.
    let creates: [String]
    /// Raw SQL, with ``SchemaDialect`` placeholders where the engines differ.
    let sql: String

    func sql(for dialect: SchemaDialect) -> String { dialect.render(sql) }
}

/// The store's schema, as one list of migrations for both engines.
///
/// Rules: a migration that has shipped is never edited (add a new one instead), and migrations
/// use raw SQL only, never app types, so they mean the same thing forever. Both engines record
/// what they applied in one table, `schema_migrations` (``SchemaDialect/stateTable``).
enum Migrations {
    static let all: [Migration] = [v1, v2, v3, v4]

    static let identifiers = all.map(\.id)

    /// Every table the migrations create, parents first (``StoreCopy``).
    static let tables = all.flatMap(\.creates)

    /// The migrations a store that applied `applied` still needs, in order.
    ///
    /// - Throws: ``StoreError`` `.newerSchema` when the store holds a migration this binary does
    ///   not know (a newer miadmin migrated it), naming both schema versions.
    static func pending(applied: Set<String>, at location: String) throws -> [Migration] {
        if let unknown = applied.subtracting(identifiers).sorted().last {
            throw StoreError.newerSchema(at: location, found: unknown, known: identifiers.last!)
        }
        return all.filter { !applied.contains($0.id) }
    }

    /// The schema version of a store that applied `applied`: its newest known migration.
    static func version(applied: Set<String>) -> String? {
        identifiers.last { applied.contains($0) }
    }

    static let v1 = Migration(id: "v1", creates: ["forms", "media", "foreman_comments", "notices", "audit"], sql: """
        CREATE TABLE forms (
            id {ID},
            owner {TEXT} NOT NULL,
            name {TEXT} NOT NULL,
            template {TEXT} NOT NULL,
            template_id {TEXT} NOT NULL,
            state {TEXT} NOT NULL CHECK (state IN ('incomplete', 'completed', 'submitted')),
            created {TEXT} NOT NULL,
            created_utc {REAL} NOT NULL,
            modified {TEXT} NOT NULL,
            modified_utc {REAL} NOT NULL,
            questions {TEXT} NOT NULL,
            extra {TEXT},
            version {INT} NOT NULL DEFAULT 1,
            trashed_at {REAL}
        );
        CREATE UNIQUE INDEX forms_live_owner_name ON forms(owner, name) WHERE trashed_at IS NULL;
        CREATE INDEX forms_live_state_owner_name ON forms(state, owner, name) WHERE trashed_at IS NULL;
        CREATE INDEX forms_live_template_owner_name ON forms(template, owner, name) WHERE trashed_at IS NULL;
        CREATE INDEX forms_state_created ON forms(state, created_utc);
        CREATE INDEX forms_trashed ON forms(trashed_at) WHERE trashed_at IS NOT NULL;

        CREATE TABLE media (
            id {ROWID},
            form_id {BIGINT} NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
            file_name {TEXT} NOT NULL,
            question {INT} NOT NULL,
            number {INT} NOT NULL,
            ext {TEXT} NOT NULL,
            size {BIGINT} NOT NULL,
            sha256 {TEXT} NOT NULL,
            data {BLOB} NOT NULL,
            UNIQUE (form_id, file_name)
        );

        CREATE TABLE foreman_comments (
            id {ID},
            form_id {BIGINT} NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
            author {TEXT} NOT NULL,
            at {REAL} NOT NULL,
            text {TEXT} NOT NULL
        );
        CREATE INDEX foreman_comments_form ON foreman_comments(form_id, id);

        CREATE TABLE notices (
            id {ID},
            uid {TEXT} NOT NULL,
            text {TEXT} NOT NULL,
            created {REAL} NOT NULL,
            read_at {REAL},
            source {TEXT} NOT NULL,
            form_id {BIGINT}
        );
        CREATE INDEX notices_uid ON notices(uid, read_at);

        CREATE TABLE audit (
            id {ID},
            at {REAL} NOT NULL,
            actor {TEXT} NOT NULL,
            command {TEXT} NOT NULL,
            form_id {BIGINT},
            object {TEXT} NOT NULL,
            before {TEXT},
            after {TEXT},
            note {TEXT}
        );
        CREATE INDEX audit_at ON audit(at);
        CREATE INDEX audit_actor ON audit(actor, at);
        CREATE INDEX audit_form ON audit(form_id, at);
        """)

    /// Expiry, trash and the shared notification policy.
    ///
    /// - `forms.expiry_reset_at`: set by restore and reopen; expiry then counts from it instead of
    ///   `created`, so a form brought back is not expired again at the next run.
    /// - `policy`: policy values set with `policy set`, overriding the config file for every console.
    /// - `forms_trashed_owner`: the trash listing of one owner.
    static let v2 = Migration(id: "v2-expiry-policy", creates: ["policy"], sql: """
        ALTER TABLE forms ADD COLUMN expiry_reset_at {REAL};
        CREATE INDEX forms_trashed_owner ON forms(owner, trashed_at) WHERE trashed_at IS NOT NULL;

        CREATE TABLE policy (
            key {TEXT} PRIMARY KEY,
            value {TEXT} NOT NULL,
            set_at {REAL} NOT NULL,
            set_by {TEXT} NOT NULL
        );
        """)

    /// Outbound work, written in the same transaction as the change that causes it.
    ///
    /// - `outbox`: one row per submitted form version to deliver to the office. `idempotency_key`
    ///   is made when the row is queued and sent on every try, so the office can drop repeats;
    ///   `state` queued → sent, or held (refused, or out of tries) until `deliveries retry`.
    ///   No foreign key: the record of what was sent outlives a purged form.
    /// - `sent_reminders`: each (form, notify day) reminder mailed, at most once.
    static let v3 = Migration(id: "v3-outbox", creates: ["outbox", "sent_reminders"], sql: """
        CREATE TABLE outbox (
            id {ID},
            form_id {BIGINT} NOT NULL,
            form_version {INT} NOT NULL,
            owner {TEXT} NOT NULL,
            name {TEXT} NOT NULL,
            idempotency_key {TEXT} NOT NULL UNIQUE,
            state {TEXT} NOT NULL CHECK (state IN ('queued', 'sent', 'held')),
            attempts {INT} NOT NULL DEFAULT 0,
            queued_at {REAL} NOT NULL,
            last_try {REAL},
            next_try {REAL} NOT NULL,
            sent_at {REAL},
            last_error {TEXT},
            UNIQUE (form_id, form_version)
        );
        CREATE INDEX outbox_state_next ON outbox(state, next_try);
        CREATE INDEX outbox_form ON outbox(form_id, id);

        CREATE TABLE sent_reminders (
            form_id {BIGINT} NOT NULL,
            day {INT} NOT NULL,
            uid {TEXT} NOT NULL,
            sent_at {REAL} NOT NULL,
            PRIMARY KEY (form_id, day)
        );
        """)

    /// `write_ids`: the id each PostgreSQL write transaction inserts first (with its `BEGIN`), so
    /// that after a connection lost while its COMMIT was under way the console can find out
    /// whether it happened (``PostgresEngine``); a console deletes rows older than a day when it
    /// connects. SQLite has no such doubt and writes none; the table is there so both engines
    /// have one schema and one version. Not in `creates`: ids belong to the database that
    /// wrote them, so `store copy` leaves them behind.
    static let v4 = Migration(id: "v4-write-ids", creates: [], sql: """
        CREATE TABLE write_ids (
            id {TEXT} PRIMARY KEY,
            at {REAL} NOT NULL
        );
        CREATE INDEX write_ids_at ON write_ids(at);
        """)
}
