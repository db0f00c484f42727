import CLDAP

/// DN comparison. Group `member` values and entry DNs name the same person in forms that may
/// differ in spacing, escaping (`\2C` vs `\,`) and case; libldap's parser normalizes the syntax
/// and we fold case (uid, cn and dc values compare case-insensitively in every schema we meet).
public enum DistinguishedName {
    /// Whether `dn` names an entry below `base` (not `base` itself), compared as normalized DNs.
    /// A comma that a backslash escapes is part of a value, not a separator.
    public static func isBelow(_ dn: String, _ base: String) -> Bool {
        let entry = Array(normalized(dn).utf8), parent = Array(("," + normalized(base)).utf8)
        guard parent.count > 1, entry.count > parent.count, entry.suffix(parent.count).elementsEqual(parent) else { return false }
        let backslashes = entry[..<(entry.count - parent.count)].reversed().prefix { $0 == UInt8(ascii: "\\") }.count
        return backslashes % 2 == 0
    }

    public static func normalized(_ dn: String) -> String {
        if let simple = lowercasedIfSimple(dn.utf8) { return simple }
        return normalizedByLibldap(dn)
    }

    /// Which of `keys` (``normalized(_:)`` results) `dn` normalizes to, as bits (bit i: keys[i]).
    /// A simple DN (see ``lowercasedIfSimple(_:)``) is checked once and then compared byte by
    /// byte, lower-cased on the way, with no string built: the listing asks this for every
    /// `memberOf` value of every user. Any other DN is normalized by libldap, as before.
    public static func matchingKeys(_ dn: String, _ keys: [String]) -> Int {
        let simple: Int? = dn.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            guard isSimple(bytes) else { return nil }
            var found = 0
            for index in keys.indices where keys[index].utf8.count == bytes.count {
                let equal = keys[index].utf8.withContiguousStorageIfAvailable { key in
                    zip(bytes, key).allSatisfy { byte, keyByte in lowered(byte) == keyByte }
                } ?? (lowercasedIfSimple(bytes) == keys[index])
                if equal { found |= 1 << index }
            }
            return found
        } ?? nil
        if let simple { return simple }
        let key = normalized(dn)
        var found = 0
        for index in keys.indices where keys[index] == key { found |= 1 << index }
        return found
    }

    @inline(__always)
    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
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
