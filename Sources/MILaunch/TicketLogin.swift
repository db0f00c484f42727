import MIDirectory

/// Whether a run logs in with the user's Kerberos ticket (`ldap.kerberos.login`) or with a
/// password, decided before anything is asked: a ticket is used only when the config allows
/// it, no password was given on purpose (`--password-file`, `MIADMIN_PASSWORD`), the cache
/// holds a valid one, and `--user` (if given) names its principal. Anyone else takes the
/// password path, as without Kerberos.
enum TicketLogin: Equatable {
    /// Log in as this principal with its ticket.
    case ticket(KerberosPrincipal)
    /// The password path, as without Kerberos.
    case password
    /// The password path, but a ticket was expected and there is none (why): a script without a
    /// password stops with ``message(_:)`` instead of trying an empty password.
    case noTicket(String)

    static func decide(_ kerberos: KerberosSettings?, user: String?, hasPasswordSource: Bool,
                       ticket: () -> Kerberos.Ticket = Kerberos.ticket) -> TicketLogin {
        guard kerberos?.login == true, !hasPasswordSource else { return .password }
        switch ticket() {
        case .valid(let principal):
            if let user, !principal.isNamed(user) { return .password }
            return .ticket(principal)
        case .expired:
            return .noTicket("the ticket in your credential cache has expired")
        case .missing(let why):
            return .noTicket(why)
        }
    }

    /// What a run that needs a ticket and has none says (exit 4).
    static func message(_ why: String) -> String {
        "no valid Kerberos ticket found (\(why)): run kinit to get one, "
            + "or give a password (MIADMIN_PASSWORD or --password-file)"
    }
}
