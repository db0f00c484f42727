import CLDAP
import Foundation

/// Searches: paged (RFC 2696) and streamed entry by entry, base-scope matches sent together,
/// and the answers read off the connection.
extension LDAPConnection {
    public enum Scope: Sendable {
        case base, subtree
        var raw: Int32 { self == .base ? LDAP_SCOPE_BASE : LDAP_SCOPE_SUBTREE }
    }

    /// Searches with the paged-results control (RFC 2696) and hands each entry to `body` as it
    /// arrives (`ldap_result` with `LDAP_MSG_ONE`), so memory stays flat however many entries the
    /// directory holds and whatever its size limit per page.
    /// `pageSize` nil takes `ldap.pageSize`; 0 sends no paging control (the root DSE).
    public func search(base: String, scope: Scope, filter: String, attributes: [String],
                       pageSize: Int32? = nil, _ body: (LDAPEntry) throws -> Void) throws {
        let pageSize = pageSize ?? settings.pageSize
        try searchMessages(base: base, scope: scope, filter: filter, attributes: attributes, pageSize: pageSize) { message in
            try body(readEntry(message, attributes: attributes))
        }
    }

    /// Hands every value of `attributes` of the entry at `dn` to `body` (with the index of its
    /// attribute in `attributes`) as raw bytes, straight from libldap's buffer: a 100,000-member
    /// group is read without building 100,000 strings first. `counted` first learns how many
    /// values each attribute has (a pass over the entry in place, a few milliseconds for 100,000
    /// values), so that what `body` fills can be allocated once at its size rather than grown,
    /// which holds the old and the new buffer at once.
    public func forEachValue(of attributes: [String], inEntry dn: String, counted: ([Int]) -> Void = { _ in },
                             _ body: (Int, UnsafeRawBufferPointer) -> Void) throws {
        try searchMessages(base: dn, scope: .base, filter: "(objectClass=*)", attributes: attributes,
                           pageSize: settings.pageSize) { message in
            var counts = Array(repeating: 0, count: attributes.count)
            _ = walkEntry(message, attributes: attributes) { index, _ in counts[index] += 1 }
            counted(counts)
            // The values point into libldap's buffer: `ldap_get_values_len` copied every value
            // into a block of its own, 100,000 blocks for a group of 100,000 members.
            _ = walkEntry(message, attributes: attributes, body)
        }
    }

    /// A paged search for attributes whose values are binary (Active Directory's `objectSid`):
    /// hands `body` each entry's DN and, by position in `attributes`, its values as bytes.
    public func searchBytes(base: String, scope: Scope, filter: String, attributes: [String],
                            _ body: (String, [[[UInt8]]]) throws -> Void) throws {
        try searchMessages(base: base, scope: scope, filter: filter, attributes: attributes,
                           pageSize: settings.pageSize) { message in
            var values: [[[UInt8]]] = Array(repeating: [], count: attributes.count)
            let dn = walkEntry(message, attributes: attributes) { values[$0].append([UInt8]($1)) }
            try body(dn ?? "", values)
        }
    }

    /// Which of the entries at `dns` match `filter`: one base-scope search each, all sent before
    /// any answer is read (one round trip for all). An entry that does not exist is `missing`
    /// rather than an error; any other failure throws.
    public func baseMatches(_ dns: [String], filter: String) throws -> [BaseMatch] {
        try receive(sendBaseMatches(dns, filter: filter))
    }

    /// The searches of ``baseMatches(_:filter:)``, sent; read their answers with
    /// ``receive(_:)-(SentBaseMatches)`` or drop them with ``abandon(_:)-(SentBaseMatches)``.
    public struct SentBaseMatches {
        fileprivate let dns: [String]
        fileprivate let msgids: [Int32]
    }

    public func sendBaseMatches(_ dns: [String], filter: String) throws -> SentBaseMatches {
        var sent: [Int32] = []
        do {
            for dn in dns {
                sent.append(try sendSearch(base: dn, scope: .base, filter: filter, attributes: ["1.1"], pageSize: 0,
                                           cookie: []))
            }
        } catch {
            sent.forEach { ldap_abandon_ext(handle, $0, nil, nil) }
            throw error
        }
        return SentBaseMatches(dns: dns, msgids: sent)
    }

    public func receive(_ sent: SentBaseMatches) throws -> [BaseMatch] {
        var answers: [BaseMatch] = []
        for (index, msgid) in sent.msgids.enumerated() {
            var found = false
            do {
                let result = try receive(msgid, base: sent.dns[index]) { message in
                    ldap_msgfree(message)
                    found = true
                }
                defer { ldap_msgfree(result) }
                _ = try finishPage(result, base: sent.dns[index])
                answers.append(found ? .matches : .doesNotMatch)
            } catch let error as DirectoryError where error.code == .noSuchObject {
                answers.append(.missing)
            } catch {
                sent.msgids[(index + 1)...].forEach { ldap_abandon_ext(handle, $0, nil, nil) }
                throw error
            }
        }
        return answers
    }

    /// Tells the server the answers are no longer wanted (nothing is waited for).
    public func abandon(_ sent: SentBaseMatches) {
        sent.msgids.forEach { ldap_abandon_ext(handle, $0, nil, nil) }
    }

    public enum BaseMatch: Sendable, Equatable { case matches, doesNotMatch, missing }

    /// A search sent without paging whose answers are read later (``receive(_:_:)``), so that
    /// requests that do not depend on each other share one round trip: the login sends its
    /// root DSE read and its user look-up together.
    public struct SentSearch {
        fileprivate let msgid: Int32
        fileprivate let base: String
        fileprivate let attributes: [String]
    }

    /// Sends a search (unpaged) and returns at once; read its answers with ``receive(_:_:)`` or
    /// drop it with ``abandon(_:)``.
    public func send(base: String, scope: Scope, filter: String, attributes: [String]) throws -> SentSearch {
        SentSearch(msgid: try sendSearch(base: base, scope: scope, filter: filter, attributes: attributes, pageSize: 0,
                                         cookie: []),
                   base: base, attributes: attributes)
    }

    /// Hands each entry of a sent search to `body` as it arrives, then checks the search's result.
    /// An error thrown by `body` abandons the rest of the search.
    public func receive(_ sent: SentSearch, _ body: (LDAPEntry) throws -> Void) throws {
        try receiveMessages(sent) { try body(readEntry($0, attributes: sent.attributes)) }
    }

    /// Tells the server a sent search's answers are no longer wanted (nothing is waited for).
    public func abandon(_ sent: SentSearch) {
        ldap_abandon_ext(handle, sent.msgid, nil, nil)
    }

    private func receiveMessages(_ sent: SentSearch, _ body: (OpaquePointer) throws -> Void) throws {
        let result = try receive(sent.msgid, base: sent.base) { message in
            defer { ldap_msgfree(message) }
            do { try body(message) } catch {
                ldap_abandon_ext(handle, sent.msgid, nil, nil)
                throw error
            }
        }
        defer { ldap_msgfree(result) }
        _ = try finishPage(result, base: sent.base)
    }

    /// Runs the search, paged unless `pageSize` is 0, and hands each entry message to `body`.
    ///
    /// Pages are double-buffered: a page's messages are read as they arrive and kept; when its
    /// result (and cookie) is in, the next page is asked for at once, and only then are the
    /// kept entries handed to `body`. The server prepares page N+1 while we process page N,
    /// instead of idling until we have worked through it: a listing of 100,000 users is 200
    /// such waits. At most one page (`pageSize` entries) is held.
    private func searchMessages(base: String, scope: Scope, filter: String, attributes: [String],
                                pageSize: Int32, _ body: (OpaquePointer) throws -> Void) throws {
        if pageSize == 0 {
            let sent = try send(base: base, scope: scope, filter: filter, attributes: attributes)
            try receiveMessages(sent, body)
            return
        }
        var msgid = try sendSearch(base: base, scope: scope, filter: filter, attributes: attributes,
                                   pageSize: pageSize, cookie: [])
        while true {
            var entries: [OpaquePointer] = []
            defer { entries.forEach { ldap_msgfree($0) } }
            let result = try receive(msgid, base: base) { entries.append($0) }
            defer { ldap_msgfree(result) }
            let page = Result { try finishPage(result, base: base) }
            var next: Int32?
            if case .success(let cookie) = page, !cookie.isEmpty {
                next = try sendSearch(base: base, scope: scope, filter: filter, attributes: attributes,
                                      pageSize: pageSize, cookie: cookie)
            }
            for entry in entries {
                do { try body(entry) } catch {
                    if let next { ldap_abandon_ext(handle, next, nil, nil) }
                    throw error
                }
            }
            _ = try page.get()  // the page's own error, after the entries it did return
            guard let next else { return }
            msgid = next
        }
    }

    /// Sends one search request (with a paged-results control when `pageSize` > 0); its id.
    private func sendSearch(base: String, scope: Scope, filter: String, attributes: [String], pageSize: Int32,
                            cookie: [UInt8]) throws -> Int32 {
        try settlePendingBind()
        var msgid: Int32 = 0
        var pageControl: UnsafeMutablePointer<LDAPControl>?
        if pageSize > 0 {
            var bytes = cookie
            let crc = bytes.withUnsafeMutableBytes { raw in
                var value = berval(bv_len: ber_len_t(raw.count), bv_val: raw.baseAddress?.assumingMemoryBound(to: CChar.self))
                return ldap_create_page_control(handle, pageSize, &value, 0, &pageControl)  // copies the cookie
            }
            guard crc == LDAP_SUCCESS, pageControl != nil else { throw failure(crc, "creating the paged-results control") }
        }
        defer { if let pageControl { ldap_control_free(pageControl) } }
        var controls: [UnsafeMutablePointer<LDAPControl>?] = [pageControl, nil]
        let rc = withCStringArray(attributes) { attrs in
            pageControl == nil
                ? ldap_search_ext(handle, base, scope.raw, filter, attrs, 0, nil, nil, nil, 0, &msgid)
                : ldap_search_ext(handle, base, scope.raw, filter, attrs, 0, &controls, nil, nil, 0, &msgid)
        }
        guard rc == LDAP_SUCCESS else { throw failure(rc, "search under '\(base)'") }
        return msgid
    }

    /// Reads the answers to search `msgid` one message at a time (the timeout applies to each),
    /// giving every entry message to `entry`, which owns it from then on; returns the result
    /// message (the caller frees it). References and intermediate responses are skipped.
    private func receive(_ msgid: Int32, base: String, entry: (OpaquePointer) throws -> Void) throws -> OpaquePointer {
        while true {
            let (type, message): (Int32, OpaquePointer)
            do {
                (type, message) = try awaitAnswer(msgid, LDAP_MSG_ONE, "search under '\(base)'")
            } catch let error as DirectoryError where error.code == .timeout {
                ldap_abandon_ext(handle, msgid, nil, nil)
                throw error
            }
            switch ber_tag_t(type) {
            case LDAP_RES_SEARCH_ENTRY:
                try entry(message)
            case LDAP_RES_SEARCH_RESULT:
                return message
            default:
                ldap_msgfree(message)  // references (referrals are off) and intermediate responses
            }
        }
    }


    /// Checks a search's result; the paged-results cookie for the next page (empty when done or
    /// not paged), copied out of libldap's memory.
    private func finishPage(_ message: OpaquePointer, base: String) throws -> [UInt8] {
        var resultCode: Int32 = 0
        var serverControls: UnsafeMutablePointer<UnsafeMutablePointer<LDAPControl>?>?
        let prc = ldap_parse_result(handle, message, &resultCode, nil, nil, nil, &serverControls, 0)
        defer { if serverControls != nil { ldap_controls_free(serverControls) } }
        guard prc == LDAP_SUCCESS else { throw failure(prc, "reading the search result") }
        guard resultCode == LDAP_SUCCESS else {
            if resultCode == LDAP_NO_SUCH_OBJECT {
                throw DirectoryError(.operationFailed, code: .noSuchObject, "'\(base)' does not exist in the directory")
            }
            throw failure(resultCode, "search under '\(base)'")
        }
        guard let found = ldap_control_find(LDAP_CONTROL_PAGEDRESULTS, serverControls, nil) else { return [] }
        var cookie = berval(bv_len: 0, bv_val: nil)
        var estimate: ber_int_t = 0
        let rc = ldap_parse_pageresponse_control(handle, found, &estimate, &cookie)
        defer { if cookie.bv_val != nil { ber_memfree(cookie.bv_val) } }
        guard rc == LDAP_SUCCESS else { throw failure(rc, "reading the paged-results cookie") }
        return Array(UnsafeRawBufferPointer(start: cookie.bv_val, count: Int(cookie.bv_len)))
    }
}

/// Calls `body` with a NULL-terminated `char **` built from `strings` (nil for an empty list),
/// freeing the copies afterwards.
fileprivate func withCStringArray<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
    if strings.isEmpty { return body(nil) }
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress) }
}
