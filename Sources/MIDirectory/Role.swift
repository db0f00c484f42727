/// What a directory user may do in the console, from membership of a configured group
/// (`ldap.groups.<role>`, a groupOfNames whose `member` values are user DNs).
public enum Role: String, CaseIterable, Sendable, Codable, Comparable {
    case foreman, technician, support

    public static func < (a: Role, b: Role) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
