import ArgumentParser
@testable import MICommands
import Testing

/// The technicians a `move` line names: one name as given, or several split at commas, each
/// without the blanks (tab, general category Zs) at its ends, whichever way the list is read.
@Suite("Move targets")
struct MoveTargetsTests {
    func targets(_ uid: String) throws -> [String] {
        var command = try MoveCommand.parse(["12", "u00001"])
        command.uid = uid
        return command.targets
    }

    @Test func oneNameIsTakenAsGiven() throws {
        #expect(try targets("zangstrom") == ["zangstrom"])
        #expect(try targets("Zangström") == ["Zangström"])
        #expect(try targets("j doe") == ["j doe"])
    }

    @Test func blanksAtTheEndsOfOneNameAreTrimmed() throws {
        #expect(try targets(" zangstrom") == ["zangstrom"])
        #expect(try targets("zangstrom\t") == ["zangstrom"])
        #expect(try targets("\u{00A0}zangstrom\u{3000}") == ["zangstrom"])
        #expect(try targets("\t") == [""])
    }

    @Test func commasSeparateSeveralNames() throws {
        #expect(try targets("zangstrom,u00010") == ["zangstrom", "u00010"])
        #expect(try targets(" zangstrom , u00010\t") == ["zangstrom", "u00010"])
        #expect(try targets("zangstrom,,u00010") == ["zangstrom", "u00010"])
        #expect(try targets(",") == [])
        #expect(try targets("") == [])
    }
}
