import Testing
@testable import MIConsole

/// `\if`/`\let` expressions (pgbench's syntax) over the line's pieces, and psql's booleans.
@Suite("Script expressions")
struct ScriptExpressionTests {
    let values = ["n": "3", "state": "held", "odd": "a=b OR 1)", "big": "9223372036854775807", "go": "true"]

    func evaluate(_ text: String) throws -> ScriptExpression.Value {
        try ScriptExpression.evaluate(LineLexer.lex("\\if " + text).commands[0].pieces, for: "\\if") { values[$0] }
    }

    func truth(_ text: String) throws -> Bool { try evaluate(text).asBoolean(for: "\\if") }

    @Test(arguments: [
        (":n > 0", true), (":n = 3", true), (":n == 3", true), (":n != 3", false), (":n <> 4", true),
        (":n < 10", true), (":n <= 2", false), (":n >= 3", true), (":'state' = 'held'", true),
        (":'state' = \"held\"", true), (":'state' != 'held' OR :n > 2", true), ("NOT :go", false),
        ("not (:n > 5) and :go", true), ("(:n + 1) * 2 = 8", true), (":n % 2 = 1", true), ("-:n < 0", true),
        (":'odd' = 'a=b OR 1)'", true), ("10 > 9", true), ("'10' > '9'", true), ("'b' > 'a'", true),
        (":{?n} AND NOT :{?nobody}", true), ("t", true), ("of", false), ("Y", true), ("1", true),
    ])
    func compares(_ expression: String, _ expected: Bool) throws {
        #expect(try truth(expression) == expected, "\(expression)")
    }

    @Test func letValues() throws {
        #expect(try evaluate(":n * 2 + 1") == .integer(7))
        #expect(try evaluate(":n > 1").asText == "true")
        #expect(try evaluate("'text'").asText == "text")
    }

    @Test(arguments: [
        (":n >", "ends too soon"), ("(:n > 1", "not closed"), (":n 3", "an operator was expected"),
        ("7 / 0", "division by zero"), ("7 % 0", "division by zero"), (":big + 1", "too large"),
        (":'state' + 1", "takes whole numbers"), (":n $ 1", "unexpected '$'"), ("'open", "unterminated"),
        (":nobody = 1", "'nobody' is not set"), (":n", "'3' is not a boolean"), ("o", "'o' is not a boolean"),
        ("", "is not a boolean"),
    ])
    func refuses(_ expression: String, _ message: String) {
        do {
            _ = try truth(expression)
            Issue.record("\(expression) was accepted")
        } catch {
            #expect("\(error)".contains(message), "\(expression): \(error)")
        }
    }
}
