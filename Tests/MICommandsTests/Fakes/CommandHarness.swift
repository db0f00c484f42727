import ArgumentParser
import Foundation
import Logging
import MICommands
import MIDirectory
import MIStore

/// What a command wrote, as data (the console would render it).
final class RecordingSink: OutputSink {
    private(set) var records: [(columns: [String], values: [Value])] = []
    private(set) var columns: [String] = []
    private(set) var rows: [[Value]] = []
    private(set) var messages: [String] = []
    private(set) var warnings: [String] = []
    private(set) var notes: [String] = []

    func record(_ columns: [Column], _ values: [Value]) { records.append((columns.map(\.key), values)) }
    func beginRows(_ columns: [Column]) { self.columns = columns.map(\.key) }
    func row(_ values: [Value]) { rows.append(values) }
    func endRows() {}
    func message(_ text: String) { messages.append(text) }
    func warning(_ text: String) { warnings.append(text) }
    func note(_ text: String) { notes.append(text) }
    func progress(_ label: String, done: Int, total: Int) {}
}

/// A session for one of the fake directory's users over the fake services, and a way to run a
/// console line in it as the console does: parsed by the named command's own type, then
/// ``Session/run(_:named:output:)``.
struct CommandHarness {
    let session: Session
    let directory = FakeDirectory()
    let store = FakeStore()
    let output = RecordingSink()

    init(user uid: String) throws {
        let config = try AppConfig.parse(Data(Self.configJSON.utf8), path: "/fake/config.json")
        let store = self.store
        session = Session(config: config, user: FakeDirectory.user(uid), directory: directory,
                          logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                          clock: FixedClock(Date(timeIntervalSince1970: 1_796_000_000))) { store.areas }
    }

    static let configJSON = """
        {"ldap": {"uri": "ldap://127.0.0.1:1", "baseDN": "dc=example,dc=com",
                  "userBase": "ou=people,dc=example,dc=com",
                  "groups": {"foreman": "cn=foremen,ou=groups,dc=example,dc=com",
                             "technician": "cn=technicians,ou=groups,dc=example,dc=com",
                             "support": "cn=support,ou=groups,dc=example,dc=com"}},
         "store": {"path": "/fake/store.sqlite"}}
        """

    /// Parses `words` (the command name first) as the console does: the command, and the name
    /// a refusal gives it (with its parent for a nested one).
    static func parse(_ words: [String]) throws -> (command: any ConsoleCommand, name: String) {
        guard let name = words.first, let root = CommandRegistry.command(named: name) else {
            throw CommandError.failed("no command \(words.first ?? "")")
        }
        let parsed = try root.parseAsRoot(Array(words.dropFirst()))
        guard let command = parsed as? any ConsoleCommand else {
            throw CommandError.failed("'\(words.joined(separator: " "))' parses to no console command")
        }
        let type = type(of: command)
        return (command, type.name == name ? name : "\(name) \(type.name)")
    }

    /// Parses `words` and runs the command in the session.
    func run(_ words: [String]) throws {
        let (command, name) = try Self.parse(words)
        try session.run(command, named: name, output: output)
    }

    /// Runs `words`; the error it ended with, or nil.
    func outcome(_ words: [String]) -> Error? {
        do {
            try run(words)
            return nil
        } catch {
            return error
        }
    }
}

extension Error {
    var isPermissionDenied: Bool {
        if case .permissionDenied = self as? CommandError { return true }
        return false
    }

    /// The crew rule's refusal: one check and one error, the store's, whether the command asked
    /// first (``Session/requireInCrews(_:)``) or the store refused inside its transaction.
    var isCrewRefusal: Bool {
        (self as? StoreError)?.kind == .forbidden && "\(self)".contains("is not in your crews")
    }
}
