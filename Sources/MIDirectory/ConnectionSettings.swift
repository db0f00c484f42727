import CLDAP
import Foundation

/// How to reach the directory securely. Built from the console's config (`ldap.*` keys).
public struct ConnectionSettings: Sendable, Equatable {
    public var uri: String
    public var startTLS: Bool
    public var caFile: String?
    /// Verify the server certificate against `caFile` (default). Turning this off is an
    /// explicit, loudly-warned setting (`ldap.tlsVerify: false`).
    public var verifyCertificate: Bool
    /// Let a password travel over an unencrypted connection (`ldap.allowCleartext`). Off by default.
    public var allowCleartext: Bool
    /// Bounds both the TCP connect and each operation. Fractions count (passed on in
    /// microseconds); the config keeps it within `ConnectionSettings.timeoutRange`.
    public var timeoutSeconds: Double
    /// Entries per page of a paged search (`ldap.pageSize`; Active Directory serves at most 1,000).
    public var pageSize: Int32 = 500

    /// What `ldap.timeoutSeconds` may be: a millisecond to ten minutes.
    public static let timeoutRange: ClosedRange<Double> = 0.001...600

    public init(uri: String, startTLS: Bool, caFile: String?, verifyCertificate: Bool = true,
                allowCleartext: Bool = false, timeoutSeconds: Double) {
        self.uri = uri
        self.startTLS = startTLS
        self.caFile = caFile
        self.verifyCertificate = verifyCertificate
        self.allowCleartext = allowCleartext
        self.timeoutSeconds = timeoutSeconds
    }

    /// The timeout in whole milliseconds, rounded up (CLDAP's TLS deadline).
    var timeoutMilliseconds: Int {
        let time = timeval
        return time.tv_sec * 1000 + (time.tv_usec + 999) / 1000
    }

    /// The timeout as libldap takes it, to the microsecond.
    var timeval: timeval {
        let seconds = min(max(timeoutSeconds, Self.timeoutRange.lowerBound), Self.timeoutRange.upperBound)
        let whole = seconds.rounded(.down)
        return CLDAP.timeval(tv_sec: Int(whole), tv_usec: Int(((seconds - whole) * 1_000_000).rounded()))
    }
}
