import Foundation
import ArgumentParser
import MICommands

/// `--format`: how command results are rendered (also `set format` at the prompt).
public typealias OutputFormat = DisplayFormat

extension DisplaySettings {
    /// The renderer for these settings.
    func makeSink(stdout: OutputStream, stderr: OutputStream, run: RunOutput = .perCommand) -> any RenderingSink {
        let sink: any RenderingSink
        switch format {
        case .table: sink = TableRenderer(out: stdout, err: stderr)
        case .csv: sink = CSVRenderer(out: stdout, err: stderr, neutraliseFormulas: !csvRaw)
        case .json: sink = JSONRenderer(out: stdout, err: stderr)
        }
        sink.state.expanded = expanded
        sink.state.wide = wide
        sink.state.times = TimeText(zone: timeZone)
        sink.state.run = run
        return sink
    }
}

/// An output sink that writes to the console's streams: the table, CSV and JSON renderers
/// each implement `record`, `beginRows`, `row`, `endRows` and `message`; what they share is
/// below.
protocol RenderingSink: OutputSink {
    var state: RenderingState { get set }
    /// The last line of a run that saved nothing (`--dry-run`, a failed `--atomic` run).
    func closingUnsaved(_ text: String)
    /// After each command, whether it succeeded or not: ends what it left open, then `finish`.
    func commandEnded()
}

/// What every renderer holds: its streams and how this command's output is shown.
struct RenderingState {
    let out: OutputStream
    let err: OutputStream
    /// One record per block instead of a grid (tables only): always, never, or when the grid
    /// is wider than `screenColumns`.
    var expanded = ExpandedDisplay.off
    /// A table's grid shows its detail columns too (``Column/detail``, `--wide`).
    var wide = false
    /// The terminal's width when stdout is one (set before each command: a window can be
    /// resized between commands); nil otherwise, where `auto` draws grids.
    var screenColumns: Int?
    /// Writes times in the site's zone.
    var times = TimeText(zone: .autoupdatingCurrent)
    /// A run whose changes are not saved (`--dry-run`): JSON records carry `"saved": false`.
    var unsaved = false
    /// What stdout holds over the whole run (one JSON document, one CSV header).
    var run = RunOutput.perCommand
    /// `-q`: results and errors only: no row counts, notes or progress.
    var quiet = false
}

/// Whether stderr is a terminal, where progress bars are drawn (asked once).
private let progressOnTerminal = isatty(2) == 1

extension RenderingSink {
    var out: OutputStream { state.out }
    var err: OutputStream { state.err }
    var expanded: ExpandedDisplay {
        get { state.expanded }
        set { state.expanded = newValue }
    }
    var times: TimeText { state.times }
    var run: RunOutput { state.run }
    var unsaved: Bool {
        get { state.unsaved }
        set { state.unsaved = newValue }
    }

    /// A value as table or CSV text: times in the site's zone, lists joined with ", ".
    func text(_ value: Value, forTable: Bool) -> String {
        switch value {
        case .time(let date): return forTable ? times.table(date) : times.iso8601(date)
        case .list(let items): return items.map { text($0, forTable: forTable) }.joined(separator: ", ")
        case .object(let fields): return fields.map { "\($0.key): \(text($0.value, forTable: forTable))" }.joined(separator: "; ")
        default: return value.text
        }
    }

    func closingUnsaved(_ text: String) {
        message(text)
        finish()
    }

    func warning(_ text: String) {
        out.flush()
        err.write(ErrorStyle.current.warning("warning:") + " " + TerminalText.escape(text, keepNewlines: false) + "\n")
        err.flush()
    }

    func note(_ text: String) {
        guard !state.quiet else { return }
        out.flush()
        err.write("note: " + TerminalText.escape(text, keepNewlines: false) + "\n")
        err.flush()
    }

    func progress(_ label: String, done: Int, total: Int) {
        guard progressOnTerminal, total > 0, !state.quiet else { return }
        let width = 30
        let filled = min(width, done * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        err.write("\r\(label) [\(bar)] \(done)/\(total)" + (done >= total ? "\n" : ""))
        err.flush()
    }

    func commandEnded() {
        finish()
    }

    /// Called after each command so output and errors interleave in order.
    func finish() {
        out.flush()
        err.flush()
    }
}
