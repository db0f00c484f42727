import MICommands
import MIDirectory

/// A directory of a few users, as the LDAP fixture has them (docs/testing-fixture.md), held in
/// memory. It counts what it is asked, so a test can tell that a refused command asked nothing.
final class FakeDirectory: DirectoryService {
    static let users: [DirectoryUser] = [
        DirectoryUser(uid: "mkhan", dn: "uid=mkhan,ou=people,dc=example,dc=com", name: "Mariam Khan",
                      mail: "mkhan@example.com", roles: [.foreman]),
        DirectoryUser(uid: "tpatel", dn: "uid=tpatel,ou=people,dc=example,dc=com", name: "Tara Patel",
                      mail: "tpatel@example.com", roles: [.foreman, .technician]),
        DirectoryUser(uid: "jdoe", dn: "uid=jdoe,ou=people,dc=example,dc=com", name: "John Doe",
                      mail: "jdoe@example.com", roles: [.technician]),
        DirectoryUser(uid: "asmith", dn: "uid=asmith,ou=people,dc=example,dc=com", name: "Anna Smith",
                      mail: nil, roles: [.technician]),
        DirectoryUser(uid: "lchen", dn: "uid=lchen,ou=people,dc=example,dc=com", name: "Li Chen",
                      mail: "lchen@example.com", roles: [.support]),
        DirectoryUser(uid: "nbody", dn: "uid=nbody,ou=people,dc=example,dc=com", name: "Nora Body",
                      mail: nil, roles: []),
    ]

    static func user(_ uid: String) -> DirectoryUser { users.first { $0.uid == uid }! }

    private(set) var questions: [String] = []

    func user(uid: String) throws -> DirectoryUser? {
        questions.append("user \(uid)")
        return Self.users.first { $0.uid.lowercased() == uid.lowercased() }
    }

    func forEachUser(matching pattern: Glob?, role: Role?, _ body: (DirectoryUser) throws -> Void) throws {
        questions.append("users")
        for user in Self.users where role.map(user.roles.contains) ?? true {
            if let pattern, !pattern.matches(user.uid), !pattern.matches(user.name) { continue }
            try body(user)
        }
    }

    func userIDs(prefix: String, role: Role?, limit: Int) throws -> [String] {
        questions.append("userIDs \(prefix)")
        return Self.users.filter { $0.uid.hasPrefix(prefix) && (role.map($0.roles.contains) ?? true) }
            .map(\.uid).sorted().prefix(limit).map { $0 }
    }
}
