import ArgumentParser
import Foundation
import MIDirectory
import MIOutbound
import MIStore

/// `deliver [--now]`: sends the submitted forms waiting in the outbox to the office (config
/// `delivery`), one HTTPS post each; what happened to each is recorded in the store.
public struct DeliverCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Send submitted forms waiting in the outbox to the office.",
        discussion: """
            Each due delivery is one HTTPS POST (multipart/form-data: a 'form' part with the \
            review as JSON, one 'media' part per file) with an Idempotency-Key header that is the \
            same on every try of the same form version. 2xx: sent. No answer, 408, 429 or 5xx: \
            tried again later (exponential backoff with jitter, or the office's Retry-After), held \
            after delivery.maxAttempts tries. Any other answer: held at once with the office's \
            reason ('deliveries retry' puts it back). --now also sends those whose next try has \
            not come yet.

            deliver is site-wide: it sends the whole queue whoever runs it, so a timer under any \
            foreman's account delivers every crew's forms. Where the site keeps crews, the rows \
            name your crews' forms only; the others are counted in a closing line.

            Exit status 2 when the office cannot be reached, its certificate does not verify, or \
            it asked to come back later: what was not sent stays queued. Usually run by the \
            miadmin-deliver timer (docs/install.md).

            Examples:
              deliver
              deliver --now
            """)
    public static let roles: Set<Role> = [.foreman]

    @Flag(help: "Also send deliveries whose next try has not come yet (ignore the backoff).")
    public var now = false

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        guard let settings = session.config.delivery else {
            throw CommandError.failed("no delivery configured: set delivery.url in \(session.config.file) (docs/configuration.md)")
        }
        let store = try session.store()
        try Self.refuseInSessionTransaction(store.administration, "deliver")
        let due = try store.outbox.dueDeliveries(ignoringBackoff: now)
        // The whole queue is sent; only the rows of forms outside the user's crews are left out.
        let scope = try session.crewReach().scope
        var othersTried = 0
        output.beginRows([Column("delivery"), Column("form"), Column("owner"), Column("name"), Column("state"),
                          Column("attempts"), Column("status"), Column("nextTry"), Column("error")])
        func row(_ report: DeliveryReport) {
            let d = report.delivery
            guard scope.allows(d.owner) else {
                othersTried += 1
                return
            }
            output.row([.int(d.id), .int(d.formId), .string(d.owner), .string(d.name), .string(d.state.rawValue),
                        .int(Int64(d.attempts)), report.status.map { .int(Int64($0)) } ?? .null,
                        d.state == .queued ? .time(d.nextTry) : .null, .optional(d.lastError)])
        }
        var stopped: DeliveryStopped?
        var later = 0, held = 0, withdrawn = 0
        if !due.isEmpty {
            let token = try settings.tokenFile.map { file in
                String(decoding: try session.config.readSecret("delivery.tokenFile", file, privileged: false,
                                                               warn: output.warning), as: UTF8.self)
            }
            let sender = try FormDelivery(store: store.outbox, settings: settings, token: token, clock: session.clock)
            for delivery in due {
                do {
                    let report = try sender.send(delivery)
                    row(report)
                    if case .retry = report.outcome { later += 1 }
                    if case .held = report.outcome {
                        if report.withdrawn { withdrawn += 1 } else { held += 1 }
                    }
                } catch let error as DeliveryStopped {
                    row(error.report)
                    stopped = error
                    break
                }
            }
        }
        output.endRows()
        if othersTried > 0 {
            output.note("and \(othersTried) delivery(ies) of other crews' forms (deliver sends the whole queue)")
        }
        // Held needs a person (the office refused, or the tries ran out): said before "later".
        if held + withdrawn > 0 {
            throw DeliveriesHeld(count: held, withdrawn: withdrawn, alsoUnsent: stopped != nil || later > 0)
        }
        if let stopped {
            let left = due.count - (due.firstIndex { $0.id == stopped.report.delivery.id } ?? 0)
            throw OutboundFailure(message: "the office could not be reached: \(stopped.error.message); "
                                  + "\(left) delivery(ies) stay queued")
        }
        if later > 0 {
            throw OutboundFailure(message: "the office could not take \(later) delivery(ies) now; they stay queued "
                                  + "for their next try ('deliveries --state queued')")
        }
    }
}

extension ConsoleCommand {
    /// What goes to the office or a mailbox cannot be rolled back: `deliver` and `remind` do not
    /// run inside `--atomic` or `--dry-run` (whose rollback would also forget what was sent).
    static func refuseInSessionTransaction(_ store: any StoreAdministration, _ name: String) throws {
        guard store.isInSessionTransaction else { return }
        throw CommandError.failed("'\(name)' sends mail or posts to the office, which no rollback can undo: "
                                  + "run it without --atomic or --dry-run (remind has its own --dry-run)")
    }
}

/// `deliver` held deliveries in this run: the office refused them (4xx, a redirect) or their
/// tries ran out, or their form was reopened (the version queued is no longer the form's). They
/// wait for a person, `deliveries retry` or `deliveries dismiss` (its own exit status, 5, so a
/// timer does not look green).
public struct DeliveriesHeld: Error, Sendable, CustomStringConvertible {
    /// Held because the office did not take them.
    public let count: Int
    /// Held without asking the office: the form was reopened.
    public var withdrawn = 0
    /// Others were not sent this time either (the office unreachable, or "later").
    public let alsoUnsent: Bool
    public var description: String {
        var parts: [String] = []
        if count > 0 {
            parts.append("\(count) delivery(ies) newly held: the office did not take them ('deliveries --state held' says why; "
                         + "'deliveries retry' once it is fixed)")
        }
        if withdrawn > 0 {
            parts.append("\(withdrawn) delivery(ies) newly held: the form was reopened; dismiss or resubmit "
                         + "('deliveries dismiss ID --note TEXT', or a new submit)")
        }
        return parts.joined(separator: "; ") + (alsoUnsent ? "; others stay queued for their next try" : "")
    }
}

/// `deliver` or `remind` could not do all due work because a server could not be reached or
/// refused for now (exit 2); what was done is recorded.
public struct OutboundFailure: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
