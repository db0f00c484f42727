import Foundation

/// Where a move on PostgreSQL finds its form and which of the target's names it could clash
/// with, read before its serializable transaction begins, so the transaction reads no index.
///
/// PostgreSQL's predicate locks on a B-tree are per leaf page. A move that looks its form up by
/// id holds a page of `forms_pkey`, and one that looks for the target's names a page of
/// `forms_live_owner_name`; its UPDATE changes indexed columns (owner, name), so it is never a
/// HOT update and writes a new entry into both. Two moves at once whose forms, or whose
/// targets, share a page each read what the other writes, and the server cancels one as the
/// pivot of a dangerous structure, however unrelated the forms (docs/benchmarks.md).
///
/// So the move reads them first in a READ COMMITTED transaction of its own, sent in the round
/// trip of its `BEGIN` (``StoreDatabase/readBeforeBegin(_:)``): the form's id, version, name and
/// place in the table (`ctid`), and the target's live names that name could clash with
/// (``FormNames/takenQuery(owner:name:from:to:)``). Inside the transaction it reads the form at
/// that place (a TID scan: a predicate lock on that row version alone) and updates it there.
/// What the move checks (state, version, owner) is read inside the transaction, as before. The
/// names need no predicate lock: the unique index of live names refuses a name another console
/// took meanwhile, and the move runs again, looking again. When the row at that place is not
/// the one read before (the form changed in between), or on SQLite, or in a savepoint of a
/// session's transaction, the move reads the form and the names inside its transaction.
struct MoveLookup {
    let id: Int64
    /// The row version's place in the table (`ctid`), as PostgreSQL spells it: `(page,item)`.
    let place: String
    let version: Int
    let name: String
    /// The target's live names the form's name (or the name an undo gives back) could clash with.
    let taken: [String]

    /// The lookup's answer: nil when no live form within the reach has that reference.
    init?(rows: [StoreRow]) {
        guard let first = rows.first else { return nil }
        id = first["id"]
        place = first["place"]
        version = first["version"]
        name = first["name"]
        taken = rows.compactMap { $0["taken"] as String? }
    }
}

extension FormStore {
    /// The lookup of a move of `ref` onto `uid`, queued ahead of the transaction's `BEGIN`;
    /// nil on SQLite (one writer at a time: nothing to race over). `preferredName`: the name an
    /// undo gives back.
    func moveLookup(_ ref: FormReference, to uid: String, preferredName: String?,
                    in db: any StoreDatabase) -> StoreRowsAhead? {
        guard db.dialect.engine == .postgres else { return nil }
        let which: StoreSQL = switch ref {
        case .id(let id): "f.id = \(id)"
        case .path(let owner, let name): "f.owner = \(owner) AND f.name = \(name)"
        }
        let name: StoreSQL = "COALESCE(\(preferredName), f.name)"
        // Up to the first " (": a prefix of the name's base (FormNames.split), so the range holds
        // every `Base (k)`; names in it of another base are left out by FormNames.freeName.
        let prefix: StoreSQL = "split_part(\(name), ' (', 1)"
        let taken = FormNames.takenQuery(owner: uid, name: name, from: "\(prefix) || ' ('", to: "\(prefix) || ' )'")
        return db.readBeforeBegin(StoreStatement(literal: """
            SELECT f.id, f.ctid::text AS place, f.version, f.name, taken.name AS taken
            FROM forms f LEFT JOIN LATERAL (\(taken)) taken ON true
            WHERE \(which) AND f.trashed_at IS NULL AND (\(formQuery(ownerColumn: "f.owner").reachCondition))
            """))
    }

    /// The form at the place `lookup` found it, when it is still the row version read there
    /// (same id, version and name, live, within the reach); nil otherwise.
    func formHead(at lookup: MoveLookup, in db: any StoreDatabase) throws -> FormHead? {
        let row = try db.row(literal: """
            SELECT \(FormHead.columns) FROM forms
            WHERE ctid = CAST(\(lookup.place) AS tid) AND id = \(lookup.id) AND version = \(lookup.version)
              AND trashed_at IS NULL AND (\(formQuery().reachCondition))
            """)
        return try row.map(FormHead.init(row:)).flatMap { $0.name.utf8.elementsEqual(lookup.name.utf8) ? $0 : nil }
    }
}
