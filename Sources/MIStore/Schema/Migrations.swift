import GRDB

/// The store's schema, as a list of migrations.
///
/// Rules: a migration that has shipped is never edited (add a new one instead), and migrations
/// use raw SQL only, never app types, so they mean the same thing forever.
enum Migrations {
    /// Every migration, oldest first: its identifier (the schema version it brings the store
    /// to, recorded in `grdb_migrations`) and what it does.
    static let all: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1", v1),
        ("v2-expiry-policy", v2),
        ("v4-write-ids", v4),
    ]

    static let identifiers = all.map(\.identifier)

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in all { migrator.registerMigration(migration.identifier, migrate: migration.migrate) }
        return migrator
    }

    static func v1(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE forms (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                owner TEXT NOT NULL,
                name TEXT NOT NULL,
                template TEXT NOT NULL,
                template_id TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('incomplete', 'completed', 'submitted')),
                created TEXT NOT NULL,
                created_utc REAL NOT NULL,
                modified TEXT NOT NULL,
                modified_utc REAL NOT NULL,
                questions TEXT NOT NULL,
                extra TEXT,
                version INTEGER NOT NULL DEFAULT 1,
                trashed_at REAL
            );
            CREATE UNIQUE INDEX forms_live_owner_name ON forms(owner, name) WHERE trashed_at IS NULL;
            CREATE INDEX forms_live_state_owner_name ON forms(state, owner, name) WHERE trashed_at IS NULL;
            CREATE INDEX forms_live_template_owner_name ON forms(template, owner, name) WHERE trashed_at IS NULL;
            CREATE INDEX forms_state_created ON forms(state, created_utc);
            CREATE INDEX forms_trashed ON forms(trashed_at) WHERE trashed_at IS NOT NULL;

            CREATE TABLE media (
                id INTEGER PRIMARY KEY,
                form_id INTEGER NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
                file_name TEXT NOT NULL,
                question INTEGER NOT NULL,
                number INTEGER NOT NULL,
                ext TEXT NOT NULL,
                size INTEGER NOT NULL,
                sha256 TEXT NOT NULL,
                data BLOB NOT NULL,
                UNIQUE (form_id, file_name)
            );

            CREATE TABLE foreman_comments (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                form_id INTEGER NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
                author TEXT NOT NULL,
                at REAL NOT NULL,
                text TEXT NOT NULL
            );
            CREATE INDEX foreman_comments_form ON foreman_comments(form_id, id);

            CREATE TABLE notices (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                uid TEXT NOT NULL,
                text TEXT NOT NULL,
                created REAL NOT NULL,
                read_at REAL,
                source TEXT NOT NULL,
                form_id INTEGER
            );
            CREATE INDEX notices_uid ON notices(uid, read_at);

            CREATE TABLE audit (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                at REAL NOT NULL,
                actor TEXT NOT NULL,
                command TEXT NOT NULL,
                form_id INTEGER,
                object TEXT NOT NULL,
                before TEXT,
                after TEXT,
                note TEXT
            );
            CREATE INDEX audit_at ON audit(at);
            CREATE INDEX audit_actor ON audit(actor, at);
            CREATE INDEX audit_form ON audit(form_id, at);
            """)
    }

    /// Expiry, trash and the shared notification policy.
    ///
    /// - `forms.expiry_reset_at`: set by restore and reopen; expiry then counts from it instead of
    ///   `created`, so a form brought back is not expired again at the next run.
    /// - `policy`: policy values set with `policy set`, overriding the config file for every console.
    /// - `forms_trashed_owner`: the trash listing of one owner.
    static func v2(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE forms ADD COLUMN expiry_reset_at REAL;
            CREATE INDEX forms_trashed_owner ON forms(owner, trashed_at) WHERE trashed_at IS NOT NULL;

            CREATE TABLE policy (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL,
                set_at REAL NOT NULL,
                set_by TEXT NOT NULL
            );
            """)
    }

    /// `write_ids`: the id each PostgreSQL write transaction records, so that after a connection
    /// lost while its COMMIT was under way the console can find out whether it happened
    /// (``PostgresEngine``). The SQLite engine has no such doubt and writes none; the table is
    /// here so both engines have one schema and one version.
    static func v4(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE write_ids (
                id TEXT PRIMARY KEY,
                at REAL NOT NULL
            );
            CREATE INDEX write_ids_at ON write_ids(at);
            """)
    }
}
