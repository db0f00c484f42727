/// What a run writes to stdout and stderr, held back in the order it was flushed until the run's
/// transaction has committed, so a run that is run again from the start (an `--atomic` run whose
/// transaction the store lost) shows only the attempt that counted: ``letGo()`` writes it,
/// ``discard()`` forgets it.
///
/// Held output lives in memory: past ``limit`` bytes it is written out, and holding stops; the
/// run has then shown an attempt's output (``spilled``) and can no longer be run again.
final class HeldOutput {
    private var chunks: [(stream: OutputStream, bytes: [UInt8])] = []
    private var size = 0
    private let streams: [OutputStream]
    let limit: Int
    /// Whether the output outgrew ``limit`` and went out before the run ended.
    private(set) var spilled = false

    /// Holds what `streams` flush from now on.
    init(_ streams: [OutputStream], limit: Int = 64 << 20) {
        self.streams = streams
        self.limit = limit
        for stream in streams { stream.hold(in: self) }
    }

    func keep(_ bytes: [UInt8], for stream: OutputStream) {
        guard !bytes.isEmpty else { return }
        chunks.append((stream, bytes))
        size += bytes.count
        if size > limit {
            spilled = true
            letGo()
        }
    }

    /// Writes what was held, in order, and stops holding.
    func letGo() {
        for stream in streams { stream.hold(in: nil) }
        for chunk in chunks { chunk.stream.writeOut(chunk.bytes) }
        chunks = []
        size = 0
    }

    /// Forgets what the attempt wrote, flushed or not, and goes on holding.
    func discard() {
        for stream in streams { stream.dropUnflushed() }
        chunks = []
        size = 0
    }
}
