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
    /// The zone tables show times in (`display.timeZone`; default the machine's).
    public var timeZone: TimeZone = .autoupdatingCurrent

    public init() {}

    /// Words any command takes, for that command only (`forms -x`, `audit --no-pager`), and
    /// what each changes; the first word is the one completion offers. One home for their
    /// spelling: the console's runner applies them, completion offers them.
    public static let perCommandOptions: [(words: [String], apply: @Sendable (inout DisplaySettings) -> Void)] = [
        (["--expanded", "-x"], { $0.expanded = .on }),
        (["--no-pager"], { $0.pager = false }),
    ]
}
