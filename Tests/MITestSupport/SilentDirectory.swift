import Foundation

/// A listener on 127.0.0.1 that takes TCP connections and then stops answering, as a hung
/// directory server does: at once (`.silent`: neither the StartTLS answer nor an `ldaps://`
/// handshake ever comes), or after answering the StartTLS request with success
/// (`.afterStartTLS`: the client's TLS handshake is left waiting). Each connection is held open
/// until ``stop()``, so the client sees silence, never a closed connection.
public final class SilentDirectory: @unchecked Sendable {
    public enum Silence: Sendable { case silent, afterStartTLS }

    public let port: Int
    private let listener: Int32
    private let silence: Silence
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var stopped = false

    public init(_ silence: Silence) throws {
        self.silence = silence
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0,
                                  sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, listen(fd, 16) == 0 else {
            let error = POSIXError(.init(rawValue: errno) ?? .EIO)
            close(fd)
            throw error
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    public var uri: String { "ldap://127.0.0.1:\(port)" }
    public var ldapsURI: String { "ldaps://127.0.0.1:\(port)" }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                close(listener)  // shut down by stop(); closed here, where it is no longer used
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not held open by the consoles the tests start
            lock.lock()
            let keep = !stopped
            if keep { connections.append(fd) }
            lock.unlock()
            guard keep else {
                close(fd)
                close(listener)
                return
            }
            if silence == .afterStartTLS { answerStartTLS(fd) }
        }
    }

    /// Reads the client's StartTLS request and answers it with success under its message id.
    private func answerStartTLS(_ fd: Int32) {
        var request = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &request, request.count, 0)
        // SEQUENCE, short length, then the message id: INTEGER (tag 2, short length, value).
        guard count >= 5, request[0] == 0x30, request[2] == 0x02, 4 + Int(request[3]) <= count else { return }
        let messageID = Array(request[2..<(4 + Int(request[3]))])
        let oid = Array("1.3.6.1.4.1.1466.20037".utf8)
        // ExtendedResponse [APPLICATION 24]: resultCode success, matchedDN "", diagnosticMessage "",
        // responseName [10] the StartTLS OID.
        let body: [UInt8] = [0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00, 0x8a, UInt8(oid.count)] + oid
        let message = messageID + [0x78, UInt8(body.count)] + body
        let answer = [0x30, UInt8(message.count)] + message
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Stops listening and closes every connection held.
    public func stop() {
        lock.lock()
        stopped = true
        let held = connections
        connections = []
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))  // ends the accept loop, which closes it
        held.forEach { close($0) }
    }
}
