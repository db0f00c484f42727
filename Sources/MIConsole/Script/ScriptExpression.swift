/// An expression of `\if`, `\elif` and `\let`, in pgbench's syntax: integers, quoted strings
/// (`'held'`, `"held"`), words, `=` `!=` `<>` `<` `<=` `>` `>=`, `+` `-` `*` `/` `%`, `AND`,
/// `OR`, `NOT` (any case) and parentheses: `\if :ROW_COUNT > 0`, `\if :'state' = 'held' AND
/// NOT :ERROR`.
///
/// Read from the command's pieces (``LexedCommand/pieces``), not from its substituted
/// text: a variable is one operand whatever its value holds (`a=b`, `)`, `OR`), never scanned
/// again. A comparison is numeric when both sides are whole numbers, else by text. A lone
/// operand (`\if :go`) is read as psql reads a boolean (``ScriptBoolean``), so plain `\if`
/// keeps psql's meaning.
public enum ScriptExpression {
    public enum Value: Equatable, Sendable {
        case integer(Int)
        case text(String)
        case boolean(Bool)

        var asText: String {
            switch self {
            case .integer(let number): String(number)
            case .text(let text): text
            case .boolean(let truth): truth ? "true" : "false"
            }
        }

        var asInteger: Int? {
            switch self {
            case .integer(let number): number
            case .text(let text): Int(text)
            case .boolean: nil
            }
        }

        func asBoolean(for command: String) throws -> Bool {
            if case .boolean(let truth) = self { return truth }
            return try ScriptBoolean.parse([asText], for: command)
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        let command: String
        let problem: String
        var description: String { "\(command): \(problem)" }
    }

    private enum Token: Equatable {
        case value(Value)
        case symbol(String)
    }

    /// The value of the expression in `pieces`; `value` gives a variable's (nil: not set).
    public static func evaluate(_ pieces: [LexedCommand.Piece], for command: String,
                                value: (String) throws -> String?) throws -> Value {
        var parser = Parser(tokens: try tokens(pieces, for: command, value: value), command: command)
        guard !parser.tokens.isEmpty else { throw ScriptBoolean.NotABoolean(value: "", command: command) }
        let result = try parser.or()
        if parser.position < parser.tokens.count {
            throw Malformed(command: command, problem: "unexpected \(parser.describe(parser.tokens[parser.position])) "
                            + "(operators: = != < <= > >= + - * / % AND OR NOT, and parentheses)")
        }
        return result
    }

    private static let symbols = ["<=", ">=", "<>", "!=", "==", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")"]

    private static func tokens(_ pieces: [LexedCommand.Piece], for command: String,
                               value: (String) throws -> String?) throws -> [Token] {
        var tokens: [Token] = []
        for piece in pieces {
            switch piece {
            case .reference(let reference):
                if reference.kind == .isSet {
                    tokens.append(.value(.boolean(try value(reference.name) != nil)))
                } else {
                    guard let text = try value(reference.name) else {
                        throw VariableReference.Unset(name: reference.name)
                    }
                    tokens.append(.value(.text(text)))
                }
            case .text(let text):
                tokens += try scan(text, for: command)
            }
        }
        return tokens
    }

    /// The literals, words and operators of a piece of the line as written.
    private static func scan(_ text: String, for command: String) throws -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar == "." || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == " " || scalar == "\t" { index += 1; continue }
            if scalar == "#" { break }
            if scalar == "'" || scalar == "\"" {
                var literal = String.UnicodeScalarView()
                var end = index + 1
                while end < scalars.count, scalars[end] != scalar {
                    if scalar == "\"", scalars[end] == "\\", end + 1 < scalars.count { end += 1 }
                    literal.append(scalars[end])
                    end += 1
                }
                guard end < scalars.count else { throw LineLexer.UnterminatedQuote(quote: Character(scalar)) }
                tokens.append(.value(.text(String(literal))))
                index = end + 1
                continue
            }
            if let symbol = symbols.first(where: { matches($0, scalars, at: index) }) {
                tokens.append(.symbol(symbol == "==" ? "=" : symbol == "<>" ? "!=" : symbol))
                index += symbol.unicodeScalars.count
                continue
            }
            guard isWordScalar(scalar) else {
                throw Malformed(command: command, problem: "unexpected '\(scalar)' in the expression")
            }
            var end = index
            while end < scalars.count, isWordScalar(scalars[end]) { end += 1 }
            let word = String(String.UnicodeScalarView(scalars[index..<end]))
            switch word.uppercased() {
            case "AND", "OR", "NOT": tokens.append(.symbol(word.uppercased()))
            default: tokens.append(.value(Int(word).map(Value.integer) ?? .text(word)))
            }
            index = end
        }
        return tokens
    }

    private static func matches(_ symbol: String, _ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        let wanted = Array(symbol.unicodeScalars)
        return index + wanted.count <= scalars.count && Array(scalars[index..<index + wanted.count]) == wanted
    }

    /// Recursive descent, loosest first: OR, AND, NOT, comparison, + -, * / %, unary -, atom.
    private struct Parser {
        let tokens: [Token]
        let command: String
        var position = 0

        init(tokens: [Token], command: String) {
            self.tokens = tokens
            self.command = command
        }

        func describe(_ token: Token) -> String {
            switch token {
            case .symbol(let symbol): "'\(symbol)'"
            case .value(let value): "'\(value.asText)' (an operator was expected)"
            }
        }

        mutating func take(_ symbols: Set<String>) -> String? {
            guard position < tokens.count, case .symbol(let symbol) = tokens[position], symbols.contains(symbol) else {
                return nil
            }
            position += 1
            return symbol
        }

        mutating func or() throws -> Value {
            var left = try and()
            while take(["OR"]) != nil {
                let right = try and()
                left = .boolean(try left.asBoolean(for: command) || right.asBoolean(for: command))
            }
            return left
        }

        mutating func and() throws -> Value {
            var left = try not()
            while take(["AND"]) != nil {
                let right = try not()
                left = .boolean(try left.asBoolean(for: command) && right.asBoolean(for: command))
            }
            return left
        }

        mutating func not() throws -> Value {
            if take(["NOT"]) != nil { return .boolean(try !not().asBoolean(for: command)) }
            return try comparison()
        }

        mutating func comparison() throws -> Value {
            let left = try sum()
            guard let symbol = take(["=", "!=", "<", "<=", ">", ">="]) else { return left }
            let right = try sum()
            let order: Int
            if let a = left.asInteger, let b = right.asInteger {
                order = a < b ? -1 : a == b ? 0 : 1
            } else {
                order = left.asText < right.asText ? -1 : left.asText == right.asText ? 0 : 1
            }
            switch symbol {
            case "=": return .boolean(order == 0)
            case "!=": return .boolean(order != 0)
            case "<": return .boolean(order < 0)
            case "<=": return .boolean(order <= 0)
            case ">": return .boolean(order > 0)
            default: return .boolean(order >= 0)
            }
        }

        mutating func sum() throws -> Value {
            var left = try product()
            while let symbol = take(["+", "-"]) {
                let (a, b) = try integers(left, try product(), symbol)
                let (result, overflow) = symbol == "+" ? a.addingReportingOverflow(b) : a.subtractingReportingOverflow(b)
                guard !overflow else { throw Malformed(command: command, problem: "the number is too large") }
                left = .integer(result)
            }
            return left
        }

        mutating func product() throws -> Value {
            var left = try unary()
            while let symbol = take(["*", "/", "%"]) {
                let (a, b) = try integers(left, try unary(), symbol)
                guard symbol == "*" || b != 0 else { throw Malformed(command: command, problem: "division by zero") }
                let (result, overflow) = switch symbol {
                case "*": a.multipliedReportingOverflow(by: b)
                case "/": a.dividedReportingOverflow(by: b)
                default: a.remainderReportingOverflow(dividingBy: b)
                }
                guard !overflow else { throw Malformed(command: command, problem: "the number is too large") }
                left = .integer(result)
            }
            return left
        }

        mutating func unary() throws -> Value {
            if take(["-"]) != nil {
                let (_, a) = try integers(.integer(0), try unary(), "-")
                let (result, overflow) = 0.subtractingReportingOverflow(a)
                guard !overflow else { throw Malformed(command: command, problem: "the number is too large") }
                return .integer(result)
            }
            return try atom()
        }

        mutating func atom() throws -> Value {
            if take(["("]) != nil {
                let inner = try or()
                guard take([")"]) != nil else { throw Malformed(command: command, problem: "a '(' is not closed") }
                return inner
            }
            guard position < tokens.count else { throw Malformed(command: command, problem: "the expression ends too soon") }
            guard case .value(let value) = tokens[position] else {
                throw Malformed(command: command, problem: "unexpected \(describe(tokens[position]))")
            }
            position += 1
            return value
        }

        func integers(_ left: Value, _ right: Value, _ symbol: String) throws -> (Int, Int) {
            guard let a = left.asInteger, let b = right.asInteger else {
                throw Malformed(command: command, problem: "'\(symbol)' takes whole numbers, not '\(left.asText)' and '\(right.asText)'")
            }
            return (a, b)
        }
    }
}
