import Foundation

/// Where the run loop gets lines: the prompt (readline), a script file, a pipe, or `-c`.
/// `nil` means end of input, which ends the loop (never an empty string standing for it).
protocol LineSource: AnyObject {
    func nextLine() -> String?
    /// True for a person at a terminal: errors do not stop the loop, confirmations may be asked.
    var isInteractive: Bool { get }
}

/// The `-c` commands, in order.
final class CommandListSource: LineSource {
    private var lines: [String]
    init(_ lines: [String]) { self.lines = lines.reversed() }
    func nextLine() -> String? { lines.popLast() }
    var isInteractive: Bool { false }
}

/// Plain line reads from a file descriptor's stream (a script file or a pipe). Handles any
/// line length and a last line without a newline.
final class StreamLineSource: LineSource {
    private let file: UnsafeMutablePointer<FILE>
    private let ownsFile: Bool

    init(file: UnsafeMutablePointer<FILE>, ownsFile: Bool) {
        self.file = file
        self.ownsFile = ownsFile
    }

    /// Opens a script file; nil when it cannot be read.
    convenience init?(path: String) {
        guard let file = fopen(path, "r") else { return nil }
        self.init(file: file, ownsFile: true)
    }

    deinit { if ownsFile { fclose(file) } }

    func nextLine() -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else { return nil }
        var line = String(cString: buffer)
        if line.hasSuffix("\n") { line.removeLast() }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }

    var isInteractive: Bool { false }
}
