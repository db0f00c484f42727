/// Where a command's results go. The console implements it once per format (table, CSV, JSON);
/// commands never print.
///
/// A command produces exactly one of: a record, a stream of rows, or a message — which is what
/// lets JSON output be one value per command.
public protocol OutputSink: AnyObject {
    /// One object (`whoami`).
    func record(_ columns: [Column], _ values: [Value])
    /// Starts a listing; rows follow as they are produced and are written as they come
    /// (CSV, JSON), so a listing of a million rows does not need memory for a million rows.
    func beginRows(_ columns: [Column])
    func row(_ values: [Value])
    func endRows()
    /// A sentence for people (`moved 'Pump' to asmith`). JSON renders it as {"message": ...}.
    func message(_ text: String)
    /// A remark on stderr that does not change the result (e.g. a rule violation on import).
    func warning(_ text: String)
    /// A remark on stderr for people that is not a warning: why a result is empty (`check`
    /// found nothing, `forms --owner` named nobody who has forms). Not part of the result, so
    /// JSON and CSV on stdout stay one value, one table.
    func note(_ text: String)
    /// Progress of a long run (`expire` over a big store): drawn as a bar on a terminal,
    /// ignored otherwise. `done == total` ends it.
    func progress(_ label: String, done: Int, total: Int)
}
