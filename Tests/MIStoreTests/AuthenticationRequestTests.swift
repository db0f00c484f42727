import Testing
@testable import MIPostgres
@testable import MIStore

/// The start-up check of the server's authentication requests, on hand-made messages: what
/// passes and what ends the connection before libpq answers.
@Suite struct AuthenticationRequestTests {
    /// An `R` message asking for authentication method `request`.
    private func request(_ request: UInt32) -> [UInt8] {
        [UInt8(ascii: "R"), 0, 0, 0, 8] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: request >> $0) }
    }

    @Test func onlyScramAndOkPassByDefault() {
        var scram = AuthenticationRequests()
        #expect(scram.read(request(10)) == nil)
        for refused: UInt32 in [3, 5, 7, 8, 9] {
            var requests = AuthenticationRequests()
            let refusal = requests.read(request(refused))
            #expect(refusal?.contains("only by SCRAM-SHA-256") == true, "request \(refused)")
        }
    }

    @Test func gssapiPassesOnlyWhereTheURLAsksForIt() {
        #expect(AuthenticationRequests.urlAsksForGSSAPI([("krbsrvname", "postgres")]))
        #expect(AuthenticationRequests.urlAsksForGSSAPI([("gssencmode", "prefer")]))
        #expect(!AuthenticationRequests.urlAsksForGSSAPI([("gssencmode", "disable")]))
        #expect(!AuthenticationRequests.urlAsksForGSSAPI([("host", "127.0.0.1")]))
        var gss = AuthenticationRequests(allowGSSAPI: true)
        #expect(gss.read(request(7)) == nil)
        // A password request is refused even where GSSAPI is allowed.
        var cleartext = AuthenticationRequests(allowGSSAPI: true)
        #expect(cleartext.read(request(3)) != nil)
        var md5 = AuthenticationRequests(allowGSSAPI: true)
        #expect(md5.read(request(5)) != nil)
    }
}
