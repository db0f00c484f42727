import Foundation

extension FormStore {
    /// Tells each technician, and each crew's foreman, once of a change of many forms: a bulk
    /// move (`move 'jdoe/*' zangstrom,u00010`) or its undo. Each move left its own notices with
    /// it (so a run that stopped or died part-way told everyone of what it did); here, in one
    /// transaction (the caller's, when it runs in one: an undo's), the unread ones of whoever
    /// has several are replaced by one naming them all. Each technician who lost forms then
    /// has one notice naming them and where each went, each who got forms one naming them and
    /// where each came from; for an undo both say "undone". Each foreman of a crew the forms
    /// left or came into has one naming them. A notice already read stays as it is, and its form
    /// is left out of the one that replaces the others.
    public func tellOfMoves(_ moves: [MoveResult], actor: String, actorRole: String, note: String?, undone: Bool) throws {
        let moves = moves.filter(\.moved)
        guard moves.count > 1 else { return }
        let actor = try Validate.name(actor, what: "actor")
        try write { db in
            let unread = try Self.unread(moves.flatMap { [$0.noticeId, $0.receiverNoticeId].compactMap { $0 } + $0.crewNoticeIds.values },
                                         in: db)
            var replaced: [Int64] = []
            var statements: [StoreStatement] = []
            let now = nowSeconds()
            /// One notice for `uid` of `items`, in place of their own unread ones, when there are several.
            func tell<Item>(_ uid: String, _ items: [(item: Item, id: Int64)], source: String, _ text: ([Item]) -> String) {
                guard items.count > 1 else { return }
                replaced += items.map(\.id)
                statements.append(Notices.adding(uid: uid, text: text(items.map(\.item)), source: source, formId: nil, at: now))
            }
            /// Each move with its own unread notice for whoever `notice` names, grouped by them.
            func unreadOnes(_ notice: (MoveResult) -> (uid: String, id: Int64?)) -> [(String, [(item: MoveResult, id: Int64)])] {
                var items: [(String, (item: MoveResult, id: Int64))] = []
                for move in moves {
                    let (uid, id) = notice(move)
                    if let id, unread.contains(id) { items.append((uid, (move, id))) }
                }
                return Self.grouped(items)
            }
            for (uid, lost) in unreadOnes({ ($0.fromOwner, $0.noticeId) }) {
                tell(uid, lost, source: undone ? Notice.sourceUndo : Notice.sourceMove) {
                    undone ? Notices.undoneAway($0, by: actor, role: actorRole, reason: note)
                           : Notices.reassigned($0, by: actor, role: actorRole, reason: note)
                }
            }
            for (uid, got) in unreadOnes({ ($0.toOwner, $0.receiverNoticeId) }) {
                tell(uid, got, source: undone ? Notice.sourceUndo : Notice.sourceMoveReceived) {
                    undone ? Notices.undoneBack($0, by: actor, role: actorRole, reason: note)
                           : Notices.received($0, by: actor, role: actorRole, reason: note)
                }
            }
            if let naming = crewNaming {
                var told: [(String, (item: (move: MoveResult, crews: CrewForemanToTell), id: Int64))] = []
                for move in moves {
                    for crews in try naming.foremenToTell(movedFrom: move.fromOwner, to: move.toOwner, actor: actor) {
                        guard let id = move.crewNoticeIds[crews.foreman], unread.contains(id) else { continue }
                        told.append((crews.foreman, ((move, crews), id)))
                    }
                }
                for (foreman, items) in Self.grouped(told) {
                    tell(foreman, items, source: Notice.sourceMoveIntoCrew) {
                        Notices.movedForCrew($0, by: actor, role: actorRole, reason: note)
                    }
                }
            }
            for chunk in Self.chunks(replaced) {
                try db.execute(literal: "DELETE FROM notices WHERE id IN (\(chunk.map { "\($0)" as StoreSQL }.joined(separator: ", ")))")
            }
            if !statements.isEmpty { _ = try db.batch(statements) }
        }
    }

    /// Which of the notices `ids` nobody has read yet.
    private static func unread(_ ids: [Int64], in db: any StoreDatabase) throws -> Set<Int64> {
        var unread = Set<Int64>()
        for chunk in chunks(ids) {
            let list = chunk.map { "\($0)" as StoreSQL }.joined(separator: ", ")
            unread.formUnion(try db.values(Int64.self, literal: "SELECT id FROM notices WHERE id IN (\(list)) AND read_at IS NULL"))
        }
        return unread
    }

    /// `ids` in lists short enough for one statement's arguments on either engine.
    private static func chunks(_ ids: [Int64]) -> [ArraySlice<Int64>] {
        stride(from: 0, to: ids.count, by: 500).map { ids[$0..<min($0 + 500, ids.count)] }
    }

    /// `items` per recipient, in the order each recipient first appears.
    private static func grouped<Item>(_ items: [(String, Item)]) -> [(String, [Item])] {
        var order: [String] = []
        var groups: [String: [Item]] = [:]
        for (uid, item) in items {
            if groups[uid] == nil { order.append(uid) }
            groups[uid, default: []].append(item)
        }
        return order.map { ($0, groups[$0]!) }
    }
}

extension Notices {
    /// What the technician reads who lost several forms at once: each form, and to whom it went
    /// (under which name).
    static func reassigned(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        let forms = moves.map { "'\($0.oldName)' to \($0.toOwner)" + ($0.renamed ? " as '\($0.newName)'" : "") }
        return "\(moves.count) forms were reassigned by \(role) \(actor) (\(forms.joined(separator: ", ")))" + because(reason)
    }

    /// What a crew's foreman reads of several forms of his crews that changed hands at once:
    /// each form, from whom to whom.
    static func movedForCrew(_ items: [(move: MoveResult, crews: CrewForemanToTell)], by actor: String, role: String,
                             reason: String?) -> String {
        let crews = Set(items.flatMap { $0.crews.from + $0.crews.into }).sorted()
        let forms = items.map { "'\($0.move.newName)' from \($0.move.fromOwner) to \($0.move.toOwner)" }
        return "\(items.count) forms of your crew (\(crews.joined(separator: ", "))) changed hands by \(role) \(actor) "
            + "(\(forms.joined(separator: ", ")))" + because(reason)
    }

    /// What the technician reads who got several forms at once: each form, and from whom.
    static func received(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        let forms = moves.map { "'\($0.newName)'" + ($0.renamed ? " (was '\($0.oldName)')" : "") + " from \($0.fromOwner)" }
        return "\(moves.count) forms were given to you by \(role) \(actor) (\(forms.joined(separator: ", ")))" + because(reason)
    }

    /// What the technician reads who loses several forms because their moves to him were undone.
    static func undoneAway(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        let forms = moves.map { "'\($0.oldName)' back to \($0.toOwner)" + ($0.renamed ? " as '\($0.newName)'" : "") }
        return "The moves of \(moves.count) forms to you were undone by \(role) \(actor) (\(forms.joined(separator: ", ")))"
            + because(reason)
    }

    /// What the technician reads who gets several forms back because their moves away were undone.
    static func undoneBack(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        let forms = moves.map { "'\($0.newName)' from \($0.fromOwner)" + ($0.renamed ? " (named '\($0.oldName)' there)" : "") }
        return "The moves of \(moves.count) forms away from you were undone: they are yours again, by \(role) \(actor) "
            + "(\(forms.joined(separator: ", ")))" + because(reason)
    }
}
