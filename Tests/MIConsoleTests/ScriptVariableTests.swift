import Testing
@testable import MIConsole

@Suite("Script variables and substitution")
struct ScriptVariableTests {
    let values = ["crew": "Kolonne Nord", "tech": "jdoe", "odd": "it's #1 \\ \"x\"", "empty": "", "dash": "-x"]
    /// The words of a one-command line, each variable looked up in `values`.
    func apply(_ line: String, _ values: [String: String]? = nil) throws -> [String] {
        let commands = LineLexer.lex(line).commands
        #expect(commands.count == 1)
        return try commands[0].words { (values ?? self.values)[$0] }
    }

    @Test(arguments: [
        ("forms --owner :tech", ["forms", "--owner", "jdoe"]),
        ("forms --team :'crew'", ["forms", "--team", "Kolonne Nord"]),
        ("\\echo :{?tech} :{?nobody}", ["\\echo", "true", "false"]),
        ("forms --owner=:'tech'", ["forms", "--owner=jdoe"]),
        ("show :tech/Pump", ["show", "jdoe/Pump"]),
        ("comment 7 ':tech'", ["comment", "7", ":tech"]),
        ("comment 7 \":tech\"", ["comment", "7", ":tech"]),
        ("show \\:tech", ["show", ":tech"]),
        ("forms # :nobody in a comment", ["forms"]),
        ("forms --since 2026-11-21T10:00:00", ["forms", "--since", "2026-11-21T10:00:00"]),
        ("store copy --to postgresql://mi@db:p5432/x", ["store", "copy", "--to", "postgresql://mi@db:p5432/x"]),
        ("a ::tech :", ["a", "::tech", ":"]),
        ("x :{?tech", ["x", ":{?tech"]),
        ("x :\"odd\" :'empty'", ["x", "it's #1 \\ \"x\"", ""]),
        ("x '':empty", ["x", ""]),
        ("x :empty", ["x"]),
    ])
    func substitutes(line: String, expected: [String]) throws {
        #expect(try apply(line) == expected)
    }

    @Test func aQuoteOpenedWhereNoReferenceIsIsAnError() {
        // `:'x` has no closing quote: not a reference, but a quote left open.
        #expect(throws: LineLexer.UnterminatedQuote(quote: "'")) { try apply("x :'unclosed") }
    }

    @Test func anUnsetVariableIsAnErrorNamingIt() {
        #expect(throws: VariableReference.Unset(name: "nobody")) { try apply("forms --owner :nobody") }
        #expect(throws: VariableReference.Unset(name: "nobody")) { try apply("forms --owner :'nobody'") }
        #expect(throws: VariableReference.Unset(name: "nobody")) { try apply("forms --owner :\"nobody\"") }
        #expect("\(VariableReference.Unset(name: "nobody"))".contains("'nobody' is not set"))
    }

    /// What `:'NAME'` holds stays one word, the word it is written in, whatever it holds.
    @Test(arguments: ["crew", "odd", "empty"])
    func aQuotedValueIsOneWord(name: String) throws {
        #expect(try apply("comment 7 :'\(name)' --yes") == ["comment", "7", values[name]!, "--yes"])
        #expect(try apply("comment 7 :\"\(name)\" --yes") == ["comment", "7", values[name]!, "--yes"])
    }

    @Test func aQuotedValueThatWouldBeAnOptionIsRefused() throws {
        #expect(throws: VariableReference.ValueLooksLikeOption(name: "dash")) { try apply("move 7 :'dash'") }
        #expect(throws: VariableReference.ValueLooksLikeOption(name: "dash", form: "\"")) { try apply("move 7 :\"dash\"") }
        // After `=` it is the option's value, not an option.
        #expect(try apply("move 7 asmith --note=:'dash'") == ["move", "7", "asmith", "--note=-x"])
    }

    @Test func aRawValueIsTextThatIsNotScannedAgain() throws {
        let words = try apply("users :args", ["args": "--role technician :x", "x": "no"])
        #expect(words == ["users", "--role", "technician", ":x"])
    }

    /// A raw value that starts a command keeps the backslash of its first word, so `\if`
    /// spelled by a variable is named (and refused) rather than read as the word `if`.
    @Test func aRawValueStartingACommandKeepsItsBackslashWord() throws {
        #expect(try apply(":cond", ["cond": "\\if true"]) == ["\\if", "true"])
        #expect(try apply("x :cond", ["cond": "\\if true"]) == ["x", "if", "true"])
    }

    @Test func aRawValueJoinsTheTextAroundIt() throws {
        let values = ["two": "a b", "lead": " a", "trail": "a ", "quoted": "'c d'e"]
        #expect(try apply("x 'p':two'q'", values) == ["x", "pa", "bq"])
        #expect(try apply("x 'p':lead", values) == ["x", "p", "a"])
        #expect(try apply("x :trail'q'", values) == ["x", "a", "q"])
        #expect(try apply("x :quoted", values) == ["x", "c de"])
    }

    @Test func namesAndAssignments() throws {
        #expect(VariableReference.isValidName("crew_2"))
        #expect(!VariableReference.isValidName("2crew"))
        #expect(!VariableReference.isValidName("cr-ew"))
        #expect(ScriptVariables.assignment("crew=Kolonne = Nord")! == ("crew", "Kolonne = Nord"))
        #expect(ScriptVariables.assignment("crew=")! == ("crew", ""))
        #expect(ScriptVariables.assignment("crew")! == ("crew", nil), "-v NAME alone unsets it, as in psql")
        #expect(ScriptVariables.assignment("my-crew=x") == nil)
    }

    @Test func builtInsFollowEachCommand() throws {
        let variables = try ScriptVariables([("crew", "Ost")])
        var asked = 0
        variables.setSession(user: "mkhan", roles: ["foreman", "support"]) { asked += 1; return ["Ost", "Nord"] }
        #expect(try variables.value("ERROR") == "false")
        #expect(try variables.value("ROLE") == "foreman,support")
        #expect(asked == 0, "CREWS is read only when used")
        #expect(try variables.value("CREWS") == "Ost,Nord")
        #expect(try variables.value("CREWS") == "Ost,Nord")
        #expect(asked == 1)
        variables.commandEnded(status: .unreachable, rows: 0)
        #expect(try variables.value("ERROR") == "true")
        #expect(try variables.value("LAST_EXIT") == "2")
        variables.commandEnded(status: .success, rows: 12)
        #expect(try variables.value("ERROR") == "false")
        #expect(try variables.value("ROW_COUNT") == "12")
        try variables.unset("crew")
        #expect(try variables.value("crew") == nil)
        #expect(throws: ScriptVariables.InvalidName.self) { try variables.set("no good", "x") }
    }

    @Test func gsetIsFoundOnlyOutsideQuotes() throws {
        func gset(_ line: String) throws -> [String]? { try LineLexer.lex(line).commands[0].gsetWords { _ in nil } }
        #expect(try gset("whoami \\gset me_") == ["me_"])
        #expect(try gset("whoami \\gset") == [])
        #expect(try gset("comment 7 '\\gset'") == nil)
        #expect(try gset("comment 7 x\\gset") == nil)
        #expect(try gset("forms # \\gset") == nil)
    }
}

@Suite("Script conditionals")
struct ConditionalStackTests {
    /// Runs `\if`-lines and plain lines (`run X`) through a stack, returning the lines that ran.
    func ran(_ lines: [String]) throws -> [String] {
        var stack = ConditionalStack()
        var ran: [String] = []
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            switch words[0] {
            case "if": try stack.beginIf { try ScriptBoolean.parse([words[1]], for: "\\if") }
            case "elif": try stack.elseIf { try ScriptBoolean.parse([words[1]], for: "\\elif") }
            case "else": try stack.otherwise()
            case "endif": try stack.end()
            default: if stack.isActive { ran.append(words[1]) }
            }
        }
        return ran
    }

    @Test func branches() throws {
        #expect(try ran(["if true", "run a", "else", "run b", "endif", "run c"]) == ["a", "c"])
        #expect(try ran(["if off", "run a", "elif yes", "run b", "elif 1", "run c", "else", "run d", "endif"]) == ["b"])
        #expect(try ran(["if 0", "run a", "elif FALSE", "run b", "else", "run d", "endif"]) == ["d"])
        #expect(try ran(["if true", "if false", "run a", "else", "run b", "endif", "run c", "endif"]) == ["b", "c"])
    }

    /// Inside a branch not taken, nested expressions are never read: a bad one is no error.
    @Test func expressionsInABranchNotTakenAreNotRead() throws {
        #expect(try ran(["if false", "if nonsense", "run a", "elif nonsense", "run b", "endif", "endif", "run c"]) == ["c"])
    }

    @Test func aBadBooleanNamesTheValueAndOpensAFalseBranch() throws {
        var stack = ConditionalStack()
        #expect(throws: ScriptBoolean.NotABoolean(value: "maybe", command: "\\if")) {
            try stack.beginIf { try ScriptBoolean.parse(["maybe"], for: "\\if") }
        }
        #expect(!stack.isActive)
        try stack.otherwise()
        #expect(stack.isActive)
        try stack.end()
        #expect(stack.unclosedError == nil)
    }

    @Test func misplacedAndUnclosed() throws {
        var stack = ConditionalStack()
        #expect(throws: ConditionalStack.Misplaced.self) { try stack.end() }
        #expect(throws: ConditionalStack.Misplaced.self) { try stack.otherwise() }
        try stack.beginIf { true }
        try stack.otherwise()
        #expect(throws: ConditionalStack.Misplaced(description: "\\elif after \\else")) { try stack.elseIf { true } }
        #expect(stack.unclosedError?.description.contains("1 still open") == true)
    }
}
