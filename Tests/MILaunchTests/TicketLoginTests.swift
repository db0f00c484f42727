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

    /// The installed binary's Kerberos library reads no variable of the user's (it runs setgid,
    /// so MIT Kerberos ignores them anyway), and the scrub removes them before it is loaded: the
    /// credential cache, krb5.conf, the keytabs and the SASL plug-in folder are the system's.
    @Test func aPrivilegedRunKeepsNoKerberosOrSASLVariable() {
        let chosen = ["KRB5CCNAME": "FILE:/tmp/krb5cc_0", "KRB5_CONFIG": "/home/u/krb5.conf", "KRB5_KTNAME": "/x.keytab",
                      "KRB5_CLIENT_KTNAME": "/x.keytab", "KRB5_TRACE": "/dev/stderr", "KRB5RCACHEDIR": "/tmp",
                      "SASL_PATH": "/home/u/plugins", "SASL_CONF_PATH": "/home/u", "HOME": "/home/u"]
        #expect(Set(Privilege.scrubbed(chosen).keys) == ["HOME"])
    }
}

