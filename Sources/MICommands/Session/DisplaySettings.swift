import ArgumentParser
import Foundation

/// How results are rendered: table, CSV or JSON (`--format`, `set format`).
public enum DisplayFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    case table, csv, json
}

/// Expanded display (psql's `\x`): `on` draws one record per block (`-[ RECORD 1 ]-`, a
/// `column | value` line each) instead of a grid; `auto` does so for a listing whose grid would
/// be wider than the terminal (a grid whenever output is not a terminal).
public enum ExpandedDisplay: String, CaseIterable, Sendable {
    case off, on, auto
}

/// How the console shows results, for the rest of the session: the `--format`, `--expanded`
/// and `--no-pager` start-up flags, changed at the prompt with `set` (psql's `\pset`, `\x`;
/// sqlite3's `.mode`). Commands never read it; the console renders with it.
public struct DisplaySettings: Sendable, Equatable {
    public var format: DisplayFormat = .table
    /// `--csv-raw`: CSV cells exactly as stored, without the `'` that keeps spreadsheets from
    /// running `=`, `+`, `-`, `@` cells as formulas.
    public var csvRaw = false
    /// One record per block instead of a grid: always, never, or when the grid is too wide.
    public var expanded = ExpandedDisplay.off
    /// Long output at a terminal goes through `$PAGER` (default `less -FRX`).
    public var pager = true
    /// `--wide`: a table's grid shows every column, also those it leaves out to fit a screen
    /// (``Column/detail``).
    public var wide = false
    /// The zone tables show times in (`display.timeZone`; default the machine's).
    public var timeZone: TimeZone = .autoupdatingCurrent

    public init() {}

    /// Options any command takes, for that command only (`forms -x`, `show 12 --format json`,
    /// `audit -o csv --no-pager`), and what each changes; the first word is the one completion
    /// offers. One home for their spelling: the console's runner takes them out of the line
    /// before the command's own parser sees it, completion offers them, `help CMD` lists them.
    public static let perCommandOptions: [PerCommandOption] = [
        PerCommandOption(["--format", "-o"], value: DisplayFormat.allCases.map(\.rawValue),
                         help: "Output format: table, csv or json.") {
            $0.format = DisplayFormat(rawValue: $1)!
        },
        PerCommandOption(["--expanded", "-x"], help: "One record per block, not a grid.") { settings, _ in
            settings.expanded = .on
        },
        PerCommandOption(["--no-pager"], help: "Write to the terminal, not the pager.") { settings, _ in
            settings.pager = false
        },
        PerCommandOption(["--wide"], help: "Every column in a table, also those left out to fit a screen.") { settings, _ in
            settings.wide = true
        },
        PerCommandOption(["--csv-raw"], help: "CSV cells starting = + - @ as they are.") { settings, _ in
            settings.csvRaw = true
        },
    ]

    /// Takes the per-command display options out of a command line's words (after the command
    /// name): `--format json`, `--format=json`, `-o json`, `-x`. Returns the settings they give
    /// and the words left for the command's own parser; a bad or missing value is refused with
    /// the values accepted.
    public func applyingPerCommandOptions(to typed: [String]) throws -> (settings: DisplaySettings, words: [String]) {
        var settings = self
        var words: [String] = []
        var index = 0
        while index < typed.count {
            let word = typed[index]
            index += 1
            // The command name, and everything after `--` (the command's positionals), stay.
            guard words.count > 0, !words.contains("--") else { words.append(word); continue }
            let (name, inlineValue) = word.hasPrefix("--") && word.contains("=")
                ? (String(word.prefix { $0 != "=" }), String(word.drop { $0 != "=" }.dropFirst())) as (String, String?)
                : (word, nil)
            guard let option = Self.perCommandOptions.first(where: { $0.words.contains(name) }) else {
                words.append(word)
                continue
            }
            guard let accepted = option.values else {
                guard inlineValue == nil else { throw CommandError.failed("\(name) takes no value") }
                option.apply(&settings, "")
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < typed.count {
                value = typed[index]
                index += 1
            } else {
                throw CommandError.failed("\(name) needs a value: \(accepted.joined(separator: ", "))")
            }
            guard accepted.contains(value) else {
                throw CommandError.failed("\(name): '\(value)' is not one of \(accepted.joined(separator: ", "))")
            }
            option.apply(&settings, value)
        }
        return (settings, words)
    }
}

/// One display option every command takes (``DisplaySettings/perCommandOptions``).
public struct PerCommandOption: Sendable {
    /// Its spellings; the first is the one completion and help show first.
    public let words: [String]
    /// The values it takes, or nil for a flag.
    public let values: [String]?
    public let help: String
    let apply: @Sendable (inout DisplaySettings, String) -> Void

    init(_ words: [String], value values: [String]? = nil, help: String,
         apply: @escaping @Sendable (inout DisplaySettings, String) -> Void) {
        self.words = words
        self.values = values
        self.help = help
        self.apply = apply
    }

    /// The option's line in `help CMD`: `  -o, --format <table|csv|json>  Output format ...`.
    public var usage: String {
        let names = words.sorted { $0.count < $1.count }.joined(separator: ", ")
        return values.map { names + " <" + $0.joined(separator: "|") + ">" } ?? names
    }
}
