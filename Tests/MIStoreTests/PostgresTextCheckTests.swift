import Foundation
import MITestSupport
import Testing
@testable import MIStore

/// Text with a NUL never reaches libpq (which would cut it short): every statement of the
/// PostgreSQL engine refuses it before sending anything, naming the field it was bound for.
@Suite("PostgreSQL: text with a NUL is refused (real server)", .tags(.postgres), .needsPostgres)
struct PostgresTextCheckTests {
    let fixture = PostgresFixture.shared

    @Test func theFieldIsNamedFromTheStatement() {
        #expect(PostgresTextCheck.fieldName(parameter: 2, in: "INSERT INTO forms (owner, name, template) VALUES (?, ?, ?)")
                == "forms.name")
        #expect(PostgresTextCheck.fieldName(parameter: 1, in: "UPDATE forms SET name = ?1, modified = ?2 WHERE id = ?3")
                == "name")
        #expect(PostgresTextCheck.fieldName(parameter: 3, in: "UPDATE forms SET name = ?1, modified = ?2 WHERE f.owner = ?3")
                == "f.owner")
        #expect(PostgresTextCheck.fieldName(parameter: 1, in: "SELECT lower(?)") == nil)
    }

    @Test func everyWayOfRunningAStatementRefusesANulAndSendsNothing() throws {
        let connection = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try connection.execute("CREATE TEMP TABLE notes (id bigint, text text)")
        let database = PostgresDatabase(connection)
        let insert = "INSERT INTO notes (id, text) VALUES (?, ?)"
        let refused: (any Error) -> Bool = { error in
            guard let error = error as? StoreError, error.kind == .invalidInput else { return false }
            return error.message.contains("notes.text") && error.message.contains("NUL")
        }
        #expect(performing: { try database.execute(insert, [Int64(1), "T\u{0}x"]) }, throws: refused)
        #expect(performing: { try database.rows(insert + " RETURNING id", [Int64(2), "T\u{0}x"]) }, throws: refused)
        #expect(performing: { try database.batch([StoreStatement(insert, [Int64(3), "T\u{0}x"])]) }, throws: refused)
        #expect(performing: { try database.readAhead(StoreStatement(insert + " RETURNING id", [Int64(4), "T\u{0}x"])).rows() }, throws: refused)
        // A batch's or a read ahead's statement written as StoreSQL is checked as well.
        let nul = "T\u{0}x"
        #expect(performing: { try database.batch([StoreStatement(literal: "INSERT INTO notes (id, text) VALUES (\(Int64(6)), \(nul))")]) },
                throws: refused)
        #expect(performing: {
            try database.readAhead(StoreStatement(literal: "INSERT INTO notes (id, text) VALUES (\(Int64(7)), \(nul)) RETURNING id")).rows()
        }, throws: refused)
        #expect { try database.forEachRow("SELECT id FROM notes WHERE text = ?", ["T\u{0}x"]) { _ in } } throws: { error in
            (error as? StoreError)?.message.contains("field text") == true
        }
        // Nothing was stored, cut short or not; text without a NUL goes in whole.
        #expect(try connection.execute("SELECT count(*) FROM notes").string(0, 0) == "0")
        try database.execute(insert, [Int64(5), "T\u{1}x – Zoë"])
        #expect(try connection.execute("SELECT text FROM notes").string(0, 0) == "T\u{1}x – Zoë")
    }
}
