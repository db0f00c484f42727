/// A command that could not do what was asked, for a reason the user can act on.
/// The console prints the message and exits 1 (3 when a script stops on it).
public enum CommandError: Error, Sendable, CustomStringConvertible, Equatable {
    case permissionDenied(String)
    case failed(String)

    public var description: String {
        switch self {
        case .permissionDenied(let message), .failed(let message): return message
        }
    }
}
