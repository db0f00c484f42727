import MIDirectory

/// Who may run `--check-config` of the installed (setgid) binary: it binds as the service
/// account and prints its DN, the role groups' member counts, the crews, the site leads and the
/// locked accounts, which are for those who run the site. Root may; any other local account
/// only after a directory login of support staff or a site lead (a foreman who leads every
/// crew). A personal build reads only configs its user can read and is not asked.
enum ConfigCheckAccess {
    static let loginNeeded = "--check-config of the installed miadmin is for root, and for support staff and site leads "
        + "after their directory login"

    /// Why `user` may not run the check, or nil when they may. Nothing of the directory beyond
    /// the user's own roles (and, for a foreman, whether they lead every crew) is read.
    static func refusal(for user: DirectoryUser, directory: Directory) throws -> String? {
        if user.has(.support) { return nil }
        if user.has(.foreman), directory.settings.teams != nil, try directory.ledCrews(of: user, withMembers: false).allCrews { return nil }
        return loginNeeded + "; '\(user.uid)' is " + user.roles.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
