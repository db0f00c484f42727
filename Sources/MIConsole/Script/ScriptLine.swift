/// A command line that ends in psql's `\gset [PREFIX]`: the command, and the words after
/// `\gset`. Found by the tokenizer's quoting rules, so a quoted `'\gset'` (or one inside a
/// quoted value) is text.
enum ScriptLine {
    /// psql's `\\` between commands on one line (`whoami \gset p_ \\ \echo :p_uid`): the
    /// line's commands in order. The separator is the word `\\` alone, outside quotes and
    /// before a comment; the line itself when it has none.
    static func commands(_ line: String) -> [String] {
        guard line.contains("\\\\") else { return [line] }
        let scalars = Array(line.unicodeScalars)
        var commands: [String] = []
        var start = 0
        var inWord = false
        var index = 0
        func isSpace(_ at: Int) -> Bool { at >= scalars.count || [" ", "\t", "\n", "\r"].contains(scalars[at]) }
        while index < scalars.count {
            switch scalars[index] {
            case " ", "\t", "\n", "\r":
                inWord = false
                index += 1
            case "#" where !inWord:
                index = scalars.count
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
                if !inWord, index + 1 < scalars.count, scalars[index + 1] == "\\", isSpace(index + 2) {
                    commands.append(String(String.UnicodeScalarView(scalars[start..<index])))
                    index += 2
                    start = index
                } else {
                    inWord = true
                    index += 2
                }
            default:
                inWord = true
                index += 1
            }
        }
        if commands.isEmpty { return [line] }
        commands.append(String(String.UnicodeScalarView(scalars[min(start, scalars.count)...])))
        return commands
    }

    static func trailingGset(_ line: String) -> (command: String, gset: String?) {
        guard line.utf8.contains(UInt8(ascii: "\\")) else { return (line, nil) }
        let scalars = Array(line.unicodeScalars)
        let marker = Array("\\gset".unicodeScalars)
        var inWord = false
        var index = 0
        while index < scalars.count {
            switch scalars[index] {
            case " ", "\t", "\n", "\r":
                inWord = false
                index += 1
            case "#" where !inWord:
                return (line, nil)
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
                let end = index + marker.count
                if !inWord, end <= scalars.count, Array(scalars[index..<end]) == marker,
                   end == scalars.count || [" ", "\t", "\n", "\r"].contains(scalars[end]) {
                    let command = String(String.UnicodeScalarView(scalars[..<index]))
                    let rest = String(String.UnicodeScalarView(scalars[end...]))
                    return (command, rest)
                }
                inWord = true
                index += 2
            default:
                inWord = true
                index += 1
            }
        }
        return (line, nil)
    }
}
