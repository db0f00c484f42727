import ArgumentParser
import Foundation
import MICommands

/// Runs one command line: tokenize with shell-like quoting, parse with the command definitions
/// (the same parser as the shell's `-c`), check the role, run. Throws what the command throws.
final class CommandRunner {
    let session: Session
    let out: OutputStream
    let err: OutputStream
    /// The renderer for the session's display settings (`set` changes them between lines).
    private(set) var sink: any RenderingSink
    private var sinkSettings: DisplaySettings
    /// The pager command when a pager exists; nil: never page. Looked up when output first
    /// reaches a terminal (a search of $PATH that a script run never needs).
    private(set) lazy var pagerCommand: String? = findPager()
    private let findPager: () -> String?
    /// What stdout holds over the whole run: one JSON document, one CSV header (``RunOutput``).
    let runOutput: RunOutput

    init(session: Session, out: OutputStream, err: OutputStream, runOutput: RunOutput = .perCommand,
         pagerCommand: @escaping @autoclosure () -> String?) {
        self.session = session
        self.out = out
        self.err = err
        self.runOutput = runOutput
        findPager = pagerCommand
        sinkSettings = session.display
        sink = session.display.makeSink(stdout: out, stderr: err, run: runOutput)
    }

    /// After each command line, whether it succeeded or not.
    func commandEnded() {
        sink.commandEnded()
    }

    /// The end of the run, however it ended: closes its JSON document (`[]` when the run, in
    /// JSON at its end, wrote no value).
    func runEnded() {
        sink.commandEnded()
        out.write(runOutput.closeDocument(always: sinkSettings.format == .json))
        out.flush()
    }

    /// `--dry-run`: every record says `"saved": false` in JSON.
    var unsavedRun = false {
        didSet { sink.unsaved = unsavedRun }
    }

    /// A line the parser refused, with the parser's own reason.
    struct ParseFailure: Error, CustomStringConvertible {
        let description: String
    }

    func run(words typed: [String]) throws {
        // `-x`, `--format json` after the command name: for this command only
        // (DisplaySettings.perCommandOptions).
        let settings: DisplaySettings, words: [String]
        do {
            (settings, words) = try session.display.applyingPerCommandOptions(to: typed)
        } catch let error as CommandError {
            let name = typed.first ?? ""
            throw ParseFailure(description: "\(name): \(error.description) (see 'help \(name)')")
        }
        // A comment or note longer than the site allows is refused before anything runs: stored,
        // it would slow every `show` and `report` of the form for everyone.
        let limit = session.config.limits.commentBytes
        if let long = words.dropFirst().first(where: { $0.utf8.count > limit }) {
            throw CommandError.failed("\(words[0]): a value of \(long.utf8.count) bytes is longer than the \(limit) bytes "
                                      + "allowed (limits.commentBytes in the config); nothing was changed")
        }
        if settings != sinkSettings {
            sink.finish()
            // Leaving JSON closes the run's JSON document; CSV after other output has its header.
            if settings.format != sinkSettings.format {
                if sinkSettings.format == .json { out.write(runOutput.closeDocument(always: false)) }
                if sinkSettings.format == .csv { runOutput.csvInterrupted() }
            }
            sink = settings.makeSink(stdout: out, stderr: err, run: runOutput)
            sink.unsaved = unsavedRun
            sinkSettings = settings
        }
        let screen = Pager.Screen.ofStdout()
        sink.state.screenColumns = screen?.columns  // for `expanded auto`; a window can be resized
        if settings.pager, let screen, let pagerCommand {
            out.beginPaging(screen: screen, command: pagerCommand)
        }
        defer { out.endPaging() }
        try runParsed(words)
    }

    private func runParsed(_ words: [String]) throws {
        guard let name = words.first, let root = CommandRegistry.command(named: name) else {
            throw ParseFailure(description: CommandRegistry.unknownCommandMessage(words.first ?? ""))
        }
        // Parsed by the named command's own type, without the completion-script check (LineParser).
        let arguments = Array(words.dropFirst())
        let parsed: ParsableCommand
        do {
            parsed = try LineParser.parse(root, arguments)
        } catch {
            if root.exitCode(for: error) == .success {
                sink.message(CommandRegistry.helpText(for: words) ?? root.fullMessage(for: error))
                return  // `CMD --help`: the same text as `help CMD`
            }
            throw ParseFailure(description: "\(name): \(root.message(for: error))"
                               + (Self.quotingHint(words) ?? " (see 'help \(name)')"))
        }
        guard let command = parsed as? any ConsoleCommand else {
            // `policy set --help`: for a nested command the parser returns its own help command
            // instead of throwing; show the help of the command the words name.
            if words.contains("--help") || words.contains("-h"), let text = CommandRegistry.helpText(for: words) {
                sink.message(text)
                return
            }
            throw ParseFailure(description: "unknown command '\(name)' (type 'help')")
        }
        let type = Swift.type(of: command)
        // A nested command is named with its parent (`policy set`).
        Interruption.commandStarts()
        defer { Interruption.commandEnded() }
        try session.run(command, named: type.name == name ? name : "\(name) \(type.name)", output: sink)
    }

    /// What a line the parser refused for extra words probably meant, said as the line to type:
    /// - `comment 13 Looks fine`: the comment's text must be quoted;
    /// - `move 'jdoe/Valve check – north' asmith 'on leave'`: the form name was quoted, so the
    ///   quoted phrase at the end is a reason without its `--note`;
    /// - `show jdoe/Pump station 4`: the name was split into three words: quote it.
    static func quotingHint(_ words: [String]) -> String? {
        guard let name = words.first, words.count > 2 else { return nil }
        let plainEnd = words.dropFirst().firstIndex(where: { $0.hasPrefix("-") }) ?? words.endIndex
        // What the user typed, with the quotes the tokenizer took away.
        func line(_ words: some Sequence<String>) -> String { words.map(Tokenizer.quote).joined(separator: " ") }
        if name == CommentCommand.name, plainEnd > 3, words[1].allSatisfy(\.isNumber) || words[1].contains(" ") {
            let text = words[2..<plainEnd].joined(separator: " ")
            return "; the comment's text must be quoted, as in: \(line(words[..<2])) \(Tokenizer.quote(text))"
        }
        if let last = words.last, !last.hasPrefix("-"), last.contains(where: \.isWhitespace) || words[1].contains(where: \.isWhitespace),
           CommandRegistry.helpText(for: [name])?.contains("--note") == true {
            return "; to give a reason use --note, as in: \(line(words.dropLast())) --note \(Tokenizer.quote(last))"
        }
        return nameQuotingHint(words)
    }

    /// `show jdoe/Pump station 4` splits the name into three words and the parser refuses the
    /// extra two. When an owner/name word is followed by plain words, say how to quote it.
    private static func nameQuotingHint(_ words: [String]) -> String? {
        let arguments = words.dropFirst()
        guard let start = arguments.firstIndex(where: { $0.contains("/") && !$0.hasPrefix("-") && !$0.hasPrefix("/") && !$0.hasPrefix(".") }),
              start + 1 < words.endIndex, !words[start + 1].hasPrefix("-") else { return nil }
        var name = [words[start]]
        for word in words[(start + 1)...] {
            if word.hasPrefix("-") { break }
            name.append(word)
        }
        let quoted = Tokenizer.quote(name.joined(separator: " "))
        return "; a form name with spaces must be quoted, as in: \(words[0]) \(quoted)"
    }
}
