import Foundation

/// A buffered writer on a file descriptor. Listings write hundreds of thousands of lines;
/// one `write(2)` per line would dominate their run time.
///
/// At a terminal, a command's output can be paged: between `beginPaging` and `endPaging` it is
/// held until it outgrows the screen, then a pager (`Pager`) is started and everything goes
/// to it, streaming; output that fits is written as usual.
public final class OutputStream {
    private var fd: Int32
    private let ownFD: Int32
    private var buffer: [UInt8] = []
    private let capacity = 64 * 1024
    private var paging: (screen: Pager.Screen, command: String, lines: Int)?
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

    public func write(_ text: String) {
        append { $0.append(contentsOf: text.utf8) }
    }

    /// Lets `body` append bytes straight to the buffer: a listing's renderer writes a whole row
    /// this way, with no `String` per cell (a million-row CSV listing made eight per row).
    func append(_ body: (inout [UInt8]) -> Void) {
        let start = buffer.count
        body(&buffer)
        if var pending = paging {
            // Held back: count lines until they outgrow the screen (or the bytes could not fit it).
            for byte in buffer[start...] where byte == 10 { pending.lines += 1 }
            paging = pending
            // The last screen line is the prompt's.
            if pending.lines >= pending.screen.rows - 1 || buffer.count > pending.screen.rows * pending.screen.columns {
                startPager()
            }
            return
        }
        if buffer.count >= capacity { flush() }
    }

    public func flush() {
        if paging != nil { return }  // held until paging ends or the pager starts
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                break  // EPIPE (reader went away): drop the rest, as `head` users expect
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Holds what follows until `endPaging`, or until it no longer fits `screen`: then `command`
    /// (run by `/bin/sh -c`) pages it.
    func beginPaging(screen: Pager.Screen, command: String) {
        flush()
        paging = (screen, command, 0)
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
