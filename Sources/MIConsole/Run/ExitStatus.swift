import ArgumentParser
import MICommands
import MIDirectory
import MIOutbound
import MIStore

/// The process exit codes (docs/exit-codes.md). Modelled on psql: distinct codes for a
/// connection failure and for a script that stopped at an error.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    /// A usage error, a bad config, or a failed command.
    case failure = 1
    /// The directory or the store could not be reached (including a TLS failure or a busy store).
    case unreachable = 2
    /// A script (`-f`, a pipe, several commands) stopped at a failing command.
    case scriptStopped = 3
    /// Authentication failed: wrong or empty password, unknown user, or no role.
    case authenticationFailed = 4
    /// `deliver` held deliveries in this run: a person must look ('deliveries --state held').
    case deliveriesHeld = 5
    /// SIGHUP (the terminal or session ended) stopped a script: 128 + 1.
    case hungUp = 129
    /// Ctrl-C (SIGINT) ended a script: 128 + 2, as shells report it.
    case interrupted = 130
    /// SIGTERM (a timer's stop, `kill`) stopped a script: 128 + 15.
    case terminated = 143
}

extension ExitStatus {
    /// A script that went on past its failures (`--on-error continue`): 2 when every failure
    /// was transient (the store busy, the directory, store or office unreachable), so a timer
    /// can tell "try later" from a script to fix; 3 for any other failure among them.
    static func ofContinuedScript(_ failures: [ExitStatus]) -> ExitStatus {
        !failures.isEmpty && failures.allSatisfy { $0 == .unreachable } ? .unreachable : .scriptStopped
    }
}

/// Turns any error into the message to print and the exit status it means.
public enum ErrorReport {
    public static func status(for error: Error) -> ExitStatus {
        switch error {
        case let error as DirectoryError:
            switch error.kind {
            case .unreachable, .tls, .serviceBindFailed: return .unreachable
            case .authenticationFailed, .accountUnusable, .noRole: return .authenticationFailed
            case .configuration, .operationFailed: return .failure
            }
        case is Interrupted:
            return .interrupted
        case let error as StoreError:
            // A busy store, or one that cannot be opened or reached (a PostgreSQL server down,
            // TLS failure, database missing), is "unreachable" like a dead directory; the store
            // account refused (wrong password, no permission) is an authentication failure.
            if error.isTransient { return .unreachable }
            return error.kind == .authentication ? .authenticationFailed : .failure
        case is DeliveriesHeld:
            return .deliveriesHeld
        case is OutboundFailure:
            // deliver / remind: the office or the mail server could not be reached (or said "later").
            return .unreachable
        case let error as OutboundError:
            return error.kind == .unreachable || error.kind == .tls ? .unreachable : .failure
        default:
            return .failure
        }
    }

    /// The message of `error`, in the console's one style (``MessageStyle``).
    public static func message(for error: Error) -> String {
        MessageStyle.sentence(text(of: error))
    }

    private static func text(of error: Error) -> String {
        switch error {
        case let error as DirectoryError: return error.description
        case let error as CommandError: return error.description
        case let error as Interrupted: return error.description
        case let error as ConfigError: return error.description
        case let error as StoreError where error.kind == .busy:
            // The store knows no config keys: the console names the setting.
            return error.description + " The setting is store.busyTimeoutSeconds in the config file."
        case let error as StoreError: return error.description
        case let error as OutboundFailure: return error.description
        case let error as DeliveriesHeld: return error.description
        case let error as OutboundError: return error.description
        case let error as LineLexer.UnterminatedQuote: return error.description
        case let error as StreamLineSource.CannotRead: return error.description
        default: return String(describing: error)
        }
    }
}

extension OutputStream {
    /// A failure as the console prints it on stderr: `miadmin: ` and the message, with its
    /// control characters escaped (a message may carry a server's or a file's text).
    func writeFailure(_ message: String) {
        write("miadmin: " + TerminalText.escape(message, keepNewlines: false) + "\n")
    }

    /// ``writeFailure(_:)`` of `error`'s message (``ErrorReport/message(for:)``).
    func writeFailure(_ error: any Error) {
        writeFailure(ErrorReport.message(for: error))
    }
}
