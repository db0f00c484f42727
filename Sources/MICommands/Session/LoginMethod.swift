/// How the session's user proved who they are, as `whoami` shows it (`auth`).
public enum LoginMethod: String, Sendable {
    /// A password bind (typed, from `--password-file` or `MIADMIN_PASSWORD`).
    case password
    /// A SASL GSSAPI bind with the user's Kerberos ticket (`ldap.kerberos.login`).
    case kerberos
}
