import Foundation
import MICommands

/// psql's backslash commands for scripts, run by the run loop itself: variables, conditionals,
/// output files, `\watch`, `\timing` (docs/user-guide.md, "Scripts").
extension RunLoop {
    /// `\if`, `\elif`, `\else`, `\endif`; nil for any other backslash word. An expression
    /// (``ScriptExpression``) is read only when its branch could be taken.
    func conditional(_ meta: String, _ command: LexedCommand, interactive: Bool) -> LineOutcome? {
        guard ["\\if", "\\elif", "\\else", "\\endif"].contains(meta) else { return nil }
        let level = stack.count - 1
        func expression() throws -> Bool {
            try ScriptExpression.evaluate(command.pieces, for: meta, value: variables.value)
                .asBoolean(for: meta)
        }
        do {
            switch meta {
            case "\\if": try stack[level].branches.beginIf(expression)
            case "\\elif": try stack[level].branches.elseIf(expression)
            case "\\else": try stack[level].branches.otherwise()
            default: try stack[level].branches.end()
            }
            if meta == "\\else" || meta == "\\endif", !command.words.isEmpty || command.gset != nil {
                throw CommandError.failed("\(meta) takes no argument")
            }
            return .ok
        } catch {
            return report(error, interactive: interactive)
        }
    }

    /// `\let NAME EXPR`: NAME set to the value of EXPR (``ScriptExpression``; pgbench's `\set`),
    /// where `\set` joins its words as psql's does.
    func assign(_ command: LexedCommand, interactive: Bool) -> LineOutcome {
        do {
            var pieces = command.pieces
            guard case .text(let text)? = pieces.first else { throw CommandError.failed("usage: \\let NAME EXPR") }
            let rest = text.drop { $0 == " " || $0 == "\t" }
            let name = String(rest.prefix { $0 != " " && $0 != "\t" })
            pieces[0] = .text(String(rest.dropFirst(name.count)))
            guard !name.isEmpty else { throw CommandError.failed("usage: \\let NAME EXPR") }
            let value = try ScriptExpression.evaluate(pieces, for: "\\let", value: variables.value)
            try variables.set(name, value.asText)
            runner.commandEnded()
            return .ok
        } catch {
            return report(error, interactive: interactive)
        }
    }

    /// The other backslash commands, `name` as ``CommandRegistry/builtins`` spells it;
    /// `quotedFirst`: the first argument was written with quotes (so `'-n'` is not an option).
    func backslash(_ name: String, _ arguments: [String], quotedFirst: Bool = false, interactive: Bool) -> LineOutcome {
        do {
            switch name {
            case "\\set":
                guard let variable = arguments.first else {
                    runner.sink.message(variables.all.map { "\($0.name) = \(LineLexer.quote($0.value))" }.joined(separator: "\n"))
                    break
                }
                // psql joins the words of the value without spaces: quote a value with spaces.
                try variables.set(variable, arguments.dropFirst().joined())
            case "\\unset":
                guard !arguments.isEmpty else { throw CommandError.failed("usage: \\unset NAME...") }
                for name in arguments where try !variables.unset(name) {
                    runner.sink.warning("\\unset: variable '\(name)' was not set")
                }
            case "\\echo", "\\qecho", "\\warn":
                // psql's -n as the first word, written bare: no newline after the text.
                let newline = arguments.first != "-n" || quotedFirst
                let text = arguments.dropFirst(newline ? 0 : 1).joined(separator: " ")
                switch name {
                case "\\echo": runner.echo(text, newline: newline, to: .standardOutput)
                case "\\qecho": runner.echo(text, newline: newline, to: .results)
                default: runner.echo(text, newline: newline, to: .standardError)
                }
            case "\\o":
                try runner.redirect(to: arguments.isEmpty ? nil : OutputFile(words: arguments, shape: runner.runOutput))
            case "\\timing":
                guard arguments.count <= 1 else { throw CommandError.failed("usage: \\timing [on|off]") }
                timing = try arguments.first.map { try ScriptBoolean.parse([$0], for: "\\timing") } ?? !timing
                runner.sink.note("timing is \(timing ? "on" : "off")")
            case "\\?":
                let width = CommandRegistry.backslashCommands.map(\.name.count).max() ?? 0
                runner.sink.message(CommandRegistry.backslashCommands.map {
                    "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.abstract
                }.joined(separator: "\n"))
            case "\\watch":
                return watch(arguments, interactive: interactive)
            case "\\gset":
                throw CommandError.failed("\\gset ends a command line: COMMAND \\gset [PREFIX]")
            case "\\if", "\\elif", "\\else", "\\endif":
                // Read before substitution, so that a branch not taken stays unread: one that a
                // variable's value spelled out came too late.
                throw CommandError.failed("\(name) must be written at the start of its line, not come from a variable")
            default:
                // Unknown: the same message as for a word that names no command.
                throw CommandRunner.ParseFailure(description: CommandRegistry.unknownCommandMessage(name))
            }
            runner.commandEnded()
            return .ok
        } catch {
            return report(error, interactive: interactive)
        }
    }

    /// `\watch [SECONDS] [COUNT]`: the last command again every SECONDS (default 2), COUNT times
    /// or until Ctrl-C, each time under a line with the time. At the prompt the pager is off
    /// meanwhile and Ctrl-C ends the watch, not the console; in a script it ends the script.
    static let watchSeconds: ClosedRange<Double> = 0.1...(365 * 86_400)

    private func watch(_ arguments: [String], interactive: Bool) -> LineOutcome {
        let usage = CommandError.failed("usage: \\watch [SECONDS] [COUNT] (SECONDS from 0.1 to a year, default 2; "
                                        + "COUNT a whole number > 0)")
        guard arguments.count <= 2 else { return report(usage, interactive: interactive) }
        let seconds = arguments.first.map { Double($0) } ?? 2
        // psql's words for an interval it cannot wait: a sleep under 0.1 s would hammer the
        // store, and a longer one than a year is a typo (and no longer fits the clock's numbers).
        guard let seconds, seconds.isFinite, seconds >= Self.watchSeconds.lowerBound, seconds <= Self.watchSeconds.upperBound else {
            return report(CommandError.failed("\\watch: incorrect interval value '\(arguments[0])': SECONDS is from 0.1 "
                                              + "to \(Int(Self.watchSeconds.upperBound)) (a year)"), interactive: interactive)
        }
        let count = arguments.count > 1 ? Int(arguments[1]) : nil
        guard arguments.count < 2 || (count ?? 0) > 0 else { return report(usage, interactive: interactive) }
        guard let words = lastCommand else {
            return report(CommandError.failed("\\watch: no command to run again yet"), interactive: interactive)
        }
        let every = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        let times = TimeText(zone: runner.session.display.timeZone)
        var round = 0
        while true {
            round += 1
            runner.sideLine("\(times.table(Date())) (every \(every)s): " + words.map(LineLexer.quote).joined(separator: " "))
            let outcome = runCommand(words, paging: false, interactive: interactive)
            if case .ok = outcome {} else { return outcome }
            if let count, round >= count { return .ok }
            // Slept in slices, so Ctrl-C ends the wait at once.
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if Interruption.isRequested {
                    if interactive { Interruption.forget() }
                    return .ok  // a script sees the request before its next line and stops (exit 130)
                }
                usleep(UInt32(min(50_000, max(1, end.timeIntervalSinceNow * 1_000_000))))
            }
        }
    }
}
