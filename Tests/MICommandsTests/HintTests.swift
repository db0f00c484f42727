import MICommands
import MIStore
import Testing

/// Hints that help: "did you mean" after `help`, a technician's `help` listing what
/// they may run, `forms --owner` with a glob, and a note when no form belongs to the owner.
@Suite("Hints")
struct HintTests {
    @Test func helpOfATypoSuggestsTheCommand() throws {
        let harness = try CommandHarness(user: "mkhan")
        let error = harness.outcome(["help", "mvoe"])
        #expect((error as? CommandError) == .failed("unknown command 'mvoe'; did you mean 'move'? (type 'help' for the list)"))
        #expect((harness.outcome(["help", "zzzzzz"]) as? CommandError) == .failed("unknown command 'zzzzzz' (type 'help' for the list)"))
    }

    @Test func aTechniciansHelpListsOnlyWhatTheyMayRun() throws {
        let technician = try CommandHarness(user: "jdoe")
        try technician.run(["help"])
        let listed = technician.output.rows.compactMap { row -> String? in
            if case .string(let name) = row.first { return name }
            return nil
        }
        let mayRun = CommandRegistry.commands.filter { $0.roles.contains(.technician) }.map { $0.name }
        #expect(listed == mayRun + CommandRegistry.builtins.map(\.name))
        #expect(!listed.contains("move") && !listed.contains("expire") && listed.contains("forms"))
        let foreman = try CommandHarness(user: "mkhan")
        try foreman.run(["help"])
        #expect(foreman.output.rows.count == CommandRegistry.commands.count + CommandRegistry.builtins.count)
    }

    @Test func ownerTakesAGlob() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["forms", "--owner", "j*"])
        #expect(harness.output.rows.map { $0[2] } == [.string("jdoe"), .string("jdoe")])
        #expect(harness.output.notes.isEmpty)
        let counted = try CommandHarness(user: "mkhan")
        try counted.run(["forms", "--owner", "*", "--count-by", "owner"])
        // The technicians the glob covers who have no form are counted too, with 0.
        #expect(counted.output.rows == [[.string("jdoe"), .int(2)], [.string("asmith"), .int(1)], [.string("tpatel"), .int(0)]])
    }

    @Test func anOwnerWithoutFormsGetsANoteNotAnError() throws {
        let typo = try CommandHarness(user: "mkhan")
        try typo.run(["forms", "--owner", "jdo"])
        #expect(typo.output.rows.isEmpty)
        #expect(typo.output.notes == ["no form in the store belongs to 'jdo'; did you mean 'jdoe'?"])
        let glob = try CommandHarness(user: "mkhan")
        try glob.run(["forms", "--owner", "u0000*"])
        #expect(glob.output.notes == ["no owner of a form in the store matches 'u0000*'"])
        // An owner whose forms the other filters leave out is known: no warning.
        let filtered = try CommandHarness(user: "mkhan")
        try filtered.run(["forms", "--owner", "asmith", "--state", "incomplete"])
        #expect(filtered.output.rows.isEmpty && filtered.output.notes.isEmpty)
    }
}
