/// psql's backslash words inside a script line, found by the tokenizer's quoting rules, so a
/// quoted `'\gset'` or `'\\'` (or one inside a quoted value) is text: the `\\` between commands
/// on one line, and a trailing `\gset [PREFIX]`.
public enum ScriptLine {
    /// psql's `\\` between commands on one line (`whoami \gset p_ \\ \echo :p_uid`): the
    /// line's commands in order; the line itself when it has none.
    public static func commands(_ line: String) -> [String] {
        guard line.contains("\\\\") else { return [line] }
        let scalars = Array(line.unicodeScalars)
        var commands: [String] = []
        var start = 0
        walk(scalars) { index in
            guard word(scalars, at: index, is: "\\\\") else { return false }
            commands.append(text(scalars[start..<index]))
            start = index + 2
            return false
        }
        guard !commands.isEmpty else { return [line] }
        return commands + [text(scalars[min(start, scalars.count)...])]
    }

    /// A command line that ends in `\gset [PREFIX]`: the command, and the words after `\gset`.
    static func trailingGset(_ line: String) -> (command: String, gset: String?) {
        guard line.utf8.contains(UInt8(ascii: "\\")) else { return (line, nil) }
        let scalars = Array(line.unicodeScalars)
        var found: (command: String, gset: String?) = (line, nil)
        walk(scalars) { index in
            guard word(scalars, at: index, is: "\\gset") else { return false }
            found = (text(scalars[..<index]), text(scalars[(index + 5)...]))
            return true
        }
        return found
    }

    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    /// Whether the word starting at `index` is `word` (followed by a space or the end).
    private static func word(_ scalars: [Unicode.Scalar], at index: Int, is word: String) -> Bool {
        let wanted = Array(word.unicodeScalars)
        let end = index + wanted.count
        return end <= scalars.count && Array(scalars[index..<end]) == wanted && (end == scalars.count || isSpace(scalars[end]))
    }

    /// Calls `visit` with the index of each backslash that starts a word outside quotes, before
    /// a comment, until it returns true. The word `\\` is stepped over whole.
    private static func walk(_ scalars: [Unicode.Scalar], _ visit: (Int) -> Bool) {
        var inWord = false
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case let scalar where isSpace(scalar):
                inWord = false
                index += 1
            case "#" where !inWord:
                return
            case "'":
                inWord = true
                index += 1
                while index < scalars.count, scalars[index] != "'" { index += 1 }
                index += 1
            case "\"":
                inWord = true
                index += 1
                while index < scalars.count, scalars[index] != "\"" { index += scalars[index] == "\\" ? 2 : 1 }
                index += 1
            case "\\":
                if !inWord, visit(index) { return }
                inWord = true
                index += 2
            default:
                inWord = true
                index += 1
            }
        }
    }
}
