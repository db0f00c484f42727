/// Everything the directory client needs, already validated and with the service account's
/// password read from its file (never from the config file itself).
public struct DirectorySettings: Sendable {
    public var connection: ConnectionSettings
    public var baseDN: String
    public var userBase: String
    /// The attribute a user id is looked up by (default `uid`).
    public var userAttribute: String
    /// Service account for the user lookup; nil binds anonymously.
    public var bindDN: String?
    public var bindPassword: [UInt8]?
    /// Group DN for each role.
    public var groups: [Role: String]

    public init(connection: ConnectionSettings, baseDN: String, userBase: String, userAttribute: String = "uid",
                bindDN: String?, bindPassword: [UInt8]?, groups: [Role: String]) {
        self.connection = connection
        self.baseDN = baseDN
        self.userBase = userBase
        self.userAttribute = userAttribute
        self.bindDN = bindDN
        self.bindPassword = bindPassword
        self.groups = groups
    }
}
