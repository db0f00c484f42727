import ArgumentParser
import MICommands
import MIDirectory
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
        case let error as StoreError:
            // A busy store, or one that cannot be opened or reached (a PostgreSQL server down,
            // TLS failure, database missing), is "unreachable" like a dead directory; the store
            // account refused (wrong password, no permission) is an authentication failure.
            switch error.kind {
            case .busy, .io, .unreachable: return .unreachable
            case .authentication: return .authenticationFailed
            default: return .failure
            }
        default:
            return .failure
        }
    }

    public static func message(for error: Error) -> String {
        switch error {
        case let error as DirectoryError: return error.description
        case let error as CommandError: return error.description
        case let error as ConfigError: return error.description
        case let error as StoreError: return error.description
        case let error as Tokenizer.UnterminatedQuote: return error.description
        case let error as StreamLineSource.CannotRead: return error.description
        default: return String(describing: error)
        }
    }
}
