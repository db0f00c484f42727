import Foundation

/// The servers tests run against, and whether this run may use each.
///
/// A server a script started (its variable names its folder, as `Scripts/test` sets them) is
/// always used. Otherwise the test process starts one itself on first use and stops it at exit
/// (each fixture's `shared`), so `swift test --filter X` starts only what the selected tests
/// touch, unless `MIADMIN_TEST_SERVERS=none` (`Scripts/test --unit`): then no server is started
/// and a test that needs one is skipped, naming why. A server that cannot be started (PostgreSQL
/// not installed) skips its tests the same way; it never takes the test process down.
public enum TestServer: String, Sendable, CaseIterable {
    case ldap = "the LDAP fixture (Scripts/ldap-fixture)"
    case postgres = "the PostgreSQL fixture (Scripts/pg-fixture)"
    case outbound = "the outbound fixture (Scripts/outbound-fixture)"
    case kdc = "the MIT Kerberos fixture (Scripts/kdc-fixture)"

    /// The variable naming the folder of one a script started.
    public var variable: String {
        switch self {
        case .ldap: "MIADMIN_TEST_FIXTURE"
        case .postgres: "MIADMIN_TEST_PG"
        case .outbound: "MIADMIN_TEST_OUTBOUND"
        case .kdc: "MIADMIN_TEST_FIXTURE_KDC"
        }
    }

    /// Whether this run may start the server itself (not under `MIADMIN_TEST_SERVERS=none`).
    public static var mayStart: Bool {
        ProcessInfo.processInfo.environment["MIADMIN_TEST_SERVERS"] != "none"
    }

    /// Thrown by a fixture this run may not start.
    public func notStarted() -> FixtureUnavailable {
        FixtureUnavailable(description: "\(rawValue) is not running and this run starts no server "
                           + "(MIADMIN_TEST_SERVERS=none, as Scripts/test --unit sets it)")
    }
}

/// Why a test server is not there (not started, or could not be started).
public struct FixtureUnavailable: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }

    /// `error` as the reason a fixture is not there.
    init(_ server: TestServer, _ error: any Error) {
        description = error as? FixtureUnavailable == nil ? "\(server.rawValue) could not be started: \(error)" : "\(error)"
    }
}
