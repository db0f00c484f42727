import Testing
@testable import MIStore

/// A row's values by column name: searched in order for narrow results, through an index for
/// wide ones; the first of two same-named columns wins either way, and a missing column reads
/// as NULL.
@Suite struct StoreRowTests {
    static func row(width: Int) -> StoreRow {
        var names = (0..<width).map { "c\($0)" }
        names[width - 1] = "c0"  // a second column named like the first
        return StoreRow(columns: StoreColumns(names), values: (0..<width).map { .integer(Int64($0)) })
    }

    @Test(arguments: [2, 5, 24, 25, 60])
    func lookUpByName(width: Int) {
        let row = Self.row(width: width)
        let first: Int64 = row["c0"]
        #expect(first == 0)
        if width > 2 {
            let second: Int64 = row["c1"]
            #expect(second == 1)
            let before: Int64 = row["c\(width - 2)"]
            #expect(before == Int64(width - 2))
        }
        #expect(row.isNull("nope"))
        #expect(!row.isNull("c0"))
    }

    /// Both engines' rows, end to end: a real statement's columns, narrow and wide.
    @Test(arguments: TestEngine.allCases)
    func realResultsReadByName(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let wide = (0..<30).map { "\($0) AS w\($0)" }.joined(separator: ", ")
        let (narrowRows, wideRows) = try store.read { db in (try db.rows(literal: "SELECT 7 AS a, 'x' AS b"), try db.rows(literal: "SELECT \(unsafeRaw: wide)")) }
        let a: Int64 = narrowRows[0]["a"]
        let b: String = narrowRows[0]["b"]
        let w29: Int64 = wideRows[0]["w29"]
        let w0: Int64 = wideRows[0]["w0"]
        #expect(a == 7 && b == "x" && w29 == 29 && w0 == 0)
    }
}
