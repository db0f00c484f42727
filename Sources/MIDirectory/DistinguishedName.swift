import CLDAP

/// DN comparison. Group `member` values and entry DNs name the same person in forms that may
/// differ in spacing, escaping (`\2C` vs `\,`) and case; libldap's parser normalizes the syntax
/// and we fold case (uid, cn and dc values compare case-insensitively in every schema we meet).
public enum DistinguishedName {
    public static func normalized(_ dn: String) -> String {
        if let simple = lowercasedIfSimple(dn.utf8) { return simple }
        return normalizedByLibldap(dn)
    }

    /// Whether `dn` normalizes to `key` (a ``normalized(_:)`` result). A simple DN (see
    /// ``lowercasedIfSimple(_:)``) is compared byte by byte, lower-cased on the way, with no
    /// string built: the listing asks this for every `memberOf` value of every user.
    public static func matches(_ dn: String, normalizedKey key: String) -> Bool {
        let simple: Bool?? = dn.utf8.withContiguousStorageIfAvailable { bytes in
            key.utf8.withContiguousStorageIfAvailable { keyBytes -> Bool? in
                guard bytes.count == keyBytes.count else {
                    // A simple DN normalizes to its own length; otherwise libldap decides.
                    return isSimple(bytes) ? false : nil
                }
                var previous: UInt8 = UInt8(ascii: ",")
                var equal = true
                for (byte, keyByte) in zip(bytes, keyBytes) {
                    guard let lowered = simpleByte(byte, after: previous) else { return nil }
                    if lowered != keyByte { equal = false }
                    previous = byte
                }
                return previous == UInt8(ascii: " ") ? nil : equal
            } ?? nil
        }
        // Not simple, or not stored contiguously (a bridged string): compare normalized forms.
        return (simple ?? nil) ?? (normalized(dn) == key)
    }

    private static func isSimple(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = UInt8(ascii: ",")
        for byte in bytes {
            guard simpleByte(byte, after: previous) != nil else { return false }
            previous = byte
        }
        return previous != UInt8(ascii: " ")
    }

    /// `byte` lower-cased if it may appear at this place of a simple DN (the rules of
    /// ``lowercasedIfSimple(_:)``), nil if it makes the DN not simple.
    @inline(__always)
    private static func simpleByte(_ byte: UInt8, after previous: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return byte
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return byte + 32
        case UInt8(ascii: "="), UInt8(ascii: ","):
            return previous == UInt8(ascii: " ") ? nil : byte
        case UInt8(ascii: " "):
            return previous == UInt8(ascii: ",") || previous == UInt8(ascii: "=") || previous == UInt8(ascii: " ")
                ? nil : byte
        default:
            return nil
        }
    }

    /// The same normalization for a value straight from libldap's buffer (group members).
    public static func normalized(bytes: UnsafeRawBufferPointer) -> String {
        if let simple = lowercasedIfSimple(bytes) { return simple }
        return normalizedByLibldap(String(decoding: bytes, as: UTF8.self))
    }

    /// A DN of plain ASCII letters, digits, `=`, `,`, `-`, `.`, `_` and inner spaces (no escapes,
    /// quotes, `+` or spaces around separators) is already in LDAPv3 string form, so lowercasing
    /// is all libldap's normalization would do. Most DNs are like this; skipping the C parser
    /// for them halves the cost of matching a 100,000-member group.
    static func lowercasedIfSimple<Bytes: Sequence>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount)
        var previous: UInt8 = UInt8(ascii: ",")  // as if after a separator: no leading space
        for byte in bytes {
            guard let lowered = simpleByte(byte, after: previous) else { return nil }
            out.append(lowered)
            previous = byte
        }
        if previous == UInt8(ascii: " ") || out.isEmpty { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    static func normalizedByLibldap(_ dn: String) -> String {
        var out: UnsafeMutablePointer<CChar>?
        let rc = ldap_dn_normalize(dn, UInt32(LDAP_DN_FORMAT_LDAP), &out, UInt32(LDAP_DN_FORMAT_LDAPV3))
        guard rc == LDAP_SUCCESS, let out else { return dn.lowercased() }
        defer { ldap_memfree(out) }
        return String(cString: out).lowercased()
    }
}
