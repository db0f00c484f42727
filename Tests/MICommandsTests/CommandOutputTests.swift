import MICommands
import MIDirectory
import Testing

/// What commands hand the console (records and rows as data), and how they check their
/// arguments, against the fake services.
@Suite("Command output and arguments")
struct CommandOutputTests {
    @Test func whoamiIsTheLoggedInUser() throws {
        let harness = try CommandHarness(user: "lchen")
        try harness.run(["whoami"])
        let record = try #require(harness.output.records.first)
        #expect(record.columns == ["uid", "dn", "name", "roles", "auth"])
        #expect(record.values.first == .string("lchen"))
        #expect(record.values.last == .string("password"))
        #expect(harness.store.calls.isEmpty)
    }

    @Test func usersListsTheRoleAsked() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["users", "--role", "technician"])
        #expect(harness.output.columns == ["uid", "name", "mail", "roles"])
        #expect(harness.output.rows.map { $0.first } == [.string("tpatel"), .string("jdoe"), .string("asmith")])
    }

    /// A move names the acting role in the store call (notices say "by support lchen") and
    /// returns one record with the rename.
    @Test func moveRecordsWhatItDid() throws {
        let foreman = try CommandHarness(user: "mkhan")
        try foreman.run(["move", "1", "asmith", "--note", "jdoe off sick"])
        #expect(foreman.store.calls == ["move 1 asmith foreman"])
        let record = try #require(foreman.output.records.first)
        #expect(record.columns == ["id", "from", "to", "name", "renamed", "moved", "expires"])
        #expect(record.values == [.int(1), .string("jdoe"), .string("asmith"), .string("Pump station 4 (2)"),
                                  .bool(true), .bool(true), .time(foreman.store.movedFormExpires)])
        // The config's policy goes with the move: the store decides whether the clock restarts.
        #expect(foreman.store.lastMovePolicy == foreman.session.config.policy.expiryPolicy)
        #expect(foreman.store.lastMovePolicy?.expiryFrom == .assigned)

        let support = try CommandHarness(user: "lchen")
        try support.run(["move", "1", "asmith"])
        #expect(support.store.calls == ["move 1 asmith support"])
    }

    /// Move targets must be technicians the directory knows; the store is not asked otherwise.
    @Test func moveTargetsAreCheckedBeforeTheStore() throws {
        let cases: [(target: String, message: String)] = [
            ("lchen", "'lchen' is not a technician (roles: support)"),
            ("nbody", "'nbody' is not a technician (roles: none)"),
            ("ghost", "no user 'ghost' in the directory"),
        ]
        for (target, message) in cases {
            let harness = try CommandHarness(user: "mkhan")
            let error = harness.outcome(["move", "1", target])
            #expect((error as? CommandError) == .failed(message), "\(target)")
            #expect(harness.store.calls.isEmpty)
        }
    }

    /// A malformed value fails while the line is parsed, with argument-parser's usage error,
    /// before any command runs.
    @Test(arguments: [["show", "abc"], ["show", "0"], ["move", "1"], ["forms", "--state", "lost"],
                      ["set", "format", "xml"], ["comment", "/x", "text"]])
    func badArgumentsFailAtParseTime(line: [String]) throws {
        #expect(throws: (any Error).self) { try CommandHarness.parse(line) }
    }
}
