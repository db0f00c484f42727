import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// A multi-host `store.url` whose first host is taken by something that is not the store (a
/// listener with another CA's certificate, one that accepts and closes, one that speaks no TLS):
/// the console goes on to the next host, at start and when it connects again, and when every
/// host fails the message names each host and its failure.
@Suite("PostgreSQL: every host of store.url is tried (real server)", .serialized, .tags(.postgres), .needsPostgres)
struct PostgresHostFailoverTests {
    let fixture = PostgresFixture.shared

    /// A certificate and key from a CA the store URL does not name (made once per test).
    private func otherCertificate() throws -> (certificate: String, key: String) {
        let folder = try MITestSupport.TempDir.make()
        let made = try Shell.run(Paths.repoRoot + "/Scripts/lib/make-tls", [folder, "--ca-name", "not the store's CA"])
        try #require(made.status == 0, "\(made.stderr)")
        return (folder + "/server.pem", folder + "/server.key")
    }

    private func url(firstPort: Int, secondPort: String) -> String {
        "postgresql://miadmin@127.0.0.1:\(firstPort),127.0.0.1:\(secondPort)/mi?sslmode=verify-full"
            + "&sslrootcert=\(fixture["PG_CA"])&target_session_attrs=read-write"
    }

    @Test func aFirstHostThatFailsForAnyReasonIsPassedOverForTheNext() throws {
        let other = try otherCertificate()
        let impostors = [
            try PostgresImpostor(certificate: other.certificate, key: other.key),   // certificate verify failed
            try PostgresImpostor(acceptAndClose: true),                             // closed at once
            try PostgresImpostor(),                                                 // no TLS ("N")
        ]
        defer { impostors.forEach { $0.stop() } }
        for impostor in impostors {
            let target = try PostgresTarget(uri: url(firstPort: impostor.port, secondPort: fixture["PG_PORT"]))
            let connection = try PostgresConnection(target: target, password: fixture.password, conventions: .ignored)
            #expect(connection.connectedHost == "127.0.0.1:\(fixture["PG_PORT"])")
            // Connecting again (after a failover) goes round the same way.
            #expect(connection.reset() && connection.connectedHost == "127.0.0.1:\(fixture["PG_PORT"])")
            #expect(try connection.execute("SELECT 1").string(0, 0) == "1")
            // The store opens through it as well.
            let store = try FormStore(postgres: target, password: fixture.password, conventions: .ignored, reconnectSeconds: 2)
            #expect(try store.engine.schemaVersion() != nil)
        }
    }

    @Test func whenEveryHostFailsTheMessageNamesEachHostAndItsFailure() throws {
        let other = try otherCertificate()
        let impostor = try PostgresImpostor(certificate: other.certificate, key: other.key)
        defer { impostor.stop() }
        // A port nobody listens on: bind one, note it, close it.
        let closed = try Shell.run("/usr/bin/python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
        let closedPort = closed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let target = try PostgresTarget(uri: url(firstPort: impostor.port, secondPort: closedPort))
        #expect { try PostgresConnection(target: target, password: fixture.password, conventions: .ignored) } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.message.contains("127.0.0.1:\(impostor.port): ") && error.message.contains("certificate verify failed")
                && error.message.contains("127.0.0.1:\(closedPort): ") && error.message.contains("refused")
                && !error.message.contains(fixture.password)
        }
        // The store keeps trying for store.reconnectSeconds (a failover may be under way), then
        // says the same.
        let started = Date()
        #expect { try FormStore(postgres: target, password: fixture.password, conventions: .ignored, reconnectSeconds: 1.5) } throws: { error in
            (error as? StoreError)?.message.contains("certificate verify failed") == true
        }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 1.4 && waited < 10, "waited \(waited) s")
    }

    /// libpq's messages carry bytes from elsewhere (OpenSSL's reasons, file names, the server's
    /// text): what reaches a message has no control character and no byte that was not UTF-8.
    @Test func libpqMessagesAreMadePrintable() {
        let raw = "could not read root certificate file \"/x\u{1b}[31m\": \u{FFFD}\u{7}junk\u{202e}\nsecond line"
        let line = PostgresConnection.firstLine(raw)
        #expect(line == "could not read root certificate file \"/x?[31m\": ??junk?")
    }
}
