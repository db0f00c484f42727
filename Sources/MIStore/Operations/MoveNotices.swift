import Foundation

extension FormStore {
    /// Tells each technician once of a change of many forms: a bulk move (`move 'jdoe/*'
    /// zangstrom,u00010`) or its undo, whose moves were made with `tellsTechnicians: false`.
    /// Each technician who lost forms gets one notice naming them and where each went, each who
    /// got forms one naming them and where each came from; for an undo both say "undone". A
    /// technician with one form of the change reads what a single move says. In one transaction
    /// (the caller's, when it runs in one: an undo's).
    public func tellOfMoves(_ moves: [MoveResult], actor: String, actorRole: String, note: String?, undone: Bool) throws {
        let moves = moves.filter(\.moved)
        guard !moves.isEmpty else { return }
        let actor = try Validate.name(actor, what: "actor")
        var statements: [StoreStatement] = []
        let now = nowSeconds()
        func tell(_ uid: String, _ forms: [MoveResult], _ text: String, source: String) {
            statements.append(Notices.adding(uid: uid, text: text, source: source,
                                             formId: forms.count == 1 ? forms[0].formId : nil, at: now))
        }
        for (uid, lost) in Self.grouped(moves, by: \.fromOwner) {
            let text = undone ? Notices.undoneAway(lost, by: actor, role: actorRole, reason: note)
                              : Notices.reassigned(lost, by: actor, role: actorRole, reason: note)
            tell(uid, lost, text, source: undone ? Notice.sourceUndo : Notice.sourceMove)
        }
        for (uid, got) in Self.grouped(moves, by: \.toOwner) {
            let text = undone ? Notices.undoneBack(got, by: actor, role: actorRole, reason: note)
                              : Notices.received(got, by: actor, role: actorRole, reason: note)
            tell(uid, got, text, source: undone ? Notice.sourceUndo : Notice.sourceMoveReceived)
        }
        try write { db in _ = try db.batch(statements) }
    }

    /// The moves per technician, in the order each technician first appears.
    private static func grouped(_ moves: [MoveResult], by owner: KeyPath<MoveResult, String>) -> [(String, [MoveResult])] {
        var order: [String] = []
        var groups: [String: [MoveResult]] = [:]
        for move in moves {
            if groups[move[keyPath: owner]] == nil { order.append(move[keyPath: owner]) }
            groups[move[keyPath: owner], default: []].append(move)
        }
        return order.map { ($0, groups[$0]!) }
    }
}

extension Notices {
    /// What the technician reads who lost several forms at once: each form, and to whom it went
    /// (under which name).
    static func reassigned(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        if moves.count == 1, let move = moves.first {
            return reassigned(formName: move.oldName, newName: move.newName, to: move.toOwner, by: actor, role: role,
                              reason: reason)
        }
        let forms = moves.map { "'\($0.oldName)' to \($0.toOwner)" + ($0.renamed ? " as '\($0.newName)'" : "") }
        return "\(moves.count) forms were reassigned by \(role) \(actor) (\(forms.joined(separator: ", ")))" + because(reason)
    }

    /// What the technician reads who got several forms at once: each form, and from whom.
    static func received(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        if moves.count == 1, let move = moves.first {
            return received(formName: move.newName, oldName: move.oldName, from: move.fromOwner, by: actor, role: role,
                            reason: reason)
        }
        let forms = moves.map { "'\($0.newName)'" + ($0.renamed ? " (was '\($0.oldName)')" : "") + " from \($0.fromOwner)" }
        return "\(moves.count) forms were given to you by \(role) \(actor) (\(forms.joined(separator: ", ")))" + because(reason)
    }

    /// What the technician reads who loses several forms because their moves to him were undone.
    static func undoneAway(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        if moves.count == 1, let move = moves.first {
            return undoneAway(formName: move.oldName, newName: move.newName, to: move.toOwner, by: actor, role: role,
                              reason: reason)
        }
        let forms = moves.map { "'\($0.oldName)' back to \($0.toOwner)" + ($0.renamed ? " as '\($0.newName)'" : "") }
        return "The moves of \(moves.count) forms to you were undone by \(role) \(actor) (\(forms.joined(separator: ", ")))"
            + because(reason)
    }

    /// What the technician reads who gets several forms back because their moves away were undone.
    static func undoneBack(_ moves: [MoveResult], by actor: String, role: String, reason: String?) -> String {
        if moves.count == 1, let move = moves.first {
            return undoneBack(formName: move.newName, oldName: move.oldName, from: move.fromOwner, by: actor, role: role,
                              reason: reason)
        }
        let forms = moves.map { "'\($0.newName)' from \($0.fromOwner)" + ($0.renamed ? " (named '\($0.oldName)' there)" : "") }
        return "The moves of \(moves.count) forms away from you were undone: they are yours again, by \(role) \(actor) "
            + "(\(forms.joined(separator: ", ")))" + because(reason)
    }
}
