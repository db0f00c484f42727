import CLDAP

/// DN comparison. Group `member` values and entry DNs name the same person in forms that may
/// differ in spacing, escaping (`\2C` vs `\,`) and case; libldap's parser normalizes the syntax
/// and we fold case (uid, cn and dc values compare case-insensitively in every schema we meet).
public enum DistinguishedName {
    public static func normalized(_ dn: String) -> String {
        var out: UnsafeMutablePointer<CChar>?
        let rc = ldap_dn_normalize(dn, UInt32(LDAP_DN_FORMAT_LDAP), &out, UInt32(LDAP_DN_FORMAT_LDAPV3))
        guard rc == LDAP_SUCCESS, let out else { return dn.lowercased() }
        defer { ldap_memfree(out) }
        return String(cString: out).lowercased()
    }
}
