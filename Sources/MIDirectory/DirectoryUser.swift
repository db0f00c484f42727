/// A person in the directory, as the console shows them.
public struct DirectoryUser: Sendable, Equatable {
    public let uid: String
    public let dn: String
    /// The `cn` attribute (display name).
    public let name: String
    public let mail: String?
    /// Sorted, each role once. Empty for a user in no role group.
    public let roles: [Role]
    /// The account is disabled (Active Directory `userAccountControl` bit 2): it cannot log in
    /// and must not receive forms.
    public let isDisabled: Bool

    public init(uid: String, dn: String, name: String, mail: String?, roles: [Role], isDisabled: Bool = false) {
        self.uid = uid
        self.dn = dn
        self.name = name
        self.mail = mail
        self.roles = Array(Set(roles)).sorted()
        self.isDisabled = isDisabled
    }

    /// For roles already in `Role.allCases` order, each once (the listing's hot path).
    init(uid: String, dn: String, name: String, mail: String?, orderedRoles: [Role], isDisabled: Bool) {
        self.uid = uid
        self.dn = dn
        self.name = name
        self.mail = mail
        self.roles = orderedRoles
        self.isDisabled = isDisabled
    }

    public func has(_ role: Role) -> Bool { roles.contains(role) }
}
