import CLDAP
import Foundation
import Logging

/// Owns one libldap handle (`LDAP *`): opened with TLS and timeouts set, unbound in `deinit`.
/// Not thread-safe; one connection per session, used from one thread at a time.
///
/// Its concerns live in files of their own: opening, TLS and binds here; searches in
/// `LDAPConnection+Search.swift`; reading entries in `LDAPConnection+Entries.swift`. The handle is
/// the module's for that split only: nothing outside these files uses it.
public final class LDAPConnection {
    let handle: OpaquePointer
    let settings: ConnectionSettings
    private let logger: Logger

    /// Opens and connects the handle, with TLS in place (`ldaps://` or StartTLS) unless the
    /// settings allow cleartext.
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
        try connect(startTLS: settings.startTLS && list.needsStartTLS)
    }

    deinit {
        ldap_unbind_ext_s(handle, nil, nil)
        if let tlsDeadline { miadmin_tls_deadline_free(tlsDeadline) }
    }

    /// The deadline on the connection's first exchanges (CLDAP's `tls_deadline.h`); it must
    /// outlive the handle, which holds it as a connection callback.
    private var tlsDeadline: UnsafeMutablePointer<miadmin_tls_deadline>?

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

    /// Connects now: TCP (bounded by the network timeout), TLS for an `ldaps://` URI, then
    /// StartTLS when `startTLS` asks for it, unless the URI libldap connected to was an
    /// `ldaps://` one of a mixed list (TLS already in place: a second handshake would fail).
    /// Until TLS is in place every read and write of the connection has the timeout as its
    /// deadline, which libldap's own network timeout does not give the handshake; nor does it
    /// spin through it (`tls_deadline.h`). A connection left to libldap's first operation would
    /// keep that deadline past its handshake.
    private func connect(startTLS: Bool) throws {
        guard let deadline = miadmin_tls_deadline_start(handle, settings.timeoutMilliseconds) else {
            throw DirectoryError(.configuration, "cannot set the LDAP connection callback for the TLS deadline")
        }
        tlsDeadline = deadline
        let connected = ldap_connect(handle)
        let rc = connected == LDAP_SUCCESS && startTLS && ldap_tls_inplace(handle) == 0
            ? ldap_start_tls_s(handle, nil, nil) : connected
        let expired = miadmin_tls_deadline_end(handle, deadline) != 0
        guard rc == LDAP_SUCCESS else {
            let code = LDAPResultCode(rawValue: rc)
            if expired || code == .timeout { throw timedOut() }
            if connected != LDAP_SUCCESS || code == .serverDown {
                throw unreachable(code)
            }
            throw DirectoryError(.tls, code: code,
                "StartTLS with \(settings.uri) failed\(diagnosticSuffix()) — check ldap.caFile and the server certificate")
        }
        if ldap_tls_inplace(handle) != 0 { readAhead() }
    }

    /// The encrypted stream read in blocks rather than record by record (CLDAP's
    /// `miadmin_ldap_read_ahead`): a listing of 100,000 users made 300,000 system calls. Without
    /// it (it cannot fail on a connected handle) reads only cost more.
    private func readAhead() {
        if miadmin_ldap_read_ahead(handle) != 0 { logger.debug("no read-ahead on the directory connection") }
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

    private func timedOut() -> DirectoryError {
        DirectoryError(.unreachable, code: .timeout, "directory \(settings.uri) did not answer within \(settings.timeoutSeconds) s")
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
        // SASL reports a KDC that does not answer as a local error with GSSAPI's text; ask
        // Kerberos itself whether that was the reason, since nothing the user does fixes it.
        if answer.code != .success, let host = serverHost(), let why = Kerberos.kdcUnreachable(host: host) {
            throw DirectoryError(.unreachable, code: answer.code,
                                 "cannot log in to \(settings.uri) with Kerberos: no KDC could be reached (\(why))")
        }
        if answer.code == .success {
            var identity: UnsafeMutablePointer<CChar>?
            if ldap_get_option(handle, LDAP_OPT_X_SASL_USERNAME, &identity) == LDAP_OPT_SUCCESS, let identity {
                answer.identity = String(cString: identity)
                ldap_memfree(identity)
            }
        }
        return answer
    }

    /// The host name of the server this connection talks to (the first of `ldap.uri`'s when
    /// not yet connected), as the service principal `ldap/<host>` names it.
    private func serverHost() -> String? {
        var names: UnsafeMutablePointer<CChar>?
        guard ldap_get_option(handle, LDAP_OPT_HOST_NAME, &names) == LDAP_OPT_SUCCESS, let names else { return nil }
        defer { ldap_memfree(names) }
        guard let first = String(cString: names).split(separator: " ").first else { return nil }
        if first.hasPrefix("["), let close = first.firstIndex(of: "]") {
            return String(first[first.index(after: first.startIndex)..<close])
        }
        return String(first.split(separator: ":", maxSplits: 1).first ?? first)
    }

    /// The server's answer to "Who am I?" (RFC 4532) for the identity this connection is bound
    /// as: `dn:<DN>`, `u:<name>` (Active Directory: `u:DOMAIN\\name`) or empty (anonymous).
    /// Nil when the server does not offer the operation (Samba).
    func whoAmI() throws -> String? {
        try settlePendingBind()
        var answer: UnsafeMutablePointer<berval>?
        let rc = ldap_whoami_s(handle, &answer, nil, nil)
        defer { if let answer { ber_bvfree(answer) } }
        let code = LDAPResultCode(rawValue: rc)
        try checkReachable(code)
        guard rc == LDAP_SUCCESS else {
            logger.info("the directory does not answer Who am I? (\(code))")
            return nil
        }
        guard let answer, let bytes = answer.pointee.bv_val else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(answer.pointee.bv_len)), as: UTF8.self)
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
    func settlePendingBind() throws {
        guard let pending = pendingBind else { return }
        pendingBind = nil
        let answer = try readBind(pending.msgid)
        guard answer.code == .success else { throw pending.refused(answer.code) }
    }

    /// Throws for a bind result that is not success, unreachable or bad credentials.
    func checkReachable(_ code: LDAPResultCode) throws {
        if code.isConnectionFailure { throw unreachable(code) }
    }

    /// The next answer to `msgid` (`LDAP_MSG_ONE`), or the whole of it (`LDAP_MSG_ALL`), within
    /// the timeout; the caller frees the message.
    func awaitAnswer(_ msgid: Int32, _ mode: Int32, _ what: String) throws -> (type: Int32, message: OpaquePointer) {
        var timeout = settings.timeval
        var message: OpaquePointer?
        let type = ldap_result(handle, msgid, mode, &timeout, &message)
        if type == 0 { throw timedOut() }
        guard type > 0, let message else {
            var code: Int32 = 0
            ldap_get_option(handle, LDAP_OPT_RESULT_CODE, &code)
            throw failure(code == 0 ? LDAP_SERVER_DOWN : code, what)
        }
        return (type, message)
    }
}
