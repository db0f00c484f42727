import Foundation
import MITestSupport
import Testing
@testable import MIStore

/// ``StoreSQL``: a fragment carries its arguments, and the engine that runs it spells each
/// placeholder as it is written; ``FormQuery``: a form query begins with the session's reach.
@Suite struct StoreSQLTests {
    /// The same fragment, nested fragments included, is `?` for SQLite and `$1, $2, $3` for
    /// PostgreSQL, with its arguments in the order they stand in the text.
    @Test func placeholdersAreSpelledByTheEngine() {
        let owner = "jdoe", version = 7, name = "Pump station 4"
        let inner: StoreSQL = "owner = \(owner)"
        let sql: StoreSQL = "SELECT id FROM forms WHERE \(inner) AND version > \(version) AND name = \(name)"
        let sqlite = sql.rendered(for: .sqlite)
        let postgres = sql.rendered(for: .postgres)
        #expect(sqlite.sql == "SELECT id FROM forms WHERE owner = ? AND version > ? AND name = ?")
        #expect(postgres.sql == "SELECT id FROM forms WHERE owner = $1 AND version > $2 AND name = $3")
        let expected: [StoreValue] = [.text("jdoe"), .integer(7), .text("Pump station 4")]
        #expect(sqlite.arguments.map(\.storeValue) == expected)
        #expect(postgres.arguments.map(\.storeValue) == expected)
    }

    /// Fragments joined with a separator, and text marked as raw SQL, keep the numbering
    /// running across them; a nil value is a NULL argument, not text.
    @Test func joinedFragmentsNumberOnAndRawTextIsNoArgument() {
        let ids: [Int64] = [3, 5, 8]
        let list = ids.map { "\($0)" as StoreSQL }.joined(separator: ", ")
        let missing: String? = nil
        let sql: StoreSQL = "SELECT \(unsafeRaw: "id, owner") FROM forms WHERE id IN (\(list)) AND note IS NOT \(missing)"
        let postgres = sql.rendered(for: .postgres)
        #expect(postgres.sql == "SELECT id, owner FROM forms WHERE id IN ($1, $2, $3) AND note IS NOT $4")
        #expect(postgres.arguments.map(\.storeValue) == [.integer(3), .integer(5), .integer(8), .null])
    }

    /// A name goes in quoted, a `"` in it doubled: whatever it holds stays one identifier and
    /// no argument; so does each name of a column list.
    @Test func identifiersAreQuoted() {
        let table = #"notes"; DROP TABLE forms; --"#
        let sql: StoreSQL = "SELECT \(StoreSQL(identifiers: ["id", "text"])) FROM \(identifier: table) WHERE id = \(Int64(1))"
        let rendered = sql.rendered(for: .postgres)
        #expect(rendered.sql == #"SELECT "id", "text" FROM "notes""; DROP TABLE forms; --" WHERE id = $1"#)
        #expect(rendered.arguments.map(\.storeValue) == [.integer(1)])
    }

    /// A `?` in a string literal, a comment or jsonb's `?` operator is SQL text: it is left as
    /// it is, and only the arguments get placeholders.
    @Test func questionMarksInTheTextAreLeftAlone() {
        let key = "site"
        let sql: StoreSQL = """
            SELECT id FROM forms -- which? all
            WHERE name <> 'who?' AND questions::jsonb ? 'pump' AND owner = \(key) /* ?1 */
            """
        #expect(sql.rendered(for: .postgres).sql == """
            SELECT id FROM forms -- which? all
            WHERE name <> 'who?' AND questions::jsonb ? 'pump' AND owner = $1 /* ?1 */
            """)
        #expect(sql.rendered(for: .sqlite).sql == """
            SELECT id FROM forms -- which? all
            WHERE name <> 'who?' AND questions::jsonb ? 'pump' AND owner = ? /* ?1 */
            """)
        #expect(sql.rendered(for: .postgres).arguments.map(\.storeValue) == [.text("site")])
    }

    /// A scope of many owners passes them as one JSON array, spelled for each engine.
    @Test func aLargeScopeIsOneArgumentPerEngine() throws {
        let owners = Set((0...OwnerScope.placeholderLimit).map { "t\($0)" })
        let condition = try #require(OwnerScope(owners: owners, crews: ["Kolonne Nord"]).condition("owner"))
        let sqlite = condition.rendered(for: .sqlite)
        let postgres = condition.rendered(for: .postgres)
        #expect(sqlite.sql == "owner IN (SELECT value FROM json_each(?))")
        #expect(postgres.sql == "owner IN (SELECT json_array_elements_text($1::json))")
        #expect(sqlite.arguments.count == 1 && postgres.arguments.count == 1)
        let small = OwnerScope(owners: ["jdoe", "asmith"], crews: []).condition("owner")?.rendered(for: .postgres)
        #expect(small?.sql == "owner IN ($1, $2)")
        #expect(small?.arguments.map(\.storeValue) == [.text("asmith"), .text("jdoe")])
        #expect(OwnerScope.everyone.condition("owner") == nil)
    }

    /// On a real server: a statement with jsonb's `?` operator and a `?` in a comment runs
    /// with its one argument (text rewriting made that operator a placeholder).
    @Test(.tags(.postgres), .needsPostgres) func jsonbQuestionMarkRunsOnPostgres() throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: .postgres)
        let document = #"{"pump": 4}"#
        let found = try store.read { db in
            try db.value(Bool.self, literal: """
                SELECT CAST(\(document) AS jsonb) ? 'pump' -- has it a pump?
                """)
        }
        #expect(found == true)
    }

    /// The same arguments and text run on both engines, a `?` in a literal and a comment included.
    @Test(arguments: TestEngine.allCases) func aFragmentRunsOnEitherEngine(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let word = "jdoe", number = 41
        let row = try #require(try store.read { db in
            try db.row(literal: """
                SELECT CAST(\(word) AS text) || '?' AS word, CAST(\(number) AS integer) + 1 AS number /* ? */
                """)
        })
        #expect(row["word"] as String == "jdoe?")
        #expect(row["number"] as Int == 42)
    }

    /// An operation written with ``FormQuery`` sees the reach's owners only: what it adds
    /// cannot widen it (an `OR` stays inside its own parentheses), and a form of another crew
    /// found by reference is refused by name.
    @Test(arguments: TestEngine.allCases) func aFormQuerySeesOnlyTheReach(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [
            ("jdoe/A", "2026-11-01T09:00:00Z"), ("asmith/B", "2026-11-01T09:00:00Z"),
            ("sobrien/C", "2026-11-01T09:00:00Z"),
        ])
        func owners(_ query: FormQuery) throws -> [String] {
            try store.read { db in
                try db.rows(literal: "SELECT DISTINCT owner FROM forms WHERE \(query.condition) ORDER BY owner")
                    .map { $0["owner"] as String }
            }
        }
        #expect(try owners(store.formQuery()) == ["asmith", "jdoe", "sobrien"])

        store.reach = Reach(scope: OwnerScope(owners: ["jdoe", "asmith"], crews: ["Kolonne Nord"]))
        #expect(try owners(store.formQuery()) == ["asmith", "jdoe"])
        let other = "sobrien"
        #expect(try owners(store.formQuery().adding("1 = 1 OR owner = \(other)")) == ["asmith", "jdoe"])
        #expect(try owners(store.formQuery().adding(OwnerSelection.except(["jdoe"]))) == ["asmith"])

        let refused = #expect(throws: StoreError.self) {
            try store.read { db in try store.formQuery().find(.path(owner: "sobrien", name: "C"), in: db) }
        }
        #expect(refused?.kind == .forbidden)
        #expect(refused?.message == "sobrien is not in your crews (Kolonne Nord)")
        let found = try store.read { db in try store.formQuery().find(.path(owner: "jdoe", name: "A"), in: db) }
        #expect(found.owner == "jdoe")

        store.reach = Reach(scope: OwnerScope(owners: [], crews: []))
        #expect(try owners(store.formQuery()).isEmpty)
    }

    /// Completion and export, both built on ``FormQuery``, offer and write the reach's forms only.
    @Test(arguments: TestEngine.allCases) func completionAndExportKeepToTheReach(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [
            ("jdoe/A", "2026-11-01T09:00:00Z"), ("jdoe/Alpha", "2026-11-01T09:00:00Z"),
            ("asmith/B", "2026-11-01T09:00:00Z"), ("sobrien/C", "2026-11-01T09:00:00Z"),
        ])
        #expect(try store.formReferenceSuggestions(prefix: "") == ["asmith/", "jdoe/", "sobrien/"])
        #expect(try store.formReferenceSuggestions(prefix: "jdoe/A") == ["jdoe/A", "jdoe/Alpha"])
        #expect(try store.formReferenceSuggestions(prefix: "s", owner: "sobrien") == ["sobrien/"])
        #expect(try store.formReferenceSuggestions(prefix: "", scope: .trashed).isEmpty)

        store.reach = Reach(scope: OwnerScope(owners: ["jdoe", "asmith", "tnobody"], crews: ["Kolonne Nord"]))
        #expect(try store.formReferenceSuggestions(prefix: "") == ["asmith/", "jdoe/"])
        #expect(try store.formReferenceSuggestions(prefix: "jdoe/Al") == ["jdoe/Alpha"])
        #expect(try store.formReferenceSuggestions(prefix: "sobrien/").isEmpty)
        #expect(try store.formReferenceSuggestions(prefix: "s", owner: "sobrien").isEmpty)

        let report = try store.exportTree(to: dir.sub("export"))
        #expect(report.incompleteForms == 3)
        let written = try FileManager.default.contentsOfDirectory(atPath: dir.sub("export").path).filter { !$0.hasPrefix(".") }
        #expect(!written.contains("sobrien"))
        #expect(written.contains("jdoe") && written.contains("asmith"))
    }
}
