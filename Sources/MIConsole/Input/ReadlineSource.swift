@preconcurrency import CReadlineLazy
import Foundation
import MICommands
import Synchronization

/// The prompt: GNU readline with line editing, history (per-user file, appended per line) and
/// completion from the command catalog. Ctrl-C abandons the line being typed (and stops a
/// running command at its next safe point); Ctrl-D ends input.
///
/// Readline's callbacks are C function pointers that cannot capture, so the completion engine
/// and the current matches live in globals guarded by a `Mutex`.
///
/// The library is opened when the console is about to prompt, not at start-up (CReadlineLazy):
/// its functions are trampolines, and its variables are reached through `rl`.
public final class ReadlineSource: LineSource {
    private let prompt: String
    private let history: HistoryFile
    var isInteractive: Bool { true }

    /// Throws ``Unavailable`` when libreadline cannot be loaded.
    init(prompt: String, history: HistoryFile, completion: CompletionEngine) throws {
        self.prompt = prompt
        self.history = history
        try ReadlineSource.prepareOnce()
        completionState.withLock { $0.engine = completion }
        // Ctrl-C: our handler only records it; readline (which catches the signal, tidies the
        // terminal and re-raises to us) then calls the event hook, which empties the line and
        // shows a fresh prompt within the same readline() call. (Setting rl_done instead would
        // not take effect until the next key, which it would then swallow.) Set here, by the
        // prompt, not in the preparation: until the prompt shows, Ctrl-C ends the process.
        signal(SIGINT, onInterrupt)
        rl.signal_event_hook.pointee = afterSignal
        stifle_history(HistoryFile.limit)
        for line in history.load() { add_history(line) }
    }

    func nextLine() -> String? {
        guard let raw = readline(prompt) else {
            print("")  // Ctrl-D: end the prompt line cleanly
            return nil
        }
        let line = String(cString: raw)
        free(raw)
        if HistoryFile.shouldRecord(line) {
            add_history(line)
            history.append(line)
        }
        return line
    }

    /// Asks a yes/no question on the terminal (for one-way commands): `y` or `yes` then Enter
    /// says yes; anything else, Enter alone, Ctrl-C and Ctrl-D say no.
    ///
    /// Not readline: its Ctrl-C handling (ours, below) clears the line and asks again, and the
    /// next command typed was then taken as the answer. The terminal is put in raw mode for the
    /// answer instead, so Ctrl-C arrives as a key (byte 3) and ends the question at once.
    func confirm(_ question: String) -> Bool {
        writeAll(1, TerminalText.escape(question, keepNewlines: true) + " [y/N] ")
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { return false }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(0, TCSANOW, &raw)
        defer { tcsetattr(0, TCSANOW, &saved) }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { writeAll(1, "\n"); return false }
            switch byte {
            case 3, 4, 27:  // Ctrl-C, Ctrl-D, Escape: no
                writeAll(1, byte == 3 ? "^C\n" : "\n")
                return false
            case 10, 13:
                writeAll(1, "\n")
                let text = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
                return text == "y" || text == "yes"
            case 8, 127:
                guard !answer.isEmpty else { continue }
                while let last = answer.popLast(), last & 0xC0 == 0x80 {}  // a whole UTF-8 character
                writeAll(1, "\u{8} \u{8}")
            default:
                guard byte >= 0x20 else { continue }
                answer.append(byte)
                _ = write(1, &byte, 1)
            }
        }
    }

    private func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 { if errno == EINTR { continue }; return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Why the prompt cannot be shown: libreadline cannot be loaded.
    struct Unavailable: Error, CustomStringConvertible {
        let reason: String
        var description: String {
            "the prompt needs libreadline.so.8, which cannot be loaded (\(reason)); "
                + "commands still run from -c, -f or a pipe"
        }
    }

    /// Not yet, done, or the reason it failed.
    private static let preparation = Mutex<Result<Void, Unavailable>?>(nil)

    /// Readline's one-time set-up: the library loaded, our settings, then `rl_initialize` (the
    /// terminal's terminfo entry, `/etc/inputrc` and `~/.inputrc`, the key maps), which
    /// `readline()` would otherwise do at the first prompt: together a millisecond or two of
    /// the start-up (docs/benchmarks.md). It reads files and the terminal's size, and changes
    /// neither the terminal's modes nor any signal handler. Runs once; a second caller waits
    /// until the first is done, and gets the same outcome. The launch layer calls it on a
    /// thread of its own once it knows the console will prompt, while the login waits on the
    /// directory; the prompt's own call then finds readline ready, or waits for that thread.
    public static func prepareOnce() throws {
        try preparation.withLock { outcome in
            if outcome == nil { outcome = prepare() }
            return try outcome!.get()
        }
    }

    private static func prepare() -> Result<Void, Unavailable> {
        var error: UnsafePointer<CChar>?
        guard miadmin_readline_open(&error) == 1 else {
            return .failure(Unavailable(reason: error.map { String(cString: $0) } ?? "unknown error"))
        }
        rl.readline_name.pointee = UnsafePointer(strdup("miadmin")!)  // lives as long as the process
        rl.completer_quote_characters.pointee = UnsafePointer(strdup("'\"")!)
        rl.basic_word_break_characters.pointee = UnsafePointer(strdup(" \t\n")!)
        rl.completer_word_break_characters.pointee = UnsafePointer(strdup(" \t\n")!)
        rl.attempted_completion_function.pointee = attemptCompletion
        rl_initialize()
        return .success(())
    }
}

/// Readline's variables, in the loaded library (only once ``ReadlineSource/prepareOnce()``
/// succeeded).
private var rl: miadmin_readline_variables { miadmin_readline_variables_get().pointee }

private let interrupted = Atomic<Bool>(false)

/// At the prompt Ctrl-C clears the line; while a command runs it asks the command to stop at
/// its next safe point (``Interruption``), and a second one ends the process.
private let onInterrupt: @convention(c) (Int32) -> Void = { number in
    interrupted.store(true, ordering: .relaxed)
    if Interruption.request() {
        signal(number, SIG_DFL)
        raise(number)
    }
}

private let afterSignal: @convention(c) () -> Int32 = {
    if interrupted.exchange(false, ordering: .relaxed) {
        rl_crlf()
        rl_replace_line("", 0)
        rl_on_new_line()
        rl_redisplay()
    }
    return 0
}

private struct CompletionState: ~Copyable {
    var engine: CompletionEngine?
    var matches: [String] = []
    var next = 0
}

private let completionState = Mutex(CompletionState())

private let attemptCompletion: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, start, end in
    rl.attempted_completion_over.pointee = 1  // never fall back to file names unless we say so
    let word = text.map { String(cString: $0) } ?? ""
    let bytes = UnsafeRawBufferPointer(start: rl.line_buffer.pointee, count: Int(end))
    let line = String(decoding: bytes, as: UTF8.self)
    let quoted = rl.completion_quote_character.pointee != 0
    let result = completionState.withLock { $0.engine?.complete(line: line, word: word) } ?? .words([])
    switch result {
    case .files:
        rl.attempted_completion_over.pointee = 0
        return nil  // readline's own file-name completion
    case .words(let words):
        // Without an opening quote, candidates with spaces or quotes are offered quoted so
        // that the lexer reads them back as one word.
        // A backslash command is typed as it is: the run loop reads its backslash itself.
        let offered = quoted ? words : words.map { $0.hasPrefix("\\") ? $0 : LineLexer.quote($0) }
        completionState.withLock { state in
            state.matches = offered
            state.next = 0
        }
        // `jdoe/` is half a reference: no space after it, so the name can follow.
        if !words.isEmpty && words.allSatisfy({ $0.hasSuffix("/") }) {
            rl.completion_suppress_append.pointee = 1
        }
        return rl_completion_matches(text, nextMatch)
    }
}

private let nextMatch: @convention(c) (UnsafePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>? = { _, _ in
    completionState.withLock { state -> UnsafeMutablePointer<CChar>? in
        guard state.next < state.matches.count else { return nil }
        defer { state.next += 1 }
        return strdup(state.matches[state.next])
    }
}
