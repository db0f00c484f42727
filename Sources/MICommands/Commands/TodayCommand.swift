import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `today`: the morning's one screen. What is overdue or expires within 24 hours, what waits
/// for review, deliveries the office held, unread notices, and technicians with more open forms
/// than `display.workloadLimit`; each row names the command that lists it in full.
public struct TodayCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "The morning's overview: overdue and expiring, to review, held deliveries, notices, overloaded.",
        discussion: """
            One row per question of the morning, with how many, the first few (id and name, or \
            the technician), and the command that lists them all. Where the site keeps crews, a \
            foreman sees his crews'. A technician is overloaded with more incomplete forms than \
            display.workloadLimit in the config (default 25).

            Examples:
              today
              today --format json
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    /// How many of each section the row names.
    static let shown = 5

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let now = session.clock.now()
        let policies = try session.ownerPolicies()
        let soon = now.addingTimeInterval(86_400)
        let times = TimeText(zone: session.display.timeZone)

        var overdue: [String] = [], expiring: [String] = [], overdueCount = 0, expiringCount = 0
        var due: [(FormSummary, Date)] = []
        try store.listing.forEachForm(FormFilter(state: .incomplete)) { form in
            try session.checkpointRow()
            guard let expires = policies.expires(form), expires < soon else { return }
            due.append((form, expires))
        }
        for (form, expires) in due.sorted(by: { $0.1 < $1.1 }) {
            let item = "\(form.id) \(form.owner)/'\(form.name)' \(times.table(expires))"
            if expires <= now {
                overdueCount += 1
                if overdue.count < Self.shown { overdue.append(item) }
            } else {
                expiringCount += 1
                if expiring.count < Self.shown { expiring.append(item) }
            }
        }

        var review: [String] = [], reviewCount = 0
        try store.listing.forEachForm(FormFilter(state: .completed)) { form in
            try session.checkpointRow()
            reviewCount += 1
            if review.count < Self.shown { review.append("\(form.id) \(form.owner)/'\(form.name)'") }
        }

        var held: [String] = [], heldCount = 0
        try store.outbox.forEachDelivery(DeliveryFilter(state: .held)) { delivery in
            heldCount += 1
            if held.count < Self.shown { held.append("\(delivery.id) form \(delivery.formId) '\(delivery.name)'") }
        }

        let notices = try store.listing.notices(for: session.user.uid, unreadOnly: true)

        let limit = session.config.display.workloadLimit
        let loads = try session.workloads(of: []).filter { $0.workload.incomplete > limit }
            .sorted { $0.workload.incomplete > $1.workload.incomplete }

        output.beginRows([Column("what"), Column("count"), Column("first", fit: .cut), Column("all", fit: .leftOut)])
        func row(_ what: String, _ count: Int, _ first: [String], _ command: String) {
            output.row([.string(what), .int(Int64(count)), .list(first.map(Value.string)), .string(command)])
        }
        row("overdue", overdueCount, overdue, "forms --sort expires --expires-before now")
        row("expires within 24 h", expiringCount, expiring, "forms --sort expires --expires-before +24h")
        row("completed, to review", reviewCount, review, "forms --state completed")
        row("deliveries held", heldCount, held, "deliveries --state held")
        row("unread notices", notices.count, notices.prefix(Self.shown).map { "\(times.table($0.created)) \($0.text)" }, "notices")
        row("more than \(limit) incomplete", loads.count,
            loads.prefix(Self.shown).map { "\($0.uid) \($0.workload.incomplete)" }, "workload --nonzero")
        output.endRows()
    }
}
