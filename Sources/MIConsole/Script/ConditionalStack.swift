/// psql's `\if`, `\elif`, `\else`, `\endif` for one input (a script file, a sourced file, `-c`,
/// the prompt): which branch of each open `\if` is running. Lines are run only while every open
/// `\if` is in its taken branch; an expression is evaluated only when its branch could be taken
/// (inside a branch not taken, nested `\if`s are counted, not evaluated).
struct ConditionalStack {
    private enum State {
        /// This branch runs.
        case taken
        /// No branch has run yet: a later `\elif` or `\else` may.
        case waiting
        /// A branch already ran: the rest are skipped.
        case done
        /// Inside a branch not taken: the whole `\if` is skipped, expressions unread.
        case ignored
    }

    private struct Level {
        var state: State
        var sawElse = false
    }

    private var levels: [Level] = []

    /// Whether lines run here.
    var isActive: Bool { levels.last.map { $0.state == .taken } ?? true }
    /// How many `\if`s are open.
    var depth: Int { levels.count }

    struct Misplaced: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// `\if`: `condition` is evaluated only where lines run. When it throws (a value that is not
    /// a boolean), the `\if` still opens, as false, so its `\else` and `\endif` pair up.
    mutating func beginIf(_ condition: () throws -> Bool) throws {
        guard isActive else {
            levels.append(Level(state: .ignored))
            return
        }
        do {
            levels.append(Level(state: try condition() ? .taken : .waiting))
        } catch {
            levels.append(Level(state: .waiting))
            throw error
        }
    }

    /// `\elif`: evaluated only when no branch of its `\if` has run.
    mutating func elseIf(_ condition: () throws -> Bool) throws {
        guard var level = levels.popLast() else { throw Misplaced(description: "\\elif without a matching \\if") }
        defer { levels.append(level) }
        guard !level.sawElse else { throw Misplaced(description: "\\elif after \\else") }
        switch level.state {
        case .taken: level.state = .done
        case .waiting: level.state = try condition() ? .taken : .waiting
        case .done, .ignored: break
        }
    }

    /// `\else`: runs when no branch of its `\if` has.
    mutating func otherwise() throws {
        guard var level = levels.popLast() else { throw Misplaced(description: "\\else without a matching \\if") }
        defer { levels.append(level) }
        guard !level.sawElse else { throw Misplaced(description: "\\else after \\else") }
        level.sawElse = true
        switch level.state {
        case .taken: level.state = .done
        case .waiting: level.state = .taken
        case .done, .ignored: break
        }
    }

    /// `\endif`.
    mutating func end() throws {
        guard levels.popLast() != nil else { throw Misplaced(description: "\\endif without a matching \\if") }
    }

    /// What an input that ends with `\if`s still open is told.
    var unclosedError: Misplaced? {
        guard !levels.isEmpty else { return nil }
        return Misplaced(description: "\\if without \\endif: \(levels.count) still open at the end of the input")
    }
}

/// The booleans `\if` and `\elif` take, as psql spells them, case-insensitive.
enum ScriptBoolean {
    struct NotABoolean: Error, CustomStringConvertible, Equatable {
        let value: String
        let command: String
        var description: String {
            "\(command): '\(value)' is not a boolean (true/false, on/off, yes/no, 1/0)"
        }
    }

    static func parse(_ words: [String], for command: String) throws -> Bool {
        guard words.count == 1 else {
            throw NotABoolean(value: words.joined(separator: " "), command: command)
        }
        // psql's ParseVariableBool: any unique prefix of true, false, yes and no; on and off
        // from two letters (`o` could be either).
        let word = words[0].lowercased()
        func spells(_ full: String, from shortest: Int = 1) -> Bool { word.count >= shortest && full.hasPrefix(word) }
        if word == "1" || spells("true") || spells("yes") || word == "on" { return true }
        if word == "0" || spells("false") || spells("no") || spells("off", from: 2) { return false }
        throw NotABoolean(value: words[0], command: command)
    }
}
