import Foundation

extension FormStore {
    /// Tells each technician, and each crew's foreman, once of a change of many forms: a bulk
    /// move (`move 'jdoe/*' zangstrom,u00010`) or its undo, whose moves were made with
    /// `notifies: false`. Each technician who lost forms gets one notice naming them and where
    /// each went, each who got forms one naming them and where each came from; for an undo both
    /// say "undone". Each foreman of a crew the forms left or came into gets one notice naming
    /// them. Whoever has one form of the change reads what a single move says. In one
    /// transaction (the caller's, when it runs in one: an undo's).
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
        if let naming = crewNaming {
            var foremen: [String] = []
            var told: [String: [(move: MoveResult, crews: CrewForemanToTell)]] = [:]
            for move in moves {
                for crews in try naming.foremenToTell(movedFrom: move.fromOwner, to: move.toOwner, actor: actor) {
                    if told[crews.foreman] == nil { foremen.append(crews.foreman) }
                    told[crews.foreman, default: []].append((move, crews))
                }
            }
            for foreman in foremen {
                let items = told[foreman]!
                tell(foreman, items.map(\.move), Notices.movedForCrew(items, by: actor, role: actorRole, reason: note),
                     source: Notice.sourceMoveIntoCrew)
            }
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

    /// What a crew's foreman reads of several forms of his crews that changed hands at once:
    /// each form, from whom to whom.
    static func movedForCrew(_ items: [(move: MoveResult, crews: CrewForemanToTell)], by actor: String, role: String,
                             reason: String?) -> String {
        if items.count == 1, let (move, crews) = items.first {
            return movedForCrew(formName: move.newName, crews, to: move.toOwner, from: move.fromOwner, by: actor, role: role,
                                reason: reason)
        }
        let crews = Set(items.flatMap { $0.crews.from + $0.crews.into }).sorted()
        let forms = items.map { "'\($0.move.newName)' from \($0.move.fromOwner) to \($0.move.toOwner)" }
        return "\(items.count) forms of your crew (\(crews.joined(separator: ", "))) changed hands by \(role) \(actor) "
            + "(\(forms.joined(separator: ", ")))" + because(reason)
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
