import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// Text with a NUL never reaches libpq (which would cut it short): every statement of the
/// PostgreSQL engine refuses it before sending anything, naming the field it was bound for.
@Suite("PostgreSQL: text with a NUL is refused (real server)", .tags(.postgres), .needsPostgres)
struct PostgresTextCheckTests {
    let fixture = PostgresFixture.shared

    @Test func theFieldIsNamedFromTheStatement() {
        #expect(PostgresTextCheck.fieldName(parameter: 2, in: "INSERT INTO forms (owner, name, template) VALUES ($1, $2, $3)")
                == "forms.name")
        #expect(PostgresTextCheck.fieldName(parameter: 1, in: "UPDATE forms SET name = $1, modified = $2 WHERE id = $3")
                == "name")
        #expect(PostgresTextCheck.fieldName(parameter: 3, in: "UPDATE forms SET name = $1, modified = $2 WHERE f.owner = $3")
                == "f.owner")
        #expect(PostgresTextCheck.fieldName(parameter: 1, in: "SELECT lower($1)") == nil)
    }

    @Test func everyWayOfRunningAStatementRefusesANulAndSendsNothing() throws {
        let connection = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try connection.execute("CREATE TEMP TABLE notes (id bigint, text text)")
        let database = PostgresDatabase(connection)
        func insert(_ id: Int64, _ text: String) -> StoreSQL { "INSERT INTO notes (id, text) VALUES (\(id), \(text))" }
        let refused: (any Error) -> Bool = { error in
            guard let error = error as? StoreError, error.kind == .invalidInput else { return false }
            return error.message.contains("notes.text") && error.message.contains("NUL")
        }
        let nul = "T\u{0}x"
        #expect(performing: { try database.execute(literal: insert(1, nul)) }, throws: refused)
        #expect(performing: { try database.rows(literal: insert(2, nul) + " RETURNING id") }, throws: refused)
        #expect(performing: { try database.batch([StoreStatement(literal: insert(3, nul))]) }, throws: refused)
        #expect(performing: { try database.readAhead(StoreStatement(literal: insert(4, nul) + " RETURNING id")).rows() }, throws: refused)
        #expect(performing: { try database.sendLater([StoreStatement(literal: insert(6, nul))]) }, throws: refused)
        #expect { try database.forEachRow(literal: "SELECT id FROM notes WHERE text = \(nul)") { _ in } } throws: { error in
            (error as? StoreError)?.message.contains("field text") == true
        }
        // Nothing was stored, cut short or not; text without a NUL goes in whole.
        #expect(try connection.execute("SELECT count(*) FROM notes").string(0, 0) == "0")
        try database.execute(literal: insert(5, "T\u{1}x – Zoë"))
        #expect(try connection.execute("SELECT text FROM notes").string(0, 0) == "T\u{1}x – Zoë")
    }
}
