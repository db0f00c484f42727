import Foundation
import MITestSupport
import Testing
@testable import MIStore

/// What a move reads, seen through PostgreSQL: its columns through column privileges (the store's
/// account is refused its forms' content, and a move and its undo must still do all their work),
/// its rows through the server's count of the tuples each scan of `forms` read.
@Suite(.tags(.postgres), .needsPostgres) struct MoveReadsTests {
    /// Leaves the store's account SELECT on every column of `forms` but `questions` and `extra`,
    /// and on `ctid`, a row's place in the table (where a move finds its form again, MoveLookup).
    static func hideContent(of store: FormStore) throws {
        try store.write { db in
            let columns = try db.values(String.self, literal: """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'forms' AND column_name NOT IN ('questions', 'extra')
                """)
            _ = try db.execute(literal: "REVOKE SELECT ON forms FROM CURRENT_USER")
            _ = try db.execute(literal: "GRANT SELECT (\(StoreSQL(identifiers: columns + ["ctid"]))) ON forms TO CURRENT_USER")
        }
    }

    @Test func aMoveReadsNoneOfTheFormsContent() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "asmith/Pump", "asmith/Valve"])
        try Self.hideContent(of: store)
        // The account cannot read the content now: the check that the test sees what it thinks.
        #expect(throws: StoreError.self) { try store.form(ref("jdoe/Pump")) }

        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan", note: "on leave")
        #expect(moved.moved && moved.newName == "Pump (2)" && moved.version == 2)
        let free = try store.move(ref("asmith/Valve"), to: "jdoe", actor: "mkhan")
        #expect(free.moved && free.newName == "Valve")
        let undone = try store.move(.id(moved.formId), to: "jdoe", actor: "mkhan", undoing: moved)
        #expect(undone.moved && undone.newName == "Pump" && undone.version == 3)
        #expect(try store.notices(for: "jdoe").count == 3)
    }

    /// Tuples read from `forms` and its indexes so far, as the server counts them, after this
    /// connection's counts are flushed (they are at the end of a transaction, when asked).
    static func tuplesRead(_ store: FormStore) throws -> Int64 {
        _ = try store.read { try $0.value(String.self, literal: "SELECT pg_stat_force_next_flush()::text") }
        return try store.read { db in
            try db.value(Int64.self, literal: """
                SELECT (SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables
                        WHERE schemaname = current_schema() AND relname = 'forms')
                     + (SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes
                        WHERE schemaname = current_schema() AND relname = 'forms')
                """) ?? -1
        }
    }

    /// A move onto a technician who holds `Pump (2)` … `Pump (41)` but no `Pump` takes the name
    /// as it is: the free-name check reads that one name, not the technician's forty others, so
    /// a serializable move does not overlap the reads of moves it has nothing to do with.
    @Test func aFreeNameReadsNoneOfTheReceiversOtherNames() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "lchen/Pump"])
        // A store big enough that the server reads it through its indexes, as a site's store.
        try store.write { db in
            _ = try db.execute(literal: """
                INSERT INTO forms (owner, name, template, template_id, state, created, created_utc, modified, modified_utc,
                                   questions)
                SELECT CASE WHEN i <= 40 THEN 'asmith' ELSE 'u' || (i % 500) END,
                       CASE WHEN i <= 40 THEN 'Pump (' || (i + 1) || ')' ELSE 'Form ' || i END,
                       'Monthly pump inspection', 'T-17', 'incomplete', '2026-11-01T07:00:00Z', 1793516400,
                       '2026-11-01T07:00:00Z', 1793516400, '[]'
                FROM generate_series(1, 20000) AS i
                """)
            _ = try db.execute(literal: "ANALYZE forms")
        }
        let before = try Self.tuplesRead(store)
        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        let read = try Self.tuplesRead(store) - before
        #expect(moved.newName == "Pump")
        // The form (by name), the receiver's `Pump` (absent) and the update by id: a handful,
        // far below the forty `Pump (k)` a range read would take.
        #expect(read >= 1 && read < 10, "the move read \(read) tuples of forms")
        // A taken name reads the range and takes the number after the forty.
        #expect(try store.move(ref("lchen/Pump"), to: "asmith", actor: "mkhan").newName == "Pump (42)")
    }
}
