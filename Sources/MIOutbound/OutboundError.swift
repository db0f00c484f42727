/// Why an HTTPS post or a mail did not go out. The kind tells a dead server (try later, exit 2)
/// from a certificate that does not verify (exit 2, nothing was sent) from a bad setting;
/// `curlCode` keeps libcurl's result code (7 could not connect, 28 timed out, 60 certificate).
/// Messages name the server, never a token or password.
public struct OutboundError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The server could not be reached, timed out, or dropped the connection.
        case unreachable
        /// TLS failed: the server's certificate does not verify against the CA, or the handshake failed.
        case tls
        /// The mail server refused the sender, a recipient or the login.
        case refused
        /// A local problem: a setting libcurl rejects, an unreadable certificate file, a missing library.
        case configuration
        /// Reading what was to be sent failed (the store); nothing was sent in full.
        case source
    }

    public let kind: Kind
    /// libcurl's CURLcode, or nil when the error did not come from libcurl.
    public let curlCode: Int?
    public let message: String

    public init(_ kind: Kind, curlCode: Int? = nil, _ message: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
    }

    public var description: String { message }

    /// True when trying again later may work (the server or the network), as opposed to a
    /// problem nobody but an administrator can fix.
    public var isTransient: Bool { kind == .unreachable }
}
