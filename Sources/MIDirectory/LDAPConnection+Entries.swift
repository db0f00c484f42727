import CLDAP
import Foundation

/// Reading a search's entries: one pass over each entry's BER, values as bytes in libldap's buffer.
extension LDAPConnection {
    /// The entry's DN and the values of `attributes` (keyed by the name asked for), read in one
    /// pass over the entry's BER (``walkEntry(_:attributes:_:)``).
    func readEntry(_ message: OpaquePointer, attributes: [String]) -> LDAPEntry {
        var valueLists: [[String]] = Array(repeating: [], count: attributes.count)
        let dn = walkEntry(message, attributes: attributes) { asked, value in
            valueLists[asked].append(String(decoding: value, as: UTF8.self))
        }
        return LDAPEntry(dn: dn ?? "", names: attributes, valueLists: valueLists)
    }

    /// One pass over an entry's BER as ldapsearch does it (`ldap_get_dn_ber`,
    /// `ldap_get_attribute_ber`), instead of one scan of the entry per attribute: hands `body`
    /// each value of `attributes` with the index of its attribute there, as bytes in libldap's
    /// buffer (valid during the call only). Returns the entry's DN; nil for a message that is no
    /// entry.
    func walkEntry(_ message: OpaquePointer, attributes: [String],
                           _ body: (Int, UnsafeRawBufferPointer) -> Void) -> String? {
        var ber: OpaquePointer?
        var dnValue = berval(bv_len: 0, bv_val: nil)
        guard ldap_get_dn_ber(handle, message, &ber, &dnValue) == LDAP_SUCCESS else {
            if let ber { ber_free(ber, 0) }
            return nil
        }
        defer { ber_free(ber, 0) }
        let dn = Self.string(dnValue)
        var name = berval(bv_len: 0, bv_val: nil)
        var list: UnsafeMutablePointer<berval>?
        while ldap_get_attribute_ber(handle, message, ber, &name, &list) == LDAP_SUCCESS, name.bv_val != nil {
            defer {
                if list != nil { ber_memfree(list) }
                list = nil
            }
            let returned = UnsafeRawBufferPointer(start: name.bv_val, count: Int(name.bv_len))
            // Attribute names compare without case (RFC 4512); the index is the name asked for.
            guard let asked = attributes.firstIndex(where: { Self.equalIgnoringASCIICase($0.utf8, returned) }),
                  let list else { continue }
            var index = 0
            while list[index].bv_val != nil {
                body(asked, UnsafeRawBufferPointer(start: list[index].bv_val, count: Int(list[index].bv_len)))
                index += 1
            }
        }
        return dn
    }

    private static func string(_ value: berval) -> String {
        String(decoding: UnsafeRawBufferPointer(start: value.bv_val, count: Int(value.bv_len)), as: UTF8.self)
    }

    static func equalIgnoringASCIICase(_ name: String.UTF8View, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard name.count == bytes.count else { return false }
        for (a, b) in zip(name, bytes) where a != b {
            guard a | 0x20 == b | 0x20, (a | 0x20) >= UInt8(ascii: "a"), (a | 0x20) <= UInt8(ascii: "z") else { return false }
        }
        return true
    }
}
