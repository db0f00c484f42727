import Foundation
import ArgumentParser
import MICommands

/// `--format`: how command results are rendered (also `set format` at the prompt).
public typealias OutputFormat = DisplayFormat

extension DisplaySettings {
    /// The renderer for these settings.
    func makeSink(stdout: OutputStream, stderr: OutputStream) -> RenderingSink {
        let sink: RenderingSink
        switch format {
        case .table: sink = TableRenderer(out: stdout, err: stderr)
        case .csv: sink = CSVRenderer(out: stdout, err: stderr, neutraliseFormulas: !csvRaw)
        case .json: sink = JSONRenderer(out: stdout, err: stderr)
        }
        sink.expanded = expanded
        sink.times = TimeText(zone: timeZone)
        return sink
    }
}

/// An output sink that writes to the console's streams.
class RenderingSink: OutputSink {
    let out: OutputStream
    let err: OutputStream
    /// One record per block instead of a grid (tables only).
    var expanded = false
    /// Writes times in the site's zone.
    var times = TimeText(zone: .autoupdatingCurrent)
    /// A run whose changes are not saved (`--dry-run`): JSON records carry `"saved": false`.
    var unsaved = false

    init(out: OutputStream, err: OutputStream) {
        self.out = out
        self.err = err
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

    func record(_ columns: [Column], _ values: [Value]) { fatalError("subclass") }
    func beginRows(_ columns: [Column]) { fatalError("subclass") }
    func row(_ values: [Value]) { fatalError("subclass") }
    func endRows() { fatalError("subclass") }
    func message(_ text: String) { fatalError("subclass") }

    /// The last line of a run that saved nothing (`--dry-run`, a failed `--atomic` run).
    func closing(saved: Bool, _ text: String) {
        message(text)
        finish()
    }

    func warning(_ text: String) {
        out.flush()
        err.write("warning: " + TerminalText.escape(text, keepNewlines: false) + "\n")
        err.flush()
    }

    private let progressOnTerminal = isatty(2) == 1

    func progress(_ label: String, done: Int, total: Int) {
        guard progressOnTerminal, total > 0 else { return }
        let width = 30
        let filled = min(width, done * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        err.write("\r\(label) [\(bar)] \(done)/\(total)" + (done >= total ? "\n" : ""))
        err.flush()
    }

    /// Called after each command so output and errors interleave in order.
    func finish() {
        out.flush()
        err.flush()
    }
}
