import MICommands
import MIDirectory
import Testing

/// The permission matrix of docs/commands.md, every command (and subcommand) for each role,
/// against fake services: a role the matrix allows gets past every permission check; a role it
/// refuses gets a permission error and the command asks neither the directory nor the store.
@Suite("Permission matrix")
struct PermissionMatrixTests {
    /// One line per command of the registry, and who may run it (docs/commands.md), written out
    /// here, not read from the commands, so a change of a command's roles fails this test.
    static let matrix: [(line: [String], allowed: Set<Role>)] = [
        (["help"], [.foreman, .support, .technician]),
        (["whoami"], [.foreman, .support, .technician]),
        (["refresh"], [.foreman, .support, .technician]),
        (["set", "format", "csv"], [.foreman, .support, .technician]),
        (["notices"], [.foreman, .support, .technician]),
        (["forms"], [.foreman, .support, .technician]),
        (["workload"], [.foreman, .support, .technician]),
        (["show", "1"], [.foreman, .support, .technician]),
        (["find", "1"], [.foreman, .support]),
        (["today"], [.foreman, .support]),
        (["report", "1", "--pdf", "/nonexistent/r.pdf"], [.foreman, .support, .technician]),
        (["media", "1", "--out", "/nonexistent/media"], [.foreman, .support, .technician]),
        (["notifications"], [.foreman, .support, .technician]),
        (["users"], [.foreman, .support]),
        (["teams"], [.foreman, .support]),
        (["teams", "list"], [.foreman, .support]),
        (["teams", "show", "Kolonne Nord"], [.foreman, .support]),
        (["move", "1", "asmith"], [.foreman, .support]),
        (["undo"], [.foreman, .support]),
        (["import", "/nonexistent/Documents"], [.foreman, .support]),
        (["export", "/nonexistent/out"], [.foreman, .support]),
        (["audit"], [.foreman, .support]),
        (["trash"], [.foreman, .support]),
        (["restore", "1"], [.foreman, .support]),
        (["check"], [.foreman, .support]),
        (["orphans"], [.foreman, .support]),
        (["reopen", "1", "--note", "typo"], [.foreman, .support]),
        (["store", "info"], [.foreman, .support]),
        (["store", "copy", "--to", "/nonexistent/copy.sqlite"], [.foreman, .support]),
        (["store", "backup", "/nonexistent/backup.sqlite"], [.foreman, .support]),
        (["policy"], [.foreman, .support]),
        (["policy", "show"], [.foreman, .support]),
        (["policy", "show", "--team", "Kolonne Nord"], [.foreman, .support]),
        (["comment", "1", "fine"], [.foreman]),
        (["submit", "1"], [.foreman]),
        (["expire", "--yes"], [.foreman]),
        (["expire", "--dry-run"], [.foreman, .support]),
        (["purge", "--yes"], [.foreman]),
        (["policy", "set", "expiry-days", "30"], [.foreman]),
        (["policy", "set", "--team", "Kolonne Nord", "expiry-days", "30"], [.foreman]),
        (["deliver"], [.foreman]),
        (["deliveries"], [.foreman, .support]),
        (["deliveries", "list"], [.foreman, .support]),
        (["deliveries", "retry", "--held"], [.foreman, .support]),
        (["deliveries", "dismiss", "7", "--note", "x"], [.foreman, .support]),
        (["remind", "--dry-run"], [.foreman]),
    ]

    static let usersByRole: [(uid: String, role: Role)] = [("mkhan", .foreman), ("lchen", .support), ("jdoe", .technician)]

    @Test(arguments: matrix.map(\.line))
    func eachRoleIsAllowedOrRefusedAsTheMatrixSays(line: [String]) throws {
        let allowed = try #require(Self.matrix.first { $0.line == line }).allowed
        // The line itself is valid, so what follows is about roles, not about a usage error.
        _ = try CommandHarness.parse(line)
        for (uid, role) in Self.usersByRole {
            let harness = try CommandHarness(user: uid)
            let error = harness.outcome(line)
            if allowed.contains(role) {
                #expect(error?.isPermissionDenied != true, "\(role) may run '\(line.joined(separator: " "))': \(String(describing: error))")
            } else {
                #expect(error?.isPermissionDenied == true, "\(role) must not run '\(line.joined(separator: " "))'")
                #expect(harness.store.calls.isEmpty, "a refused command touched the store: \(harness.store.calls)")
                #expect(harness.directory.questions.isEmpty, "a refused command asked the directory")
                #expect(harness.output.records.isEmpty && harness.output.rows.isEmpty)
            }
        }
    }

    /// Every command and subcommand of the registry has its line in the matrix: a new command
    /// cannot ship without its row.
    @Test func theMatrixCoversEveryCommand() {
        var covered = Set<String>()
        for (line, _) in Self.matrix {
            guard let command = CommandRegistry.command(path: line) else { continue }
            covered.insert(command.name == line[0] ? line[0] : "\(line[0]) \(command.name)")
        }
        for command in CommandRegistry.commands {
            #expect(covered.contains(command.name) || command.configuration.defaultSubcommand != nil,
                    "no matrix line for \(command.name)")
            for sub in command.configuration.subcommands.compactMap({ $0 as? any ConsoleCommand.Type }) {
                #expect(covered.contains("\(command.name) \(sub.name)"), "no matrix line for \(command.name) \(sub.name)")
            }
        }
    }

    /// A foreman who is also a technician acts with the foreman's rights.
    @Test func rolesAddUp() throws {
        let harness = try CommandHarness(user: "tpatel")
        #expect(harness.outcome(["comment", "1", "fine"])?.isPermissionDenied != true)
        #expect(harness.outcome(["users"]) == nil)
    }

    /// Technicians see only their own: naming another owner is refused before the store is
    /// asked; without a name, the listing is limited to the technician's own forms.
    @Test func techniciansSeeOnlyTheirOwn() throws {
        let jdoe = try CommandHarness(user: "jdoe")
        for line in [["forms", "--owner", "asmith"], ["notices", "asmith"], ["notifications", "--user", "asmith"]] {
            let error = jdoe.outcome(line)
            #expect(error?.isPermissionDenied == true, "\(line)")
            #expect((error as? CommandError)?.description == Session.ownOnlyMessage)
        }
        #expect(jdoe.store.calls.isEmpty)

        try jdoe.run(["forms"])
        #expect(jdoe.store.lastFilter?.owner == "jdoe")
        #expect(jdoe.output.rows.count == 2)

        let mkhan = try CommandHarness(user: "mkhan")
        try mkhan.run(["forms"])
        #expect(mkhan.store.lastFilter?.owner == nil)
        #expect(mkhan.output.rows.count == 3)
    }
}
