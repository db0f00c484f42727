import MIDirectory
import Testing
@testable import MILaunch

/// When a run logs in with the user's Kerberos ticket and when it takes the password path.
@Suite("Ticket login decision")
struct TicketLoginTests {
    let login = KerberosSettings(login: true)
    let mkhan = Kerberos.Ticket.valid(KerberosPrincipal("mkhan@EXAMPLE.TEST"))

    @Test func aValidTicketIsUsedWithoutUserOrWithItsOwn() {
        for user in [nil, "mkhan", "MKhan", "mkhan@example.test"] {
            #expect(TicketLogin.decide(login, user: user, hasPasswordSource: false) { mkhan }
                    == .ticket(KerberosPrincipal("mkhan@EXAMPLE.TEST")), "\(user ?? "no user")")
        }
    }

    @Test func anotherUserOrAPasswordGivenTakesThePasswordPath() {
        #expect(TicketLogin.decide(login, user: "jdoe", hasPasswordSource: false) { mkhan } == .password)
        #expect(TicketLogin.decide(login, user: "mkhan@OTHER.TEST", hasPasswordSource: false) { mkhan } == .password)
        #expect(TicketLogin.decide(login, user: "mkhan", hasPasswordSource: true) { mkhan } == .password)
    }

    @Test func withoutLoginTheCacheIsNotEvenRead() {
        for settings in [nil, KerberosSettings(login: false, serviceKeytab: "/k", servicePrincipal: "s@R")] {
            #expect(TicketLogin.decide(settings, user: "mkhan", hasPasswordSource: false) {
                Issue.record("the credential cache was read")
                return mkhan
            } == .password)
        }
    }

    @Test func noTicketOrAnExpiredOneSaysSo() {
        #expect(TicketLogin.decide(login, user: nil, hasPasswordSource: false) { .missing("No credentials cache found") }
                == .noTicket("No credentials cache found"))
        #expect(TicketLogin.decide(login, user: "mkhan", hasPasswordSource: false) { .expired }
                == .noTicket("the ticket in your credential cache has expired"))
        let message = TicketLogin.message("the ticket in your credential cache has expired")
        #expect(message.contains("no valid Kerberos ticket found"))
        #expect(message.contains("run kinit"))
    }

    @Test func principalsSplitAtTheLastAt() {
        let principal = KerberosPrincipal("svc/host@EXAMPLE.TEST")
        #expect(principal.name == "svc/host")
        #expect(principal.realm == "EXAMPLE.TEST")
        #expect(KerberosPrincipal("mkhan").realm == nil)
        #expect(!KerberosPrincipal("mkhan@EXAMPLE.TEST").isNamed("mkhan2"))
    }
}
