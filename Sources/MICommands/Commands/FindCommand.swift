import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `find FORM`: "my form vanished" in one answer: where the form is now (live with its owner,
/// in the trash, purged) and how it got there, from its audit rows, and what became of its
/// delivery.
public struct FindCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Where a form is now and how it got there (moves, trash, purge, delivery).",
        discussion: """
            FORM is an id, owner/name, or a name alone, which finds every form of that name, \
            whoever holds it now. owner/name also finds a form by a name it had: moved to \
            another technician (and renamed there), it is found under its old owner and name. \
            A name is taken as 'forms --name' takes it: a glob ('Pump*'; '?' one character, \
            '\\' makes the next literal), ASCII letters in either case. \
            One form found: where it is now, its owner and name there, its state, since when it \
            is in the trash, its delivery to the office, and its history, one event a line \
            (each audit row: when, what, who, from and to). Several: one row each, without the \
            history; 'find ID' shows one's.

            Examples:
              find 12
              find 'jdoe/Pump station 4'
              find 'Pump station 4'
              find 'pump*'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("An id, owner/name, or a form name alone (a glob, either case).", valueName: "form"))
    public var form: String

    public init() {}

    public func validate() throws {
        if form.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("find takes a form: an id, owner/name or a name") }
    }

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let found = try store.listing.whereabouts(FindTarget(form), limit: 20)
        guard !found.isEmpty else {
            throw CommandError.failed("no form '\(form)' now, in the trash or in the audit trail")
        }
        let times = TimeText(zone: session.display.timeZone)
        let columns = [Column("id"), Column("now"), Column("owner"), Column("name"), Column("state"),
                       Column("trashed"), Column("delivery"), Column("next")]
        func values(_ place: FormWhereabouts) throws -> [Value] {
            var latest: Delivery?
            try store.outbox.forEachDelivery(DeliveryFilter(formId: place.formId)) { latest = $0 }
            return [.int(place.formId), .string(Self.now(place)), .string(place.owner), .string(place.name),
                    .optional(place.state), place.trashedAt.map(Value.time) ?? .null,
                    latest.map { .string(Self.delivery($0, times: times)) } ?? .null, .optional(Self.next(place))]
        }
        guard found.count == 1, let place = found.first else {
            output.beginRows(columns)
            for place in found { output.row(try values(place)) }
            output.endRows()
            output.note("\(found.count) forms match '\(form)'; 'find ID' shows where one is and how it got there")
            return
        }
        var history: [Value] = []
        try store.listing.forEachAuditEntry(AuditFilter(form: .id(place.formId))) { history.append(Self.step($0)) }
        output.record(columns + [Column("history")], try values(place) + [.list(history)])
    }

    static func now(_ place: FormWhereabouts) -> String {
        switch place.place {
        case .live: "with \(place.owner)"
        case .trash: "in the trash"
        case .purged: "purged"
        }
    }

    /// What to type next for a form that is not where its owner looks.
    static func next(_ place: FormWhereabouts) -> String? {
        switch place.place {
        case .live: "show \(place.formId)"
        case .trash: "restore \(place.formId)"
        case .purged: nil
        }
    }

    /// One audit row as one event of the history, a line of its own in a table: when, what, who,
    /// from where to where (`jdoe/'Pump station 4'` -> `zangstrom/'Pump station 4 (2)'`), and the note.
    static func step(_ entry: AuditEntry) -> Value {
        func place(_ text: String?) -> String? {
            guard let text, case .object(let object)? = try? JSONValue.parse(Data(text.utf8)),
                  case .string(let owner)? = object["owner"], case .string(let name)? = object["name"] else { return nil }
            return "\(owner)/'\(name)'"
        }
        var from = place(entry.before), to = place(entry.after)
        if from == to { (from, to) = (nil, nil) }
        return .object([.init("at", .time(entry.at)), .init("event", .string(entry.command)), .init("by", .string(entry.actor)),
                        .init("from", .optional(from)), .init("to", .optional(to)), .init("note", .optional(entry.note))])
    }

    static func delivery(_ delivery: Delivery, times: TimeText) -> String {
        switch delivery.state {
        case .sent: "sent to the office " + (delivery.sentAt.map(times.table) ?? "")
        case .queued: "queued, next try \(times.table(delivery.nextTry))"
        case .held: "held: " + (delivery.lastError ?? "see 'deliveries'")
        }
    }

    /// `error`, a lookup of `reference` that found nothing, with where the form went added for
    /// those who may run `find` (`show`, `media`, `move`); as it was for anyone else, and when
    /// the form is nowhere else.
    static func pointing(_ error: StoreError, _ reference: FormReference, in session: Session) -> StoreError {
        guard roles.contains(where: session.user.has), let hint = whereItWent(reference, in: session) else { return error }
        var message = error.message
        if message.hasSuffix(".") { message.removeLast() }
        return StoreError(.notFound, message + "; " + hint + ".")
    }

    /// The hint a lookup that missed adds: where the form it named went, if it went somewhere
    /// (`it was moved to zangstrom as 'Pump station 4 (2)' on …; see 'find 10'`); nil when the
    /// audit trail knows nothing of it, or the form is where it was asked for.
    static func whereItWent(_ reference: FormReference, in session: Session) -> String? {
        guard let store = try? session.store(),
              let place = (try? store.listing.whereabouts(.reference(reference), limit: 1))?.first else { return nil }
        let times = TimeText(zone: session.display.timeZone)
        switch place.place {
        case .trash:
            return "it is in the trash since \(place.trashedAt.map(times.table) ?? "?") ('restore \(place.formId)'); see 'find \(place.formId)'"
        case .purged:
            return "it was purged from the trash; see 'find \(place.formId)'"
        case .live:
            if case .path(let owner, let name) = reference, owner == place.owner, name == place.name { return nil }
            return "it is now \(place.owner)'s, as '\(place.name)'; see 'find \(place.formId)'"
        }
    }
}
