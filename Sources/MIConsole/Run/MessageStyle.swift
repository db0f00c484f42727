/// The one style of the console's error messages: lower case, no trailing period, the fix named
/// ("no form 2", "missing --note <text> (see 'help submit')"). Messages come from many places
/// (the store, the directory, argument-parser); ``ErrorReport/message(for:)`` passes every one
/// through ``sentence(_:)``, and a parse error through ``parserMessage(_:)`` first.
enum MessageStyle {
    /// `message` with its first word lower-cased when that is an ordinary capitalized word
    /// ("There", "Form", not "PostgreSQL", "LDAP", "GSSAPI" or a quoted name), and without one
    /// trailing period (an ellipsis stays).
    static func sentence(_ message: String) -> String {
        var text = Substring(message)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        if text.hasSuffix("."), !text.hasSuffix("..") { text.removeLast() }
        let word = text.prefix { $0.isLetter }
        if let first = word.first, first.isUppercase, word.dropFirst().allSatisfy(\.isLowercase) {
            return first.lowercased() + text.dropFirst()
        }
        return String(text)
    }

    /// argument-parser's messages (it makes only their text public) said in the console's
    /// words: "Missing expected argument '--note <text>'" is "missing --note <text>"; "The value
    /// 'x' is invalid for '<setting>'. Please provide one of 'a' or 'b'." is "'x' is not a
    /// setting: give one of 'a' or 'b'", and for an option "--state: 'x' is not one of 'a' or
    /// 'b'" (as `--format` says it); a value refused with a reason of its own is that reason.
    static func parserMessage(_ message: String) -> String {
        if let match = message.wholeMatch(of: #/Missing expected argument '(.+)'/#) {
            return "missing \(match.1)"
        }
        if let match = message.wholeMatch(of: #/Missing value for '(.+)'/#) {
            return "missing the value of \(match.1)"
        }
        if let match = message.wholeMatch(of: #/Missing one of: (.+)/#) {
            return "missing one of \(match.1)"
        }
        if message.hasPrefix("Missing required subcommand") {
            return "missing the subcommand"
        }
        if let match = message.wholeMatch(of: #/The value '(.*)' is invalid for '(?:(\S+) )?<([^>]+)>'(.*)/#.dotMatchesNewlines()) {
            let (value, option, valueName, rest) = (match.1, match.2, match.3, match.4)
            if rest.hasPrefix(": ") {
                return (option.map { "\($0): '\(value)': " } ?? "") + sentence(String(rest.dropFirst(2)))
            }
            let choices = Self.choices(String(rest))
            if let option {
                return "\(option): '\(value)' is not " + (choices.isEmpty ? "a valid value" : "one of \(choices)")
            }
            return "'\(value)' is not a \(valueName)" + (choices.isEmpty ? "" : ": give one of \(choices)")
        }
        return sentence(message)
    }

    /// The values a refusal lists (". Please provide one of 'a', 'b' or 'c'." or a bulleted
    /// list of the following lines), as "'a', 'b' or 'c'".
    private static func choices(_ rest: String) -> String {
        if let match = rest.wholeMatch(of: #/\. Please provide one of (.+)\./#) {
            return String(match.1)
        }
        let bullets = rest.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let value = line.drop { $0 == " " || $0 == "-" }
            return value.isEmpty ? nil : "'\(value)'"
        }
        guard let last = bullets.last else { return "" }
        return bullets.count == 1 ? last : bullets.dropLast().joined(separator: ", ") + " or " + last
    }
}
