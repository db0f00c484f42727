import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `forms`: the store's live forms, streamed (a million-form listing does not load them all).
public struct FormsCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "forms",
        abstract: "List forms in the store (technicians see their own).",
        discussion: """
            Examples:
              forms
              forms --owner jdoe --state incomplete
              forms --template 'Monthly pump inspection' --older-than 5
              forms --since yesterday                      # changed since yesterday's midnight
              forms --name 'Pump station*' --search leak
              forms --state incomplete --count-by owner    # who has the most incomplete forms
              forms --count-by owner,state
              forms --owner 'u0000*'
              forms --team 'Kolonne Nord' --state completed
              forms --sort expires --expires-before tomorrow    # overdue and due today
              forms --sort modified --since -2h
              forms --owner jdoe --wide                     # with created and the media count

            --owner takes a user id or a glob, as 'users' does (* any run of characters, ? one, \\ \
            makes the next literal). When no form in the store belongs to the owner named, a \
            note on stderr says so (with a "did you mean" for a typo). --name takes a glob on the \
            form's name (ASCII letters in either case). --search finds forms with the text (any \
            case) in an answer: a short answer, a table cell, a chosen option, a number as \
            written, or a technician's comment on a question. --since takes a time as every time option \
            does (2026-11-23T12:00 or 2026-11-23 in display.timeZone, 12:00 today, today, \
            yesterday, -2h, -3d, ISO 8601 with its offset) and compares it \
            with the form's modified time, which every change made on the device or here moves. \
            The expires column is when an incomplete form expires under the policy in force \
            ('policy show'); completed and submitted forms do not expire. --expires-before keeps \
            the forms that expire before the time given (an expires in the past is overdue). \
            --sort orders the listing by expires (soonest first, forms that do not expire last), \
            modified (newest first) or owner (then name, the default); a sorted listing is \
            written once it is read whole. A table leaves out the created time and the media \
            count so a row fits a screen; --wide shows them (CSV and JSON always have them).

            --count-by prints one row per owner, state or template, or per pair (owner,state), \
            with its number of forms (most first), with the same filters. Counted by owner, the \
            directory's technicians the filter covers who have no such form are listed too, \
            with 0. Where the site keeps crews, a \
            foreman sees the forms of the crews he leads (and his own); --team limits to one crew.
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Option(help: ArgumentHelp("Only forms of this technician (a user id, or a glob like 'u0000*').",
                               valueName: "technician"))
    public var owner: String?
    @Option(help: "Only forms in this state (incomplete, completed, submitted).")
    public var state: FormState?
    @Option(help: ArgumentHelp("Only forms made from this template.", valueName: "template"))
    public var template: String?
    @Option(name: .customLong("older-than"), help: ArgumentHelp("Only forms created more than this many days ago.", valueName: "days"))
    public var olderThan: Int?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only forms changed at or after this time (2026-11-23T12:00, 12:00, today, -2h, ...).",
                               valueName: "when"), transform: TimeArgument.init(parsing:))
    public var since: TimeArgument?
    @Option(help: ArgumentHelp("Only forms whose name matches this glob ('Pump*').", valueName: "pattern"))
    public var name: String?
    @Option(help: ArgumentHelp("Only forms with this text in an answer or a question's comment (any case).",
                               valueName: "text"))
    public var search: String?

    @Option(help: ArgumentHelp("Only forms of this crew's technicians (see 'teams').", valueName: "team"))
    public var team: String?

    @Option(help: ArgumentHelp("Order by expires (soonest first), modified (newest first) or owner (the default).",
                               valueName: "order"))
    public var sort: FormOrder?

    @Option(name: .customLong("expires-before"),
            parsing: .unconditional, help: ArgumentHelp("Only incomplete forms that expire before this time (tomorrow, +24h, 2026-11-26T12:00, ...).",
                               valueName: "when"),
            transform: TimeArgument.init(parsing:))
    public var expiresBefore: TimeArgument?

    @Option(name: .customLong("count-by"),
            help: ArgumentHelp("Count the forms per owner, state, template or team (crew), or per two of them "
                               + "(owner,state), instead of listing them.", valueName: "fields"))
    public var countBy: FormFieldList?

    public init() {}

    public func validate() throws {
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than takes a number of days, 0 or more") }
        if let search, search.isEmpty { throw ValidationError("--search takes a text, not an empty one") }
        if countBy != nil, sort != nil || expiresBefore != nil {
            throw ValidationError("--sort and --expires-before order and choose forms to list; --count-by counts them")
        }
    }

    public func run(in session: Session, output: OutputSink) throws {
        let selection = try ListedOwners(asked: self.owner, in: session)
        let store = try session.store()
        var filter = FormFilter(owner: selection.owner, state: state, template: template, olderThanDays: olderThan,
                                modifiedSince: since?.date(now: session.clock.now(), zone: session.display.timeZone),
                                namePattern: name, answerText: search)
        if let team {
            filter.owners = Set(try session.directory.memberIDs(of: session.visibleCrew(team)))
        }
        let owners = try selection.storeOwners(store.listing, filter)
        var found = 0
        if let countBy {
            var counts: [FormCount] = []
            for owner in owners {
                filter.owner = owner
                for group in try store.listing.countForms(by: countBy.fields, filter) {
                    if let index = counts.firstIndex(where: { $0.values == group.values }) {
                        counts[index].count += group.count
                    } else {
                        counts.append(group)
                    }
                }
            }
            found = counts.reduce(0) { $0 + $1.count }
            if countBy.byCrew {
                try CrewCounts.show(counts, fields: countBy, session: session, output: output)
                return
            }
            output.beginRows(countBy.fields.map { Column($0.rawValue) } + [Column("count")])
            for group in counts.sorted(by: FormCount.mostFirst) {
                output.row(group.values.map(Value.string) + [.int(Int64(group.count))])
            }
            if let ownerIndex = countBy.fields.firstIndex(of: .owner) {
                // The technicians without a form, from the directory's listing: their uids only.
                let counted = Set(counts.map { $0.values[ownerIndex] })
                for uid in try selection.technicianIDs(session.directory, among: filter.owners, excluding: counted) {
                    output.row(countBy.fields.map { field in
                        switch field {
                        case .owner: .string(uid)
                        case .state: state.map { .string($0.rawValue) } ?? .null
                        case .template: template.map(Value.string) ?? .null
                        }
                    } + [.int(0)])
                }
            }
            output.endRows()
        } else {
            let policies = try session.ownerPolicies()
            let cutoff = expiresBefore?.date(now: session.clock.now(), zone: session.display.timeZone)
            output.beginRows(FormColumns.listingColumns)
            // Streamed in the store's order; a sort or an expiry cutoff needs each form's expiry
            // under its owner's policy, which only this side knows, so those are read whole first.
            var held: [(form: FormSummary, expires: Date?)] = []
            for owner in owners {
                filter.owner = owner
                try store.listing.forEachForm(filter) {
                    try session.checkpointRow()
                    guard sort != nil || cutoff != nil else {
                        session.recall.saw($0)
                        output.row(FormColumns.listingValues($0, policies: policies))
                        found += 1
                        return
                    }
                    let expires = policies.expires($0)
                    if let cutoff, !(expires.map { $0 < cutoff } ?? false) { return }
                    held.append(($0, expires))
                }
            }
            for entry in (sort ?? .owner).sorted(held) {
                session.recall.saw(entry.form)
                output.row(FormColumns.listingValues(entry.form, policies: policies))
                found += 1
            }
            output.endRows()
        }
        if found == 0, let asked = self.owner, !session.isTechnicianOnly {
            try Self.noteIfNoSuchOwner(asked, store: store.listing, output: output)
        }
    }

    /// `forms --owner jdo` gave 0 rows and no word why: say when no form in the store belongs
    /// to that owner (or to any owner the glob matches), with the nearest owner for a typo: a
    /// note on stderr, not an error.
    static func noteIfNoSuchOwner(_ asked: String, store: any StoreListing, output: OutputSink) throws {
        let glob = Glob(asked)
        let owners = try store.countForms(by: .owner).map(\.value)
        guard !owners.contains(where: { glob.isLiteral ? $0 == asked : glob.matches($0) }) else { return }
        if !glob.isLiteral {
            output.note("no owner of a form in the store matches '\(asked)'")
        } else if let guess = Spelling.closest(to: asked, among: owners) {
            output.note("no form in the store belongs to '\(asked)'; did you mean '\(guess)'?")
        } else {
            output.note("no form in the store belongs to '\(asked)'")
        }
    }
}

extension FormField: ExpressibleByArgument {}

/// `--count-by owner,state`: one or two form fields, each named once; `team` counts by crew:
/// the store counts by owner, and each owner's count goes to each of his crews.
public struct FormFieldList: Sendable, Hashable, ExpressibleByArgument {
    /// What the store counts by (`team` asks it for `owner`).
    public let fields: [FormField]
    /// Whether the `owner` field stands for `team`.
    public let byCrew: Bool

    public init?(argument: String) {
        var fields: [FormField] = []
        var byCrew = false
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let word = part.trimmingCharacters(in: .whitespaces)
            let field: FormField
            if word == "team" {
                guard !byCrew else { return nil }
                byCrew = true
                field = .owner
            } else {
                guard let named = FormField(rawValue: word) else { return nil }
                field = named
            }
            guard !fields.contains(field) else { return nil }
            fields.append(field)
        }
        guard (1...2).contains(fields.count) else { return nil }
        self.fields = fields
        self.byCrew = byCrew
    }

    /// The columns' names: as given (`team` for the owner's place when counting by crew).
    public var names: [String] { fields.map { byCrew && $0 == .owner ? "team" : $0.rawValue } }

    public static var allValueStrings: [String] {
        FormField.allCases.map(\.rawValue) + ["team", "owner,state", "owner,template", "state,template", "team,state"]
    }
}

/// `forms --sort`: the orders a foreman's morning asks for.
public enum FormOrder: String, CaseIterable, Sendable, ExpressibleByArgument {
    case expires, modified, owner

    /// Soonest expiry first (forms that do not expire last); newest change first; by owner and
    /// name. Ties keep the store's order (owner, name, id).
    func sorted(_ forms: [(form: FormSummary, expires: Date?)]) -> [(form: FormSummary, expires: Date?)] {
        switch self {
        case .owner:
            return forms
        case .modified:
            return forms.enumerated().sorted { a, b in
                a.element.form.modified.date != b.element.form.modified.date
                    ? a.element.form.modified.date > b.element.form.modified.date : a.offset < b.offset
            }.map(\.element)
        case .expires:
            return forms.enumerated().sorted { a, b in
                switch (a.element.expires, b.element.expires) {
                case let (x?, y?) where x != y: return x < y
                case (_?, nil): return true
                case (nil, _?): return false
                default: return a.offset < b.offset
                }
            }.map(\.element)
        }
    }
}
