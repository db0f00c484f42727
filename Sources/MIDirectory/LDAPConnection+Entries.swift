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

    /// One pass over an entry's BER, as ldapsearch does it (`ldap_get_dn_ber`, then the
    /// attributes in order), instead of one scan of the entry per attribute: hands `body` each
    /// value of `attributes` with the index of its attribute there, as bytes in libldap's buffer
    /// (valid during the call only). Returns the entry's DN; nil for a message that is no entry.
    ///
    /// Each value is read in place with `ber_skip_element`, one at a time: `ldap_get_attribute_ber`
    /// hands over an array of `berval`s per attribute, 16 bytes a value allocated at once, 1.6 MB
    /// for a group of 100,000 members on top of the message itself.
    func walkEntry(_ message: OpaquePointer, attributes: [String],
                   _ body: (Int, UnsafeRawBufferPointer) -> Void) -> String? {
        var ber: OpaquePointer?
        var dnValue = berval(bv_len: 0, bv_val: nil)
        guard ldap_get_dn_ber(handle, message, &ber, &dnValue) == LDAP_SUCCESS, let ber else {
            if let ber { ber_free(ber, 0) }
            return nil
        }
        defer { ber_free(ber, 0) }
        let dn = Self.string(dnValue)
        // What ldap_get_attribute_ber reads: while bytes remain, a PartialAttribute (a sequence
        // of the type and a set of values).
        var remaining: ber_len_t = 0, length: ber_len_t = 0
        while ber_get_option(UnsafeMutableRawPointer(ber), LBER_OPT_REMAINING_BYTES, &remaining) == LBER_OPT_SUCCESS, remaining > 0 {
            var name = berval(bv_len: 0, bv_val: nil)
            guard ber_skip_tag(ber, &length) != Self.berDefault, ber_skip_element(ber, &name) != Self.berDefault else { break }
            let returned = UnsafeRawBufferPointer(start: name.bv_val, count: Int(name.bv_len))
            // Attribute names compare without case (RFC 4512); the index is the name asked for.
            let asked = attributes.firstIndex { Self.equalIgnoringASCIICase($0.utf8, returned) }
            var end: UnsafeMutablePointer<CChar>?
            var tag = ber_first_element(ber, &length, &end)
            while tag != Self.berDefault {
                var value = berval(bv_len: 0, bv_val: nil)
                guard ber_skip_element(ber, &value) != Self.berDefault else { return dn }
                if let asked { body(asked, UnsafeRawBufferPointer(start: value.bv_val, count: Int(value.bv_len))) }
                tag = ber_next_element(ber, &length, end)
            }
        }
        return dn
    }

    /// liblber's LBER_DEFAULT (`(ber_tag_t) -1`, a cast Swift does not import): no tag, or the end.
    private static let berDefault = ber_tag_t.max

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
