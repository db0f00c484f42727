import CLDAP
import Foundation
import Logging

/// Owns one libldap handle (`LDAP *`): opened with TLS and timeouts set, unbound in `deinit`.
/// Not thread-safe; one connection per session, used from one thread at a time.
public final class LDAPConnection {
    private let handle: OpaquePointer
    private let settings: ConnectionSettings
    private let logger: Logger

    /// Opens (lazily: libldap connects on the first operation) and, with StartTLS, negotiates TLS.
    public init(settings: ConnectionSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        guard let list = LDAPURIList(settings.uri) else {
            throw DirectoryError(.configuration, "cannot use LDAP URI '\(settings.uri)' (config ldap.uri: " +
                                 "one or more ldaps:// or ldap:// URIs separated by spaces)")
        }
        let cleartext = list.cleartext(startTLS: settings.startTLS)
        guard cleartext.isEmpty || settings.allowCleartext else {
            throw DirectoryError(.configuration,
                "refusing to send passwords in cleartext to \(cleartext.joined(separator: " ")): every URI in " +
                "ldap.uri must be ldaps:// or covered by ldap.startTLS " +
                "(or, on a trusted network only, ldap.allowCleartext: true)")
        }
        var ld: OpaquePointer?
        let rc = ldap_initialize(&ld, settings.uri)
        guard rc == LDAP_SUCCESS, let ld else {
            throw DirectoryError(.configuration, code: LDAPResultCode(rawValue: rc),
                                 "cannot use LDAP URI '\(settings.uri)'")
        }
        handle = ld
        // From here on `deinit` frees the handle, also when a step below throws.
        try configure()
        if settings.startTLS && list.needsStartTLS {
            try startTLS()
        }
    }

    deinit {
        ldap_unbind_ext_s(handle, nil, nil)
    }

    private func setOption(_ option: Int32, _ value: UnsafeRawPointer?, _ what: String) throws {
        let rc = ldap_set_option(handle, option, value)
        guard rc == LDAP_OPT_SUCCESS else {
            throw DirectoryError(.configuration, code: LDAPResultCode(rawValue: rc), "cannot set LDAP option \(what)")
        }
    }

    private func configure() throws {
        var version = LDAP_VERSION3
        try setOption(LDAP_OPT_PROTOCOL_VERSION, &version, "protocol version")
        try setOption(LDAP_OPT_REFERRALS, nil, "referrals off")  // LDAP_OPT_OFF is a NULL pointer
        var timeout = settings.timeval
        // LDAP_OPT_TIMEOUT alone does not bound the TCP connect: set both.
        try setOption(LDAP_OPT_NETWORK_TIMEOUT, &timeout, "network timeout")
        try setOption(LDAP_OPT_TIMEOUT, &timeout, "operation timeout")

        var require = settings.verifyCertificate ? LDAP_OPT_X_TLS_DEMAND : LDAP_OPT_X_TLS_NEVER
        try setOption(LDAP_OPT_X_TLS_REQUIRE_CERT, &require, "TLS certificate check")
        if !settings.verifyCertificate {
            logger.warning("TLS certificate verification is OFF (ldap.tlsVerify=false): anyone on the network path can impersonate \(settings.uri)")
        }
        if let caFile = settings.caFile, !caFile.isEmpty {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw DirectoryError(.tls, "cannot read CA file '\(caFile)' (config ldap.caFile)")
            }
            try caFile.withCString { try setOption(LDAP_OPT_X_TLS_CACERTFILE, $0, "CA file") }
        }
        // TLS options on a handle are ignored until a new TLS context is made from them.
        var isServer: Int32 = 0
        try setOption(LDAP_OPT_X_TLS_NEWCTX, &isServer, "TLS context")
    }

    /// StartTLS, unless the URI libldap connected to was an `ldaps://` one of a mixed list
    /// (TLS already in place: a second handshake would fail).
    private func startTLS() throws {
        let connected = ldap_connect(handle)
        if connected == LDAP_SUCCESS, ldap_tls_inplace(handle) != 0 { return }
        let rc = connected == LDAP_SUCCESS ? ldap_start_tls_s(handle, nil, nil) : connected
        guard rc == LDAP_SUCCESS else {
            let code = LDAPResultCode(rawValue: rc)
            if code == .serverDown || code == .timeout {
                throw unreachable(code)
            }
            throw DirectoryError(.tls, code: code,
                "StartTLS with \(settings.uri) failed\(diagnosticSuffix()) — check ldap.caFile and the server certificate")
        }
    }

    /// The server's or libldap's extra explanation of the last error, if any.
    private func diagnosticSuffix() -> String {
        diagnosticMessage().map { ": \($0)" } ?? ""
    }

    /// The diagnostic message of the last result, for error messages (a bind reads its own from
    /// its result: ``BindAnswer``).
    private func diagnosticMessage() -> String? {
        var message: UnsafeMutablePointer<CChar>?
        ldap_get_option(handle, LDAP_OPT_DIAGNOSTIC_MESSAGE, &message)
        guard let message else { return nil }
        defer { ldap_memfree(message) }
        let text = String(cString: message)
        return text.isEmpty ? nil : text
    }

    private func unreachable(_ code: LDAPResultCode) -> DirectoryError {
        TLSDiagnosis.error(for: code, settings: settings, diagnostic: diagnosticSuffix())
    }

    /// Maps a failed result code to an error of the right kind.
    func failure(_ rc: Int32, _ what: String) -> DirectoryError {
        let code = LDAPResultCode(rawValue: rc)
        if code.isConnectionFailure { return unreachable(code) }
        return DirectoryError(.operationFailed, code: code, "\(what) failed\(diagnosticSuffix())")
    }

    /// Every bind of this connection, the user's and the service account's, goes through here:
    /// sent with ``sendBind(dn:password:askPasswordPolicy:)``, answered with ``readBind(_:)``. The
    /// caller has already refused empty passwords. `askPasswordPolicy` adds the password policy
    /// request control, so that the answer says why an account cannot log in.
    func bind(dn: String, password: [UInt8], askPasswordPolicy: Bool = false) throws -> BindAnswer {
        try settlePendingBind()
        return try readBind(sendBind(dn: dn, password: password, askPasswordPolicy: askPasswordPolicy))
    }

    /// Sends a bind (a simple one: mechanism nil; a SASL mechanism would be named here) and
    /// returns its message id.
    private func sendBind(dn: String, password: [UInt8], askPasswordPolicy: Bool) throws -> Int32 {
        var policyControl: UnsafeMutablePointer<LDAPControl>?
        if askPasswordPolicy {
            let crc = ldap_create_passwordpolicy_control(handle, &policyControl)
            guard crc == LDAP_SUCCESS, policyControl != nil else { throw failure(crc, "creating the password policy control") }
        }
        defer { if let policyControl { ldap_control_free(policyControl) } }
        var controls: [UnsafeMutablePointer<LDAPControl>?] = [policyControl, nil]
        var msgid: Int32 = 0
        let rc = withCredentials(password) { credentials in
            controls.withUnsafeMutableBufferPointer { list in
                ldap_sasl_bind(handle, dn, nil, credentials, policyControl == nil ? nil : list.baseAddress, nil, &msgid)
            }
        }
        guard rc == LDAP_SUCCESS else {
            let code = LDAPResultCode(rawValue: rc)
            try checkReachable(code)
            throw failure(rc, "sending a bind")
        }
        return msgid
    }

    /// Waits for the answer to bind `msgid`: its code, diagnostic message and the response
    /// controls about the account. Throws only when the server could not be reached.
    private func readBind(_ msgid: Int32) throws -> BindAnswer {
        let result = try awaitAnswer(msgid, LDAP_MSG_ALL, "a bind").message
        var code: Int32 = 0
        var message: UnsafeMutablePointer<CChar>?
        var serverControls: UnsafeMutablePointer<UnsafeMutablePointer<LDAPControl>?>?
        let prc = ldap_parse_result(handle, result, &code, nil, &message, nil, &serverControls, 1)  // frees `result`
        defer {
            if let message { ldap_memfree(message) }
            if serverControls != nil { ldap_controls_free(serverControls) }
        }
        guard prc == LDAP_SUCCESS else { throw failure(prc, "reading a bind result") }
        var answer = BindAnswer(code: LDAPResultCode(rawValue: code))
        try checkReachable(answer.code)
        if let message, message.pointee != 0 { answer.diagnostic = String(cString: message) }
        if let found = ldap_control_find(LDAP_CONTROL_PASSWORDPOLICYRESPONSE, serverControls, nil) {
            var expire: ber_int_t = -1, grace: ber_int_t = -1
            var error = PP_noError
            if ldap_parse_passwordpolicy_control(handle, found, &expire, &grace, &error) == LDAP_SUCCESS {
                answer.passwordPolicy = PasswordPolicyResponse(
                    error: PasswordPolicyResponse.Error(rawValue: Int(error.rawValue)),
                    secondsBeforeExpiration: expire >= 0 ? Int(expire) : nil,
                    graceLoginsRemaining: grace >= 0 ? Int(grace) : nil)
            } else {
                logger.info("cannot parse the password policy response control of a bind")
            }
        }
        answer.passwordExpiredControl = ldap_control_find(BindAnswer.passwordExpiredOID, serverControls, nil) != nil
        if let found = ldap_control_find(BindAnswer.passwordExpiringOID, serverControls, nil) {
            // Its value is the number of seconds, as text.
            let value = found.pointee.ldctl_value
            answer.passwordExpiringSeconds = Int(String(decoding: UnsafeRawBufferPointer(start: value.bv_val,
                                                                                         count: Int(value.bv_len)), as: UTF8.self))
        }
        return answer
    }

    /// A SASL GSSAPI bind (Kerberos) with the ticket in `cache` (nil: the user's own default
    /// cache), answered like ``bind(dn:password:askPasswordPolicy:)``, with the principal bound
    /// as the answer's `identity` (SASL's own record of it: Samba has no WhoAmI operation).
    /// libldap is told not to canonicalise the server's name (the service principal is
    /// `ldap/<the URI's host>`), and the bind asks for no SASL security layer: TLS protects
    /// the connection already, and Active Directory refuses a layer over TLS.
    func bindGSSAPI(cache: String?) throws -> BindAnswer {
        try settlePendingBind()
        try LDAPLibrary.addGSSAPI()
        try Kerberos.use(cache: cache)
        var on: Int32 = 1  // any non-NULL value switches a boolean option on
        try setOption(LDAP_OPT_X_SASL_NOCANON, &on, "SASL host name canonicalisation off")
        try "maxssf=0".withCString { try setOption(LDAP_OPT_X_SASL_SECPROPS, $0, "SASL security properties") }
        var answer = BindAnswer(code: LDAPResultCode(rawValue: miadmin_ldap_gssapi_bind(handle)))
        try checkReachable(answer.code)
        answer.diagnostic = diagnosticMessage()
        if answer.code == .success {
            var identity: UnsafeMutablePointer<CChar>?
            if ldap_get_option(handle, LDAP_OPT_X_SASL_USERNAME, &identity) == LDAP_OPT_SUCCESS, let identity {
                answer.identity = String(cString: identity)
                ldap_memfree(identity)
            }
        }
        return answer
    }

    /// Calls `body` with `password` as a bind's credentials, from a copy wiped afterwards.
    private func withCredentials<R>(_ password: [UInt8], _ body: (UnsafeMutablePointer<berval>) -> R) -> R {
        precondition(!password.isEmpty, "an empty-password simple bind is an unauthenticated bind")
        var bytes = password
        defer { SecretBytes.wipe(&bytes) }
        return bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                var credentials = berval(bv_len: ber_len_t(chars.count), bv_val: chars.baseAddress)
                return body(&credentials)
            }
        }
    }

    /// A bind sent and not yet answered (``sendDeferredBind(dn:password:refused:)``).
    private var pendingBind: (msgid: Int32, refused: (LDAPResultCode) -> DirectoryError)?

    /// Sends a bind without waiting for its answer: the server takes it at once, and the next
    /// request on this connection (which could not be sent before it is answered, RFC 4511
    /// 4.2.1) first waits for the answer and throws `refused(code)` if the bind failed. The
    /// service account's re-bind after a user's bind goes this way, so a login that reads
    /// nothing more (`-c whoami`) does not wait a round trip for it.
    func sendDeferredBind(dn: String, password: [UInt8], refused: @escaping (LDAPResultCode) -> DirectoryError) throws {
        try settlePendingBind()
        pendingBind = (try sendBind(dn: dn, password: password, askPasswordPolicy: false), refused)
    }

    /// Waits for the answer to a bind sent by ``sendDeferredBind(dn:password:refused:)``, if any.
    private func settlePendingBind() throws {
        guard let pending = pendingBind else { return }
        pendingBind = nil
        let answer = try readBind(pending.msgid)
        guard answer.code == .success else { throw pending.refused(answer.code) }
    }

    /// Throws for a bind result that is not success, unreachable or bad credentials.
    func checkReachable(_ code: LDAPResultCode) throws {
        if code.isConnectionFailure { throw unreachable(code) }
    }

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
    /// group is read without building 100,000 strings first.
    public func forEachValue(of attributes: [String], inEntry dn: String,
                             _ body: (Int, UnsafeRawBufferPointer) -> Void) throws {
        try searchMessages(base: dn, scope: .base, filter: "(objectClass=*)", attributes: attributes,
                           pageSize: settings.pageSize) { message in
            // The values point into libldap's buffer: `ldap_get_values_len` copied every value
            // into a block of its own, 100,000 blocks for a group of 100,000 members.
            _ = walkEntry(message, attributes: attributes, body)
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

    /// The next answer to `msgid` (`LDAP_MSG_ONE`), or the whole of it (`LDAP_MSG_ALL`), within
    /// the timeout; the caller frees the message.
    private func awaitAnswer(_ msgid: Int32, _ mode: Int32, _ what: String) throws -> (type: Int32, message: OpaquePointer) {
        var timeout = settings.timeval
        var message: OpaquePointer?
        let type = ldap_result(handle, msgid, mode, &timeout, &message)
        if type == 0 {
            throw DirectoryError(.unreachable, code: .timeout,
                                 "directory \(settings.uri) did not answer within \(settings.timeoutSeconds) s")
        }
        guard type > 0, let message else {
            var code: Int32 = 0
            ldap_get_option(handle, LDAP_OPT_RESULT_CODE, &code)
            throw failure(code == 0 ? LDAP_SERVER_DOWN : code, what)
        }
        return (type, message)
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

    /// The entry's DN and the values of `attributes` (keyed by the name asked for), read in one
    /// pass over the entry's BER (``walkEntry(_:attributes:_:)``).
    private func readEntry(_ message: OpaquePointer, attributes: [String]) -> LDAPEntry {
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
    private func walkEntry(_ message: OpaquePointer, attributes: [String],
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

/// Calls `body` with a NULL-terminated `char **` built from `strings` (nil for an empty list),
/// freeing the copies afterwards.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
    if strings.isEmpty { return body(nil) }
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress) }
}
