import Foundation

/// A property a fuzz target checks beyond "does not crash" was broken (a round trip that does
/// not give the input back, an escaped value that still matches more than itself, ...).
/// libFuzzer's driver turns it into a crash so the input is saved; the regression tests report it.
public struct FuzzFinding: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One libFuzzer target: a name for `Scripts/fuzz NAME`, the folder of its seed corpus under
/// `Tests/Fuzz/corpus/`, and the function each input goes through.
public struct FuzzTarget: Sendable {
    public let name: String
    public let summary: String
    public let body: @Sendable (Data) throws(FuzzFinding) -> Void

    /// Every target, in the order `Scripts/fuzz` runs them.
    public static let all: [FuzzTarget] = [
        FuzzTarget(name: "json", summary: "the JSON reader (JSONValue.parse), with a write/read round trip",
                   body: JSONTargets.json),
        FuzzTarget(name: "form", summary: "form.json decoding into a FormDocument, with a round trip",
                   body: JSONTargets.form),
        FuzzTarget(name: "tokenizer", summary: "the line lexer's words, with a quote/split round trip, and :'NAME' and :\"NAME\" substitution on lexed words (a value never escapes its word)",
                   body: CommandLineTargets.tokenizer),
        FuzzTarget(name: "script-line", summary: "the line lexer on a script line: \\\\ separators (nothing lost), \\gset, words and \\if/\\let expressions over every variable form (never a crash)",
                   body: CommandLineTargets.scriptLine),
        FuzzTarget(name: "arguments", summary: "each registered command's argument parsing and help lookup",
                   body: CommandLineTargets.arguments),
        FuzzTarget(name: "filter", summary: "LDAP filter escaping and glob translation and matching",
                   body: FilterTargets.filter),
        FuzzTarget(name: "terminal", summary: "the one escaping rule for outside text (TerminalText)",
                   body: TerminalTargets.terminal),
        FuzzTarget(name: "import", summary: "a whole-tree import of a folder generated from the input, twice",
                   body: ImportTarget.importTree),
    ]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFinding) {
    if !condition { throw FuzzFinding(message()) }
}
