import MICommands

/// What stdout holds as a whole over a run of several commands (`-f`, a pipe, several `-c`),
/// shared by the renderers the run makes as `set` changes the format:
///
/// - JSON: one document, an array with each command's result in order (a command that writes
///   none, such as `set`, adds nothing), opened at the first result and closed when the run
///   ends, however it ends (a failing line, `--on-error continue`, `quit`, Ctrl-C's exit 130,
///   a `--dry-run`'s closing `{"saved": false, ...}`). A listing cut short by an error or Ctrl-C
///   is closed where it stopped, so the document stays valid JSON; the exit status says the run
///   did not finish. `python3 -m json.tool` rejected the stream of values this replaced.
///   `--json-lines` keeps one value per command instead, each on one line (JSON Lines).
/// - CSV: one header for results with the same columns (forty `move`s are one table of forty
///   lines); when the columns change, a blank line and the new header (csvkit and spreadsheets
///   read the first table; `awk -v RS=` splits them).
///
/// At the prompt, and for a lone `-c` command, each result stands alone, as before.
final class RunOutput {
    enum JSONShape {
        /// Each command's value as it is (the prompt, a single `-c`).
        case values
        /// One array of every command's value.
        case document
        /// Each command's value on one line of its own (`--json-lines`).
        case lines
    }

    let json: JSONShape
    /// One header per table of equal columns (false: a header for every result).
    let oneCSVHeader: Bool

    /// Whether the JSON array's `[` is written.
    private(set) var documentOpen = false
    /// The columns of the last CSV header written.
    private var csvHeader: [String]?

    init(json: JSONShape, oneCSVHeader: Bool) {
        self.json = json
        self.oneCSVHeader = oneCSVHeader
    }

    /// Each command's output on its own: the prompt.
    static var perCommand: RunOutput { RunOutput(json: .values, oneCSVHeader: false) }

    /// What goes before a command's JSON value.
    func jsonValueStarts() -> String {
        guard json == .document else { return "" }
        defer { documentOpen = true }
        return documentOpen ? ",\n" : "[\n"
    }

    /// What ends a command's JSON value.
    var jsonValueEnd: String { json == .document ? "" : "\n" }

    /// Closes the run's JSON array (`[]` when the run wrote none and `always`); "" when there
    /// is nothing to close.
    func closeDocument(always: Bool) -> String {
        guard json == .document else { return "" }
        defer { documentOpen = false }
        if documentOpen { return "\n]\n" }
        return always ? "[]\n" : ""
    }

    /// What to write before a CSV result with these columns: the header, a blank line and the
    /// header when the columns changed, or nothing when the header above already names them.
    func csvHeaderBefore(_ keys: [String]) -> (header: Bool, blankLine: Bool) {
        guard oneCSVHeader else { return (true, false) }
        defer { csvHeader = keys }
        guard let previous = csvHeader else { return (true, false) }
        return previous == keys ? (false, false) : (true, true)
    }

    /// Output in another format came between: the next CSV result starts with its header.
    func csvInterrupted() {
        csvHeader = nil
    }
}
