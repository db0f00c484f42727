/// A person in the directory, as the console shows them.
public struct DirectoryUser: Sendable, Equatable {
    public let uid: String
    public let dn: String
    /// The `cn` attribute (display name).
    public let name: String
    public let mail: String?
    /// Sorted, each role once. Empty for a user in no role group.
    public let roles: [Role]
    /// Why the account cannot log in, as its entry says (``AccountState/init(entry:)``: disabled,
    /// locked); nil for a usable account, and for every user of a listing that did not ask for
    /// the states (``Directory/forEachUser(matching:role:accountStates:_:)``). Such an account must
    /// not receive forms.
    public let accountState: AccountState?

    public init(uid: String, dn: String, name: String, mail: String?, roles: [Role], accountState: AccountState? = nil) {
        self.uid = uid
        self.dn = dn
        self.name = name
        self.mail = mail
        self.roles = Array(Set(roles)).sorted()
        self.accountState = accountState
    }

    /// For roles already in `Role.allCases` order, each once (the listing's hot path).
    init(uid: String, dn: String, name: String, mail: String?, orderedRoles: [Role], accountState: AccountState?) {
        self.uid = uid
        self.dn = dn
        self.name = name
        self.mail = mail
        self.roles = orderedRoles
        self.accountState = accountState
    }

    public func has(_ role: Role) -> Bool { roles.contains(role) }
}
