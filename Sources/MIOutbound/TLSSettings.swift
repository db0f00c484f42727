import CCurl

/// How a connection checks the server and proves who we are. The server's certificate is
/// always verified (libcurl's default, never turned off here: the field app shipped with the
/// check disabled); `caFile` replaces the system's CAs.
public struct TLSSettings: Sendable, Equatable {
    /// PEM file of the CA(s) that sign the server's certificate; nil: the system's.
    public var caFile: String?
    /// PEM client certificate and key for mutual TLS; both or neither.
    public var clientCertificate: String?
    public var clientKey: String?

    public init(caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil) {
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    func apply(to handle: CurlHandle) throws(OutboundError) {
        try handle.set(CURLOPT_SSL_VERIFYPEER, 1)
        try handle.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile { try handle.set(CURLOPT_CAINFO, caFile) }
        if let clientCertificate { try handle.set(CURLOPT_SSLCERT, clientCertificate) }
        if let clientKey { try handle.set(CURLOPT_SSLKEY, clientKey) }
    }
}
