import Testing
@testable import MIPostgres
@testable import MIStore

/// libpq gives no SQLSTATE for a failed connection: its message sorts it. A refused client
/// certificate is a failed login (exit 4), a server certificate the client cannot trust a TLS
/// fault (exit 2).
@Suite struct PostgresLoginClassificationTests {
    @Test(arguments: [
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  connection requires a valid client certificate",
        "connection to server at \"127.0.0.1\", port 5432 failed: SSL error: tlsv13 alert certificate required",
        "connection to server at \"127.0.0.1\", port 5432 failed: SSL error: tlsv1 alert unknown ca",
        "connection to server at \"127.0.0.1\", port 5432 failed: SSL error: sslv3 alert certificate expired",
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  certificate authentication failed for user \"mi\"",
        "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  password authentication failed for user \"mi\"",
    ])
    func aRefusedLoginIsAnAuthenticationFailure(_ message: String) {
        #expect(PostgresConnection.classify(connectionMessage: message) == .authentication)
    }

    @Test(arguments: [
        "connection to server at \"127.0.0.1\", port 5432 failed: SSL error: certificate verify failed",
        "connection to server at \"127.0.0.1\", port 5432 failed: server certificate for \"db\" does not match host name \"127.0.0.1\"",
    ])
    func anUntrustedServerIsATLSFault(_ message: String) {
        #expect(PostgresConnection.classify(connectionMessage: message) == .tls)
    }
}
