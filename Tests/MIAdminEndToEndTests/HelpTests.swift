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

    /// The parser's own texts say "See 'deliveries help <subcommand>'": that form, and `help`
    /// with the subcommand, show the subcommand's help.
    @Test(arguments: [("deliveries", "retry"), ("policy", "set"), ("store", "backup"), ("teams", "show")])
    func subcommandHelpInBothForms(_ command: String, _ sub: String) throws {
        let parent = try MIAdmin.as_("mkhan", ["help \(command)"])
        #expect(parent.status == 0 && parent.stdout.contains("See '\(command) help <subcommand>'"))
        let viaHelp = try MIAdmin.as_("mkhan", ["help \(command) \(sub)"])
        let viaParent = try MIAdmin.as_("mkhan", ["\(command) help \(sub)"])
        #expect(viaHelp.status == 0 && viaParent.status == 0, "\(viaParent.stderr)")
        #expect(viaHelp.stdout.contains("USAGE: \(command) \(sub) "))
        #expect(viaParent.stdout == viaHelp.stdout)
    }

    /// A mistyped subcommand gets a "did you mean", as command and option typos do, at the
    /// prompt and after `help`; nothing runs.
    @Test func subcommandTypoSuggests() throws {
        let typed = try MIAdmin.as_("mkhan", ["policy sett expiry.days 9"])
        #expect(typed.status == 1)
        #expect(typed.stderr.contains("policy: unknown subcommand 'sett'; did you mean 'set'? (see 'help policy')"), "\(typed.stderr)")
        let viaHelp = try MIAdmin.as_("mkhan", ["help deliveries retyr"])
        #expect(viaHelp.status == 1)
        #expect(viaHelp.stderr.contains("deliveries: unknown subcommand 'retyr'; did you mean 'retry'?"), "\(viaHelp.stderr)")
        let viaParent = try MIAdmin.as_("mkhan", ["teams help shwo"])
        #expect(viaParent.status == 1 && viaParent.stderr.contains("did you mean 'show'?"), "\(viaParent.stderr)")
    }

    /// `--help` and the man page name every exit status docs/exit-codes.md lists, 5 included.
    @Test func exitStatusFiveIsDocumented() throws {
        let help = try MIAdmin.run(["--help"])
        #expect(help.status == 0)
        let manual = try MIAdmin.run(["--generate-manual"])
        for text in [help.stdout, manual.stdout] {
            let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains("5 deliver newly held deliveries"))
        }
    }

    /// A help text's lines join without a stray backslash at the prompt and in the man page
    /// (where a backslash is written `\e`).
    @Test func helpTextsHaveNoStrayBackslashes() throws {
        for command in ["undo", "comment"] {
            let help = try MIAdmin.as_("mkhan", ["help \(command)"])
            #expect(help.status == 0 && !help.stdout.isEmpty)
            #expect(!help.stdout.contains("\\"), "help \(command): \(help.stdout)")
        }
        let manual = try MIAdmin.run(["--generate-manual"])
        let stray = manual.stdout.split(separator: "\n").filter { $0.hasSuffix("\\e") }
        #expect(manual.status == 0 && stray.isEmpty, "\(stray)")
    }
}
