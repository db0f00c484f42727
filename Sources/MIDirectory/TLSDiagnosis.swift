import CLDAP
import Foundation

/// Why an `ldaps://` connection failed, when libldap only says "Can't contact LDAP server" (-1)
/// for a certificate it refused as for a server that is down (a wrong `ldap.caFile` would
/// show as "unreachable" with no pointer to it). If the server's port accepts a TCP
/// connection, the server is there and the TLS handshake is what failed.
enum TLSDiagnosis {
    /// The error for a connection that failed with `code` (`diagnostic`: libldap's message, as
    /// ": …" or empty): a TLS failure naming `ldap.caFile` when TLS is what failed, else
    /// "unreachable".
    static func error(for code: LDAPResultCode, settings: ConnectionSettings, diagnostic suffix: String) -> DirectoryError {
        if settings.uri.lowercased().hasPrefix("ldaps://"), suffix.localizedCaseInsensitiveContains("TLS")
            || suffix.localizedCaseInsensitiveContains("certificate") {
            return DirectoryError(.tls, code: code, "TLS with \(settings.uri) failed\(suffix) — check ldap.caFile")
        }
        // libldap says "Can't contact LDAP server" for a refused certificate too: a server that
        // answers on its ldaps:// port was reached, and the handshake is what failed.
        let ldaps = LDAPURIList(settings.uri)?.uris.filter { $0.lowercased().hasPrefix("ldaps://") } ?? []
        if code == .serverDown, !ldaps.isEmpty, anyServerAnswers(ldaps, timeout: Int32(settings.timeoutSeconds)) {
            let ca = settings.caFile.map { "'\($0)'" } ?? "(not set: the system's CAs)"
            return DirectoryError(.tls, code: code, "TLS with \(settings.uri) failed: the server answers, but the TLS "
                + "handshake failed (libldap: \(code)\(suffix)); most likely its certificate is not trusted: "
                + "it must chain to the CA in ldap.caFile \(ca) and name the host — check ldap.caFile")
        }
        return DirectoryError(.unreachable, code: code, "directory \(settings.uri) is unreachable\(suffix)")
    }

    /// True when every `ldaps://` URI of `uris` is refused by nobody at the TCP level within
    /// `timeout`: one of them accepting a connection is enough.
    static func anyServerAnswers(_ uris: [String], timeout: Int32) -> Bool {
        uris.contains { uri in
            var description: UnsafeMutablePointer<LDAPURLDesc>?
            guard ldap_url_parse(uri, &description) == LDAP_URL_SUCCESS, let description else { return false }
            defer { ldap_free_urldesc(description) }
            let host = description.pointee.lud_host.map { String(cString: $0) } ?? "localhost"
            let port = description.pointee.lud_port == 0 ? 636 : description.pointee.lud_port
            return accepts(host: host.isEmpty ? "localhost" : host, port: port, timeout: timeout)
        }
    }

    /// A TCP connection to `host`:`port` succeeds within `timeout` seconds.
    static func accepts(host: String, port: Int32, timeout: Int32) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return false }
        defer { freeaddrinfo(list) }
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            info.pointee.ai_protocol)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
            guard errno == EINPROGRESS else { continue }
            var poll = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard Glibc.poll(&poll, 1, timeout * 1000) == 1 else { continue }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return true }
        }
        return false
    }
}
