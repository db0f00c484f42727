import Foundation
import ArgumentParser
import MICommands

/// `--format`: how command results are rendered.
public enum OutputFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    case table, csv, json

    func makeSink(stdout: OutputStream, stderr: OutputStream, csvRaw: Bool = false) -> RenderingSink {
        switch self {
        case .table: return TableRenderer(out: stdout, err: stderr)
        case .csv: return CSVRenderer(out: stdout, err: stderr, neutraliseFormulas: !csvRaw)
        case .json: return JSONRenderer(out: stdout, err: stderr)
        }
    }
}

/// An output sink that writes to the console's streams.
class RenderingSink: OutputSink {
    let out: OutputStream
    let err: OutputStream

    init(out: OutputStream, err: OutputStream) {
        self.out = out
        self.err = err
    }

    func record(_ columns: [Column], _ values: [Value]) { fatalError("subclass") }
    func beginRows(_ columns: [Column]) { fatalError("subclass") }
    func row(_ values: [Value]) { fatalError("subclass") }
    func endRows() { fatalError("subclass") }
    func message(_ text: String) { fatalError("subclass") }

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
