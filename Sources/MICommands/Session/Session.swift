import Foundation
import Logging
import MIDirectory

/// What every command receives: who is logged in, the configuration and the open
/// connections. One per console process.
public final class Session {
    public let config: AppConfig
    public let user: DirectoryUser
    public let directory: Directory
    public let logger: Logger

    public init(config: AppConfig, user: DirectoryUser, directory: Directory, logger: Logger) {
        self.config = config
        self.user = user
        self.directory = directory
        self.logger = logger
    }

    /// Throws unless the logged-in user holds one of `roles`, naming the roles needed.
    public func require(_ roles: Set<Role>, for command: String) throws {
        guard !roles.isDisjoint(with: user.roles) else {
            let needed = roles.sorted().map(\.rawValue).joined(separator: " or ")
            let held = user.roles.map(\.rawValue).joined(separator: ", ")
            throw CommandError.permissionDenied("'\(command)' needs the \(needed) role; you are \(held)")
        }
    }
}
