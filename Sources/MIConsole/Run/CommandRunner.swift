import ArgumentParser
import Foundation
import MICommands
import MIStore

/// Runs one command line's words (``LineLexer``'s, variables looked up): parse with the command definitions
/// (the same parser as the shell's `-c`), check the role, run. Throws what the command throws.
final class CommandRunner {
    let session: Session
    /// Where results go: stdout, or the file `\o` named (``OutputFile``).
    private(set) var out: OutputStream
    let err: OutputStream
    /// The renderer for the session's display settings (`set` changes them between lines).
    private(set) var sink: any RenderingSink
    private var sinkSettings: DisplaySettings
    /// The pager command when a pager exists; nil: never page. Looked up when output first
    /// reaches a terminal (a search of $PATH that a script run never needs).
    private(set) lazy var pagerCommand: String? = findPager()
    private let findPager: () -> String?
    /// What the output holds over the whole run: one JSON document, one CSV header
    /// (``RunOutput``); stdout's, or the `\o` file's own.
    private(set) var runOutput: RunOutput
    private let stdout: OutputStream
    private let stdoutRunOutput: RunOutput
    /// The file `\o` named, until `\o` alone or the end of the run.
    private(set) var outputFile: OutputFile?
    /// Whether `\o` sent results to a file or device in this run: output no rollback takes back.
    private(set) var sentResultsElsewhere = false
    /// `-q`: results and errors only (no row counts, notes or progress); also while the rc
    /// file runs.
    var quiet: Bool {
        didSet { sink.state.quiet = quiet }
    }

    init(session: Session, out: OutputStream, err: OutputStream, runOutput: RunOutput = .perCommand,
         quiet: Bool = false, pagerCommand: @escaping @autoclosure () -> String?) {
        self.session = session
        self.out = out
        self.err = err
        self.runOutput = runOutput
        self.quiet = quiet
        stdout = out
        stdoutRunOutput = runOutput
        findPager = pagerCommand
        sinkSettings = session.display
        sink = session.display.makeSink(stdout: out, stderr: err, run: runOutput)
        sink.state.quiet = quiet
    }

    /// After each command line, whether it succeeded or not.
    func commandEnded() {
        sink.commandEnded()
    }

    /// The end of the run, however it ended: closes a `\o` file still open, then the run's
    /// JSON document (`[]` when the run, in JSON at its end, wrote no value).
    func runEnded() {
        if outputFile != nil {
            do {
                try redirect(to: nil)
            } catch {
                err.writeFailure(error)
                err.flush()
            }
        }
        sink.commandEnded()
        out.write(runOutput.closeDocument(always: sinkSettings.format == .json))
        out.flush()
    }

    /// `\o`: results from now on go to `file` (nil: stdout again). The file open until now is
    /// closed first: its JSON document ends, and it takes its name. Stdout's own document
    /// carries on where it was.
    func redirect(to file: OutputFile?) throws {
        sink.commandEnded()
        let previous = outputFile
        outputFile = file
        if file != nil { sentResultsElsewhere = true }
        out = file?.stream ?? stdout
        runOutput = file?.runOutput ?? stdoutRunOutput
        sink = makeSink(sinkSettings)
        if let previous {
            previous.stream.write(previous.runOutput.closeDocument(always: sinkSettings.format == .json))
            try previous.close()
        }
    }

    /// `\echo`, `\qecho`, `\warn`: a line of the script's own.
    func echo(_ text: String, newline: Bool = true, to target: EchoTarget) {
        sink.finish()
        let stream = switch target {
        case .standardOutput: stdout
        case .results: out
        case .standardError: err
        }
        stream.write(TerminalText.escape(text, keepNewlines: false) + (newline ? "\n" : ""))
        stream.flush()
    }

    /// Where psql's echo commands write: `\echo` to stdout, `\qecho` where results go (the
    /// `\o` file), `\warn` to stderr.
    enum EchoTarget { case standardOutput, results, standardError }

    /// A line for people beside the results (`\timing`, `\watch`'s header): with a table on the
    /// output; on stderr when the output is CSV or JSON, which must stay one document.
    func sideLine(_ text: String) {
        sink.finish()
        let stream = sinkSettings.format == .table ? out : err
        stream.write(TerminalText.escape(text, keepNewlines: false) + "\n")
        stream.flush()
    }

    private func makeSink(_ settings: DisplaySettings) -> any RenderingSink {
        let sink = settings.makeSink(stdout: out, stderr: err, run: runOutput)
        sink.unsaved = unsavedRun
        sink.state.quiet = quiet
        return sink
    }

    /// `--dry-run`: every record says `"saved": false` in JSON.
    var unsavedRun = false {
        didSet { sink.unsaved = unsavedRun }
    }

    /// A line the parser refused, with the parser's own reason.
    struct ParseFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs one command. `captures`: its rows are kept, not printed (`\gset`); `paging`:
    /// false while `\watch` runs it again and again. The result's row count is in the tap.
    @discardableResult
    func run(words typed: [String], captures: Bool = false, paging: Bool = true) throws -> ResultTap {
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
            sink = makeSink(settings)
            sinkSettings = settings
        }
        let screen = Pager.Screen.ofStdout()
        sink.state.screenColumns = screen?.columns  // for `expanded auto`; a window can be resized
        // A `\o` file is never paged: the screen is not where it goes.
        if settings.pager, paging, outputFile == nil, let screen, let pagerCommand {
            out.beginPaging(screen: screen, command: pagerCommand)
        }
        defer { out.endPaging() }
        let tap = ResultTap(forwardingTo: sink, captures: captures)
        try runParsed(words, output: tap)
        return tap
    }

    private func runParsed(_ words: [String], output tap: ResultTap) throws {
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
            if let typo = CommandRegistry.unknownSubcommandMessage(words) { throw ParseFailure(description: typo) }
            let message = root.message(for: error)
            // The hints read the words the parser refused; a refusal of the command's own
            // (`validate`) names its fix and gets none.
            let hint = Self.refusedExtraWords(message) ? Self.quotingHint(words, formExists: formExists) : nil
            throw ParseFailure(description: "\(name): \(MessageStyle.parserMessage(message))" + (hint ?? " (see 'help \(name)')"))
        }
        guard let command = parsed as? any ConsoleCommand else {
            // `policy set --help` and `policy help set` (which the parser's help texts suggest):
            // for a nested command the parser returns its own help command instead of throwing;
            // show the help of the command the other words name.
            let named = words.filter { !["help", "--help", "-h"].contains($0) }
            if let typo = CommandRegistry.unknownSubcommandMessage(named) { throw ParseFailure(description: typo) }
            if let text = CommandRegistry.helpText(for: named) {
                sink.message(text)
                return
            }
            throw ParseFailure(description: "unknown command '\(name)' (type 'help')")
        }
        let type = Swift.type(of: command)
        // A nested command is named with its parent (`policy set`).
        Interruption.commandStarts()
        defer { Interruption.commandEnded() }
        try session.run(command, named: type.name == name ? name : "\(name) \(type.name)", output: tap)
    }

    /// Whether argument-parser refused the line for words no argument takes ("Unexpected
    /// argument 'x'", "2 unexpected arguments: ..."): its message is all it makes public.
    static func refusedExtraWords(_ message: String) -> Bool {
        message.range(of: "unexpected argument", options: .caseInsensitive) != nil
    }

    /// Whether `text` names a form the session's user may see (`owner/name` or an id).
    private func formExists(_ text: String) -> Bool {
        do {
            return try session.store().listing.form(FormReference(parsing: text), owner: session.visibleOwner()).id > 0
        } catch {
            return false
        }
    }

    /// What a line the parser refused for extra words probably meant, said as the line to type:
    /// - `move 'jdoe/*' zangstrom, jdoe`: a space after a comma split a list in two;
    /// - `comment 13 Looks fine`: the comment's text must be quoted;
    /// - `move 'jdoe/Valve check – north' asmith 'on leave'`: the form name was quoted, so the
    ///   quoted phrase at the end is a reason without its `--note`;
    /// - `show jdoe/Pump station 4`: the name was split into three words: quote it, when those
    ///   words joined name a form (`formExists`) and so the quoted line would work.
    static func quotingHint(_ words: [String], formExists: (String) -> Bool) -> String? {
        guard let name = words.first, words.count > 2 else { return nil }
        let plainEnd = words.dropFirst().firstIndex(where: { $0.hasPrefix("-") }) ?? words.endIndex
        // What the user typed, with the quotes the lexer took away.
        func line(_ words: some Sequence<String>) -> String { words.map(LineLexer.quote).joined(separator: " ") }
        if let joined = listJoined(words[..<plainEnd]) {
            return "; a space after a comma splits the list, write it without, as in: \(line(joined + words[plainEnd...]))"
        }
        if name == CommentCommand.name, plainEnd > 3, words[1].allSatisfy(\.isNumber) || words[1].contains(" ") {
            let text = words[2..<plainEnd].joined(separator: " ")
            return "; the comment's text must be quoted, as in: \(line(words[..<2])) \(LineLexer.quote(text))"
        }
        if let last = words.last, !last.hasPrefix("-"), last.contains(where: \.isWhitespace) || words[1].contains(where: \.isWhitespace),
           CommandRegistry.helpText(for: [name])?.contains("--note") == true {
            return "; to give a reason use --note, as in: \(line(words.dropLast())) --note \(LineLexer.quote(last))"
        }
        return nameQuotingHint(words, formExists: formExists)
    }

    /// The words with each comma-separated list put back together (`zangstrom,` `jdoe` →
    /// `zangstrom,jdoe`; `zangstrom` `,jdoe` too), or nil when no list was split.
    private static func listJoined(_ words: ArraySlice<String>) -> [String]? {
        var joined: [String] = []
        var split = false
        for word in words {
            // A form's name may hold a comma; a list of ids does not hold a slash.
            if let last = joined.last, joined.count > 1, !last.contains("/"), !word.contains("/"),
               last.hasSuffix(",") || word.hasPrefix(",") {
                joined[joined.count - 1] = last + word
                split = true
            } else {
                joined.append(word)
            }
        }
        return split ? joined : nil
    }

    /// `show jdoe/Pump station 4` splits the name into three words and the parser refuses the
    /// extra two. When an owner/name word is followed by plain words, say how to quote it.
    private static func nameQuotingHint(_ words: [String], formExists: (String) -> Bool) -> String? {
        let arguments = words.dropFirst()
        guard let start = arguments.firstIndex(where: { $0.contains("/") && !$0.hasPrefix("-") && !$0.hasPrefix("/") && !$0.hasPrefix(".") }),
              start + 1 < words.endIndex, !words[start + 1].hasPrefix("-") else { return nil }
        var name = [words[start]]
        for word in words[(start + 1)...] {
            if word.hasPrefix("-") { break }
            name.append(word)
        }
        let joined = name.joined(separator: " ")
        guard formExists(joined) else { return nil }
        let quoted = LineLexer.quote(joined)
        return "; a form name with spaces must be quoted, as in: \(words[0]) \(quoted)"
    }
}
