/// A person in the directory, as the console shows them.
public struct DirectoryUser: Sendable, Equatable {
    public let uid: String
    public let dn: String
    /// The `cn` attribute (display name).
    public let name: String
    public let mail: String?
    /// Sorted, each role once. Empty for a user in no role group.
    public let roles: [Role]

    public init(uid: String, dn: String, name: String, mail: String?, roles: [Role]) {
        self.uid = uid
        self.dn = dn
        self.name = name
        self.mail = mail
        self.roles = Array(Set(roles)).sorted()
    }

    /// For roles already in `Role.allCases` order, each once (the listing's hot path).
    init(uid: String, dn: String, name: String, mail: String?, orderedRoles: [Role]) {
        self.uid = uid
        self.dn = dn
        self.name = name
        self.mail = mail
        self.roles = orderedRoles
    }

    public func has(_ role: Role) -> Bool { roles.contains(role) }
}
