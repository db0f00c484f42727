import Foundation

/// A buffered writer on a file descriptor. Listings write hundreds of thousands of lines;
/// one `write(2)` per line would dominate their run time.
final class OutputStream {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity = 64 * 1024

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(capacity)
    }

    deinit { flush() }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
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
}
