import MICommands

/// The variables of a run (psql's `\set`): what `-v NAME=VALUE` and `\set` give, and the
/// built-in ones the run loop keeps up to date.
///
/// After every line that runs a command: `ERROR` (`true`/`false`), `LAST_EXIT` (the exit status
/// that line would give on its own, 0 when it succeeded) and `ROW_COUNT` (the rows it returned:
/// a listing's rows, 1 for a record, 0 for a message or a failure). For the session: `USER`
/// (the uid), `ROLE` (the roles, comma-separated) and `CREWS` (the crews the user may see,
/// comma-separated; read from the directory the first time it is used).
final class ScriptVariables {
    private var values: [String: String] = [:]
    /// Values read only when first used (`CREWS` asks the directory).
    private var deferred: [String: () throws -> String] = [:]

    /// A name `\set` or `-v` cannot take.
    struct InvalidName: Error, CustomStringConvertible {
        let name: String
        var description: String {
            "invalid variable name '\(name)': use letters, digits and '_', not starting with a digit"
        }
    }

    /// The variables only the console sets: who is logged in and how the last command went. A
    /// script that could set them could make `:USER` say someone else (psql's special variables
    /// are kept the same way, by hooks in variables.c).
    static let builtIns: Set<String> = ["USER", "ROLE", "CREWS", "ERROR", "LAST_EXIT", "ROW_COUNT"]

    /// `\set USER …`, `-v ROW_COUNT=…`: refused.
    struct BuiltIn: Error, CustomStringConvertible {
        let name: String
        var description: String {
            "\(name) is set by the console (who is logged in, how the last command went); it cannot be set or unset"
        }
    }

    /// `ON_ERROR_STOP`, psql's name for `--on-error stop|continue`: a boolean.
    static let onErrorStop = "ON_ERROR_STOP"

    init() {
        values = ["ERROR": "false", "LAST_EXIT": "0", "ROW_COUNT": "0"]
    }

    /// `initial`: `-v` in order; a nil value (`-v NAME`, no `=`) unsets NAME, as in psql.
    convenience init(_ initial: [(name: String, value: String?)]) throws {
        self.init()
        for (name, value) in initial {
            if let value { try set(name, value) } else { try unset(name) }
        }
    }

    /// The variables as they are now, to change apart from these (a run started again).
    func copy() -> ScriptVariables {
        let copy = ScriptVariables()
        copy.values = values
        copy.deferred = deferred
        return copy
    }

    /// The session's built-ins; `crews` is asked on first use.
    func setSession(user: String, roles: [String], crews: @escaping () throws -> [String]) {
        values["USER"] = user
        values["ROLE"] = roles.joined(separator: ",")
        deferred["CREWS"] = { try crews().joined(separator: ",") }
    }

    func value(_ name: String) throws -> String? {
        if let value = values[name] { return value }
        guard let read = deferred[name] else { return nil }
        let value = try read()
        deferred[name] = nil
        values[name] = value
        return value
    }

    func set(_ name: String, _ value: String) throws {
        guard VariableReference.isValidName(name) else { throw InvalidName(name: name) }
        guard !Self.builtIns.contains(name) else { throw BuiltIn(name: name) }
        if name == Self.onErrorStop { _ = try ScriptBoolean.parse([value], for: name) }
        deferred[name] = nil
        values[name] = value
    }

    /// Removes `name`; false when it was not set.
    @discardableResult
    func unset(_ name: String) throws -> Bool {
        guard VariableReference.isValidName(name) else { throw InvalidName(name: name) }
        guard !Self.builtIns.contains(name) else { throw BuiltIn(name: name) }
        let wasSet = values[name] != nil || deferred[name] != nil
        deferred[name] = nil
        values[name] = nil
        return wasSet
    }

    /// What `ON_ERROR_STOP` says (set only to a boolean), or nil when it is not set.
    var stopsOnError: Bool? {
        values[Self.onErrorStop].flatMap { try? ScriptBoolean.parse([$0], for: Self.onErrorStop) }
    }

    /// Every variable that has a value, by name (`\set` alone); deferred ones are left out
    /// until used, so listing never reads the directory.
    var all: [(name: String, value: String)] {
        values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Every name set, those read on first use included (Tab after `:`, `\unset`).
    var names: [String] { Set(values.keys).union(deferred.keys).sorted() }

    /// After a line that ran a command: how it went.
    func commandEnded(status: ExitStatus, rows: Int) {
        values["ERROR"] = status == .success ? "false" : "true"
        values["LAST_EXIT"] = String(status.rawValue)
        values["ROW_COUNT"] = String(rows)
    }

    /// `NAME=VALUE` from `-v`/`--set`, split at the first `=`, or `NAME` alone (value nil: unset
    /// it); nil when the name is not one a variable can take.
    static func assignment(_ text: String) -> (name: String, value: String?)? {
        let equals = text.firstIndex(of: "=")
        let name = String(text[..<(equals ?? text.endIndex)])
        guard VariableReference.isValidName(name) else { return nil }
        return (name, equals.map { String(text[text.index(after: $0)...]) })
    }
}
