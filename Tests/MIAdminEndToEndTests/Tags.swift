import Testing

/// What the suites of this target need besides the built binary: every one logs in to a
/// directory; some also need the PostgreSQL server, the outbound receivers, the Samba AD DC.
/// `Scripts/test --unit` leaves this target out; `Scripts/test --filter X` starts what the
/// selected suites use on first use (docs/testing.md).
extension Tag {
    /// Runs the built `miadmin` binary.
    @Tag static var endToEnd: Self
    /// A throwaway slapd (Scripts/ldap-fixture).
    @Tag static var ldap: Self
    /// The throwaway PostgreSQL server (Scripts/pg-fixture).
    @Tag static var postgres: Self
    /// The HTTPS receivers and the SMTP server (Scripts/outbound-fixture).
    @Tag static var outbound: Self
    /// The Samba AD DC (Scripts/ad-fixture), when the run has one.
    @Tag static var activeDirectory: Self
}
