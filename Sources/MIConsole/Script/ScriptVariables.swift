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

    init(_ initial: [(name: String, value: String)] = []) {
        values = ["ERROR": "false", "LAST_EXIT": "0", "ROW_COUNT": "0"]
        for (name, value) in initial { values[name] = value }
    }

    /// The session's built-ins; `crews` is asked on first use.
    func setSession(user: String, roles: [String], crews: @escaping () throws -> [String]) {
        if values["USER"] == nil { values["USER"] = user }
        if values["ROLE"] == nil { values["ROLE"] = roles.joined(separator: ",") }
        if values["CREWS"] == nil { deferred["CREWS"] = { try crews().joined(separator: ",") } }
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
        guard VariableSubstitution.isValidName(name) else { throw InvalidName(name: name) }
        deferred[name] = nil
        values[name] = value
    }

    func unset(_ name: String) throws {
        guard VariableSubstitution.isValidName(name) else { throw InvalidName(name: name) }
        deferred[name] = nil
        values[name] = nil
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

    /// `NAME=VALUE` from `-v`/`--set`, split at the first `=`; nil when there is none or the
    /// name is not one a variable can take.
    static func assignment(_ text: String) -> (name: String, value: String)? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let name = String(text[..<equals])
        guard VariableSubstitution.isValidName(name) else { return nil }
        return (name, String(text[text.index(after: equals)...]))
    }
}
