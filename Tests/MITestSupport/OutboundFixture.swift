import Foundation

/// The office's HTTPS receivers and the mail server the tests send to (Scripts/outbound-fixture):
/// URLs, TLS files and what the servers received, from its fixture.env.
///
/// Uses `$MIADMIN_TEST_OUTBOUND` when a script (Scripts/test) already started one; otherwise
/// starts its own once per test process and stops it when the process exits.
public struct OutboundFixture: Sendable {
    public let directory: String
    public let values: [String: String]

    public subscript(key: String) -> String { values[key] ?? "" }

    /// Every request the HTTPS receivers handled, oldest first (one JSON object each).
    public func received() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: self["RECEIVED"], encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    /// The requests whose path is `path`.
    public func received(path: String) throws -> [[String: Any]] {
        try received().filter { $0["path"] as? String == path }
    }

    /// Every mail the SMTP server took: (envelope, raw message), oldest first.
    public func mails() throws -> [(envelope: [String: Any], message: String)] {
        let dir = self["MAIL_DIR"]
        let names = (try FileManager.default.contentsOfDirectory(atPath: dir)).filter { $0.hasSuffix(".json") }
        return try names.sorted { Int($0.dropLast(5))! < Int($1.dropLast(5))! }.map { name in
            let base = dir + "/" + name.dropLast(5)
            let envelope = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: base + ".json")))
            return (envelope as! [String: Any], try String(contentsOfFile: base + ".eml", encoding: .utf8))
        }
    }

    /// A path nobody used before, for a test's own receiver state (`/seq/.../TAG`).
    public static func tag() -> String { UUID().uuidString.prefix(8).lowercased() }

    public static let shared: OutboundFixture = {
        do { return try start() } catch { fatalError("cannot start the outbound fixture: \(error)") }
    }()

    private static func start() throws -> OutboundFixture {
        if let dir = ProcessInfo.processInfo.environment["MIADMIN_TEST_OUTBOUND"], !dir.isEmpty {
            return OutboundFixture(directory: dir, values: try EnvFile.read(dir + "/fixture.env"))
        }
        guard TestServer.mayStart else { throw TestServer.outbound.notStarted() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-outbound-\(getpid())").path
        let result = try Shell.run(Paths.repoRoot + "/Scripts/outbound-fixture", ["start", dir], deadline: 60)
        guard result.status == 0 else {
            throw ShellError(description: "Scripts/outbound-fixture start failed (\(result.status)): \(result.stderr)")
        }
        ownedOutboundDirectory = dir
        atexit {
            guard let dir = ownedOutboundDirectory else { return }
            _ = try? Shell.run(Paths.repoRoot + "/Scripts/outbound-fixture", ["stop", dir])
            try? FileManager.default.removeItem(atPath: dir)
        }
        return OutboundFixture(directory: dir, values: try EnvFile.read(dir + "/fixture.env"))
    }
}

nonisolated(unsafe) private var ownedOutboundDirectory: String?
