import ArgumentParser
import Foundation
import MIDirectory
import MIStore

extension Delivery.State: ExpressibleByArgument {}

/// `deliveries`: the outbox — what was sent to the office, what waits, what is held — and
/// `deliveries retry` to put held ones back.
public struct DeliveriesCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "deliveries",
        abstract: "List deliveries of submitted forms to the office; retry or dismiss held ones.",
        discussion: """
            Examples:
              deliveries --state held
              deliveries --form 8 --format json
              deliveries retry 1
              deliveries retry --held
              deliveries dismiss 1 --note 'reopened; resubmitted as a new version'
            """,
        subcommands: [DeliveriesListCommand.self, DeliveriesRetryCommand.self, DeliveriesDismissCommand.self],
        defaultSubcommand: DeliveriesListCommand.self)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    /// Never run: the parser always picks a subcommand (`list` by default).
    public func run(in session: Session, output: OutputSink) throws {
        try DeliveriesListCommand().run(in: session, output: output)
    }

    static let columns = [Column("id"), Column("form"), Column("owner"), Column("name"), Column("version"),
                          Column("state"), Column("attempts"), Column("lastTry"), Column("nextTry"),
                          Column("sent"), Column("lastError"), Column("idempotencyKey")]

    static func values(_ d: Delivery) -> [Value] {
        [.int(d.id), .int(d.formId), .string(d.owner), .string(d.name), .int(Int64(d.formVersion)),
         .string(d.state.rawValue), .int(Int64(d.attempts)), d.lastTry.map(Value.time) ?? .null,
         d.state == .queued ? .time(d.nextTry) : .null, d.sentAt.map(Value.time) ?? .null,
         .optional(d.lastError), .string(d.idempotencyKey)]
    }
}

/// `deliveries list [--state S] [--form FORM]`.
public struct DeliveriesListCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List deliveries: form, state, tries, last and next try, last error.",
        discussion: """
            queued: waiting for its next try; sent: the office took it; held: not tried again \
            until 'deliveries retry' (the office refused it, or the tries ran out), or, when the \
            form was reopened before it went out, until 'deliveries dismiss' ends it or a new \
            submit queues the new version.
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(help: ArgumentHelp("Only deliveries in this state.", valueName: "queued|sent|held"))
    public var state: Delivery.State?
    @Option(help: ArgumentHelp("Only deliveries of this form (id, or owner/name of a live form).", valueName: "form"))
    public var form: FormReference?

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        var filter = DeliveryFilter(state: state)
        switch form {
        case .id(let id)?: filter.formId = id
        case let reference?: filter.formId = try store.listing.form(reference).id
        case nil: break
        }
        output.beginRows(DeliveriesCommand.columns)
        try store.outbox.forEachDelivery(filter) { output.row(DeliveriesCommand.values($0)) }
        output.endRows()
    }
}

/// `deliveries retry ID|--held`: held deliveries go back in the queue, due now; audited.
public struct DeliveriesRetryCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Put a held delivery (or every held one) back in the queue.",
        discussion: """
            The delivery is due at once with its tries counted from zero; the next 'deliver' \
            sends it with the same Idempotency-Key. Audited (deliveries.retry).

            Examples:
              deliveries retry 1 --note 'office fixed the template mapping'
              deliveries retry --held
            """)
    /// Support fixes stuck forms anywhere: a delivery the office held once its cause is fixed too.
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The delivery's id (from 'deliveries').", valueName: "id"))
    public var id: Int64?
    @Flag(help: "Every held delivery.")
    public var held = false
    @OptionGroup public var note: NoteOption
    @OptionGroup public var dryRun: DryRunOption

    public init() {}

    public func validate() throws {
        guard (id != nil) == held else { return }
        throw ValidationError("name one delivery id, or --held for every held delivery")
    }

    public func run(in session: Session, output: OutputSink) throws {
        try session.changing(dryRun: dryRun.dryRun, output: output) {
            let retried = try session.store().outbox.retryDeliveries(held ? nil : id, actor: session.user.uid, note: note.note)
            output.beginRows(DeliveriesCommand.columns)
            for delivery in retried {
                // Read inside the change's transaction: a dry run shows the deliveries as the retry left them.
                output.row(DeliveriesCommand.values(try session.store().outbox.delivery(delivery.id)))
            }
            output.endRows()
        }
    }
}
