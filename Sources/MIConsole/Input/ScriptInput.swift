/// Where a run's lines come from when no person types them: `-c`, `-f FILE` or a pipe, and
/// whether they can be read again from the first line (an `--atomic` run the store lost at
/// COMMIT is run again, ``Console/runInSessionTransaction``). `-c` lines and a regular file,
/// read whole before the run, can; a pipe, a FIFO or a device is read once, as it comes.
enum ScriptInput {
    case commands([String])
    case file(path: String, contents: [UInt8], folder: String?)
    case stream(StreamLineSource)

    /// `-f FILE`: with `readWhole`, read whole now when it is a regular file; else read as the
    /// run goes.
    static func script(path: String, readWhole: Bool) throws -> ScriptInput {
        let source = try StreamLineSource(path: path)
        guard readWhole, let contents = try source.restIfRegularFile(path: path) else { return .stream(source) }
        return .file(path: path, contents: contents, folder: source.folder)
    }

    /// Whether ``lines()`` can start again from the first line.
    var canBeReadAgain: Bool {
        if case .stream = self { return false }
        return true
    }

    /// The lines from the first (a stream: from where it is).
    func lines() throws -> LineSource {
        switch self {
        case .commands(let lines): CommandListSource(lines)
        case .file(let path, let contents, let folder): try StreamLineSource(contents: contents, path: path, folder: folder)
        case .stream(let source): source
        }
    }
}
