import Foundation

/// What `store info` shows: the engine, where the store is, its schema version and row counts.
public struct StoreInfo: Sendable {
    public let engine: String
    /// The SQLite file, or the PostgreSQL hosts, port and database (never a password).
    public let location: String
    public let schemaVersion: String?
    /// Rows per table, in ``Migrations/tables`` order.
    public let counts: [(table: String, rows: Int)]
}

/// What `store copy` did: rows per table on both sides and the media check.
public struct StoreCopyReport: Sendable {
    public struct Table: Sendable {
        public let table: String
        /// Rows the source holds.
        public let source: Int
        /// Rows copied into the target.
        public let copied: Int
        /// Rows the target holds after the copy.
        public let target: Int
    }
    public let tables: [Table]
    /// Media files whose bytes were read back from the target and hashed.
    public let mediaChecked: Int
    public let mediaBytes: Int64
    /// Copied media whose SHA-256 in the target differs from the source's (0 after a good copy).
    public let mediaMismatches: Int
    /// Policy keys the target had already (kept; `--append` only).
    public let policyKept: [String]
}

/// Copies a whole store (forms, media bytes, foreman comments, notices, audit, policy, outbox,
/// mailed reminders) into
/// another of either engine, keeping every id so audit rows and notices keep pointing at their
/// forms. Streams: one row in memory at a time (media bytes one file at a time), so a store of a
/// million forms copies in bounded memory.
enum StoreCopy {
    struct Table {
        let name: String
        /// All of them; `id` first where there is one.
        let columns: [String]
        var hasId: Bool { columns.first == "id" }

        /// The column list, each name quoted.
        var columnList: StoreSQL { StoreSQL(identifiers: columns) }

        /// The statement that inserts one row of `values`, in the order of ``columns``.
        func insert(_ values: [StoreValue]) -> StoreSQL {
            "INSERT INTO \(identifier: name) (\(columnList)) VALUES (\(values.map { "\($0)" as StoreSQL }.joined(separator: ", ")))"
        }
    }

    /// Every table the migrations create (``Migrations/tables``), parents first, with its
    /// columns as the store `db` has them: a migration that adds a table or a column is copied
    /// without a word here. Both stores of a copy are at this binary's schema (opening migrated
    /// them), so the source's columns are the target's.
    static func tables(_ db: any StoreDatabase) throws -> [Table] {
        try Migrations.tables.map { name in
            let columns = try db.values(String.self, literal: db.dialect.columnNames(of: name))
            guard !columns.isEmpty else { throw StoreError(.database, "The store has no table \(name).") }
            return Table(name: name, columns: columns)
        }
    }

    static func counts(_ db: any StoreDatabase) throws -> [(table: String, rows: Int)] {
        try Migrations.tables.map { (table: $0, rows: try db.value(Int.self, literal: "SELECT COUNT(*) FROM \(identifier: $0)") ?? 0) }
    }
}

extension FormStore {
    /// The engine, location, schema version and row counts (`store info`).
    public func info() throws -> StoreInfo {
        let version = try engine.schemaVersion()
        return try read { db in
            StoreInfo(engine: engineName, location: path, schemaVersion: version, counts: try StoreCopy.counts(db))
        }
    }

    /// Copies everything in this store into `target` in one transaction on the target, then
    /// reads the target back: row counts, and every copied media file's bytes hashed again and
    /// compared with the source's SHA-256.
    ///
    /// - Parameters:
    ///   - append: copy into a target that holds data already, provided no id of any table is in
    ///     both (checked before anything is written); the target's policy values are kept.
    ///   - actor: who copies, for the audit row the copy adds to the target.
    ///   - progress: called with the table and rows copied so far, every 10,000 rows.
    /// - Throws: `.invalidInput` for a non-empty target without `append`, or ids in both;
    ///   `.conflict` when the verification finds a difference (nothing is rolled back then: the
    ///   copy committed; the message says what differs).
    public func copy(to target: FormStore, append: Bool, actor: String,
                     progress: (String, Int) -> Void = { _, _ in }) throws -> StoreCopyReport {
        let actor = try Validate.name(actor, what: "actor")
        guard target !== self, target.path != path || target.engineName != engineName else {
            throw StoreError(.invalidInput, "The target is this store itself.")
        }
        return try readWholeStore { source in
            let sourceCounts = try StoreCopy.counts(source)
            var copied: [String: Int] = [:]
            var policyKept: [String] = []
            try target.write { db in
                let targetCounts = try StoreCopy.counts(db)
                if targetCounts.contains(where: { $0.rows > 0 }) {
                    guard append else {
                        let held = targetCounts.filter { $0.rows > 0 }.map { "\($0.rows) \($0.table)" }.joined(separator: ", ")
                        throw StoreError(.invalidInput, "The target store at \(target.path) is not empty (\(held)); "
                                         + "copy into an empty store, or add --append to add to it.")
                    }
                    try Self.checkNoClashingIds(source: source, target: db, targetPath: target.path)
                    policyKept = try db.values(String.self, literal: "SELECT key FROM policy ORDER BY key")
                }
                for table in try StoreCopy.tables(source) {
                    var count = 0
                    if table.name == "media" {
                        // Metadata streamed; each file's bytes read on their own, so a batch of
                        // rows never holds many files at once.
                        let meta = table.columns.filter { $0 != "data" }
                        try source.forEachRow(literal: "SELECT \(StoreSQL(identifiers: meta)) FROM media ORDER BY id") { row in
                            let id: Int64 = row["id"]
                            let data = try source.value(Data.self, literal: "SELECT data FROM media WHERE id = \(id)") ?? Data()
                            try db.execute(literal: table.insert(row.values + [StoreValue.blob(data)]))
                            count += 1
                            if count % 10_000 == 0 { progress(table.name, count) }
                        }
                    } else if table.name == "policy" {
                        for row in try source.rows(literal: "SELECT \(table.columnList) FROM policy ORDER BY key") {
                            if policyKept.contains(row["key"]) { continue }
                            try db.execute(literal: table.insert(row.values))
                            count += 1
                        }
                    } else {
                        let order = StoreSQL(identifiers: table.hasId ? ["id"] : Array(table.columns.prefix(2)))
                        try source.forEachRow(literal: "SELECT \(table.columnList) FROM \(identifier: table.name) ORDER BY \(order)") { row in
                            try db.execute(literal: table.insert(row.values))
                            count += 1
                            if count % 10_000 == 0 { progress(table.name, count) }
                        }
                    }
                    if table.hasId { try db.continueIds(after: table.name) }
                    copied[table.name] = count
                    progress(table.name, count)
                }
                let summary = sourceCounts.map { "\($0.rows) \($0.table)" }.joined(separator: ", ")
                try Audit.record(db, at: nowSeconds(), actor: actor, command: "store.copy", formId: nil,
                                 object: "store \(path) (\(engineName))", before: nil,
                                 after: .object(JSONObject([("to", .string(target.path)), ("engine", .string(target.engineName)),
                                                            ("append", .bool(append))])),
                                 note: summary)
            }
            // Read back what was committed: every copied media file's bytes, hashed again, against
            // the SHA-256 the source recorded (streamed from the source, one file at a time).
            return try target.read { db in
                let targetCounts = try StoreCopy.counts(db)
                var mismatches = 0, checked = 0
                var bytes: Int64 = 0
                try source.forEachRow(literal: "SELECT id, sha256 FROM media ORDER BY id") { row in
                    let data = try db.value(Data.self, literal: "SELECT data FROM media WHERE id = \(row["id"] as Int64)") ?? Data()
                    bytes += Int64(data.count)
                    checked += 1
                    if MediaDigest.hex(data) != row["sha256"] as String { mismatches += 1 }
                }
                let tables = sourceCounts.map { source in
                    StoreCopyReport.Table(table: source.table, source: source.rows, copied: copied[source.table] ?? 0,
                                          target: targetCounts.first { $0.table == source.table }?.rows ?? 0)
                }
                let report = StoreCopyReport(tables: tables, mediaChecked: checked, mediaBytes: bytes,
                                             mediaMismatches: mismatches, policyKept: policyKept)
                // The audit row the copy added to the target is the one expected difference.
                let short = tables.filter { $0.copied != $0.source - ($0.table == "policy" ? policyKept.count : 0) }
                if mismatches > 0 || !short.isEmpty {
                    throw StoreError(.conflict, "The copy to \(target.path) does not match the source: "
                                     + "\(mismatches) media file(s) differ, tables short: "
                                     + (short.map(\.table).joined(separator: ", ").nonEmpty ?? "none") + ".")
                }
                logger.info("store copied", metadata: ["to": "\(target.path)", "engine": "\(target.engineName)"])
                return report
            }
        }
    }

    /// For `--append`: refuses when any id of any table is in both stores. Compares id ranges
    /// first; only when they overlap are the target's ids of that table loaded and each source
    /// id looked up.
    private static func checkNoClashingIds(source: any StoreDatabase, target: any StoreDatabase, targetPath: String) throws {
        for table in try StoreCopy.tables(source) where table.hasId {
            let range: StoreSQL = "SELECT MIN(id) AS low, MAX(id) AS high FROM \(identifier: table.name)"
            guard let s = try source.row(literal: range), let t = try target.row(literal: range),
                  let sLow = s["low"] as Int64?, let sHigh = s["high"] as Int64?,
                  let tLow = t["low"] as Int64?, let tHigh = t["high"] as Int64?,
                  sLow <= tHigh && tLow <= sHigh else { continue }
            let held = Set(try target.values(Int64.self, literal: "SELECT id FROM \(identifier: table.name)"))
            var clashes = 0
            var first: Int64?
            try source.forEachRow(literal: "SELECT id FROM \(identifier: table.name) ORDER BY id") { row in
                let id: Int64 = row["id"]
                if held.contains(id) { clashes += 1; first = first ?? id }
            }
            if clashes > 0 {
                throw StoreError(.invalidInput, "Cannot append to \(targetPath): \(clashes) id(s) of table \(table.name) "
                                 + "are in both stores (the first is \(first!)); nothing was copied.")
            }
        }
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
