import Foundation

/// A buffered writer on a file descriptor. Listings write hundreds of thousands of lines;
/// one `write(2)` per line would dominate their run time.
///
/// At a terminal, a command's output can be paged: between `beginPaging` and `endPaging` it is
/// held until it outgrows the screen, then a pager (`Pager`) is started and everything goes
/// to it, streaming; output that fits is written as usual. What the screen holds is counted in
/// screen rows: a line wider than the terminal wraps and takes several (a 370-column `audit`
/// listing of 12 lines filled 48 rows of a 120-column terminal and went by unpaged).
public final class OutputStream {
    private var fd: Int32
    private let ownFD: Int32
    private var buffer: [UInt8] = []
    private let capacity = 64 * 1024
    private var paging: Paging?
    /// Output held back while paging may still be needed, measured in screen rows.
    private struct Paging {
        let screen: Pager.Screen
        let command: String
        /// Rows taken by the finished lines.
        var rows = 0
        /// Characters on the line not yet ended.
        var column = 0

        /// Rows taken so far, the unfinished line included.
        var rowsWithOpenLine: Int { rows + (column + screen.columns - 1) / screen.columns }

        /// Counts `bytes`' lines, each as the rows it wraps to. Characters are counted as one
        /// column each (a UTF-8 continuation byte adds none): a wide CJK character counts as one,
        /// which only pages a little later than exactly.
        mutating func count(_ bytes: ArraySlice<UInt8>) {
            for byte in bytes {
                if byte == 10 {
                    rows += max(1, (column + screen.columns - 1) / screen.columns)
                    column = 0
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
        }
    }
    private var pager: Pager?

    public init(fd: Int32) {
        self.fd = fd
        ownFD = fd
        buffer.reserveCapacity(capacity)
    }

    deinit {
        flush()
        pager?.finish()
    }

    /// Whether this stream and `other` write into the same open file: a terminal both go to, or
    /// `2>&1`, where a line written to each would be read twice.
    func sharesFile(with other: OutputStream) -> Bool {
        var mine = stat(), theirs = stat()
        guard fstat(fd, &mine) == 0, fstat(other.fd, &theirs) == 0 else { return false }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    public func write(_ text: String) {
        append { $0.append(contentsOf: text.utf8) }
    }

    /// Lets `body` append bytes straight to the buffer: a listing's renderer writes a whole row
    /// this way, with no `String` per cell (a million-row CSV listing made eight per row).
    func append(_ body: (inout [UInt8]) -> Void) {
        let start = buffer.count
        body(&buffer)
        if var pending = paging {
            // Held back: count screen rows until they outgrow the screen.
            pending.count(buffer[start...])
            paging = pending
            // The last screen row is the prompt's.
            if pending.rowsWithOpenLine >= pending.screen.rows - 1 { startPager() }
            return
        }
        if buffer.count >= capacity { flush() }
    }

    public func flush() {
        if paging != nil { return }  // held until paging ends or the pager starts
        if let held {
            held.keep(buffer, for: self)
        } else {
            writeOut(buffer)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` to the descriptor now, all of them.
    func writeOut(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                break  // EPIPE (reader went away): drop the rest, as `head` users expect
            }
            offset += written
        }
    }

    /// While set, what is flushed is kept there instead of written (``HeldOutput``).
    private var held: HeldOutput?

    /// From now on what is flushed goes to `output` (nil: to the descriptor again).
    func hold(in output: HeldOutput?) {
        if output != nil { flush() }
        held = output
    }

    /// Forgets what was written since the last flush (an attempt given up, ``HeldOutput``).
    func dropUnflushed() {
        buffer.removeAll(keepingCapacity: true)
    }

    /// Holds what follows until `endPaging`, or until it no longer fits `screen`: then `command`
    /// (run by `/bin/sh -c`) pages it. Not while output is held: nothing reaches the screen until
    /// the held output is let go, and then all at once.
    func beginPaging(screen: Pager.Screen, command: String) {
        if held != nil { return }
        flush()
        paging = Paging(screen: screen, command: command)
    }

    /// Writes what was held (or finishes feeding the pager and waits until the person quits it).
    func endPaging() {
        paging = nil
        flush()
        if let pager {
            pager.finish()
            self.pager = nil
            fd = ownFD
        }
    }

    private func startPager() {
        guard let pending = paging else { return }
        paging = nil
        if let started = Pager(command: pending.command) {
            pager = started
            fd = started.input
        }
        flush()
    }
}
