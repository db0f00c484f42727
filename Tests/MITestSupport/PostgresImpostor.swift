import Foundation

/// A listener on 127.0.0.1 that pretends to be a PostgreSQL server (Tests/Fixtures/postgres-impostor.py):
/// it asks for the password in cleartext (or MD5, or switches from SCRAM to cleartext half-way)
/// and records what each client sent, so a test sees whether the store password went out.
/// Stopped (killed and reaped) by ``stop()``.
public final class PostgresImpostor: @unchecked Sendable {
    public enum Ask: String, Sendable { case cleartext, md5, scram }

    public let port: Int
    public let directory: String
    private let pid: pid_t

    /// - Parameters:
    ///   - certificate, key: speak TLS with them (nil: refuse TLS, answer 'N').
    ///   - acceptAndClose: close each connection at once, saying nothing.
    public init(ask: Ask = .cleartext, certificate: String? = nil, key: String? = nil, acceptAndClose: Bool = false) throws {
        directory = try TempDir.make()
        chmod(directory, 0o755)
        var arguments = ["--port-file", directory + "/port", "--log", directory + "/log.jsonl", "--ask", ask.rawValue]
        if let certificate, let key { arguments += ["--cert", certificate, "--key", key] }
        if acceptAndClose { arguments.append("--accept-and-close") }
        pid = try Shell.start("/usr/bin/python3", [Paths.repoRoot + "/Tests/Fixtures/postgres-impostor.py"] + arguments,
                              environment: [:])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: directory + "/port", encoding: .utf8), let number = Int(text) {
                port = number
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        throw ShellError(description: "postgres-impostor.py did not start")
    }

    /// One client connection as the impostor saw it.
    public struct Connection: Sendable {
        public let tls: Bool
        public let startup: [String: String]
        /// Each message the client sent after the authentication request: type letter and text.
        public let received: [(type: String, payload: String)]
    }

    /// The connections recorded so far (a connection is recorded when it ends).
    public var connections: [Connection] {
        guard let text = try? String(contentsOfFile: directory + "/log.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let received = (object["received"] as? [[String: String]] ?? []).map { ($0["type"] ?? "", $0["payload"] ?? "") }
            return Connection(tls: object["tls"] as? Bool ?? false, startup: object["startup"] as? [String: String] ?? [:],
                              received: received)
        }
    }

    /// Whether any client sent `secret` in any message.
    public func received(_ secret: String) -> Bool {
        connections.contains { $0.received.contains { $0.payload.contains(secret) } }
    }

    public func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
