import Foundation
import MITestSupport
import Testing

/// `help` is generated from the command definitions: one text for `help CMD` and `CMD --help`.
@Suite(.tags(.endToEnd, .ldap)) struct HelpTests {
    @Test(arguments: [["help users", "users --help"], ["help policy set", "policy set --help"]])
    func helpCommandAndHelpFlagAgree(_ pair: [String]) throws {
        let viaHelp = try MIAdmin.as_("mkhan", [pair[0]])
        let viaFlag = try MIAdmin.as_("mkhan", [pair[1]])
        #expect(viaHelp.status == 0 && viaFlag.status == 0)
        #expect(viaHelp.stdout == viaFlag.stdout)
        #expect(viaHelp.stdout.contains("USAGE: \(pair[0].dropFirst(5)) "))
        #expect(viaHelp.stdout.contains("\nROLES: "))
    }

    @Test func listingNamesEveryCommandOnce() throws {
        let result = try MIAdmin.as_("mkhan", format: "csv", ["help"])
        let names = result.lines.dropFirst().map { String($0.prefix { $0 != "," }) }
        #expect(Set(names).count == names.count)
        #expect(names.contains("move") && names.contains("expire") && names.contains("source"))
    }
}
