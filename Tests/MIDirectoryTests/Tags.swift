import MITestSupport
import Testing

/// What a suite needs besides this process: tests tagged with a server are skipped, with the
/// reason, in a run that has none (``TestServer``).
extension Tag {
    /// The throwaway slapd (Scripts/ldap-fixture).
    @Tag static var ldap: Self
}

extension Trait where Self == ConditionTrait {
    /// Runs only where this run has the LDAP fixture (a script's, or one it may start).
    static var needsLDAP: Self {
        .enabled(if: Fixture.unavailable == nil, "needs the LDAP fixture (Scripts/ldap-fixture), which this run does not have")
    }
}
