import CCurl
import CCurlLazy
import Foundation

/// One part of a `multipart/form-data` body.
public struct MultipartPart {
    public enum Content {
        /// Bytes held in memory (the form's JSON).
        case bytes([UInt8])
        /// `size` bytes read piece by piece as libcurl sends them: `read(offset, count)` returns
        /// up to `count` bytes from `offset` (a media file streamed from the store, never held whole).
        case stream(size: Int, read: (Int, Int) throws -> [UInt8])
    }

    public var name: String
    public var fileName: String?
    public var contentType: String
    public var content: Content

    public init(name: String, fileName: String? = nil, contentType: String, content: Content) {
        self.name = name
        self.fileName = fileName
        self.contentType = contentType
        self.content = content
    }
}

/// The office's answer to a post.
public struct HTTPResponse: Sendable, Equatable {
    public let status: Int
    /// `Retry-After`, in seconds from now (delta-seconds or an HTTP date), when the answer had one.
    public let retryAfter: TimeInterval?
    /// The start of the body (at most 1 KiB), the office's reason for a refusal.
    public let body: String
    /// The status line's reason phrase (`Payload Too Large`); empty when there was none (HTTP/2).
    public var reasonPhrase = ""
    /// `Location`, which a redirect (3xx) names and which is never followed.
    public var location: String?
    /// How many bytes the request's body carried: what a proxy's size limit refused (413).
    public var sentBytes: Int?

    public init(status: Int, retryAfter: TimeInterval?, body: String, reasonPhrase: String = "", location: String? = nil,
                sentBytes: Int? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
        self.reasonPhrase = reasonPhrase
        self.location = location
        self.sentBytes = sentBytes
    }
}

/// Posts `multipart/form-data` over HTTPS with libcurl, one handle for its lifetime so that
/// consecutive posts reuse the connection. Not thread-safe: one per task.
public final class HTTPSClient {
    public struct Settings: Sendable {
        public var tls: TLSSettings
        /// Seconds to connect, and the longest the server may stay silent (no byte sent or
        /// received) before the post counts as failed.
        public var timeoutSeconds: Int
        /// `Authorization: Bearer` value; never part of a message.
        public var bearerToken: String?
        /// Also allow `http://` (a receiver on the same host behind a proxy); https only otherwise.
        public var allowCleartext: Bool

        public init(tls: TLSSettings, timeoutSeconds: Int, bearerToken: String?, allowCleartext: Bool = false) {
            self.tls = tls
            self.timeoutSeconds = timeoutSeconds
            self.bearerToken = bearerToken
            self.allowCleartext = allowCleartext
        }
    }

    private let handle: CurlHandle
    private let settings: Settings

    public init(_ settings: Settings) throws(OutboundError) {
        handle = try CurlHandle()
        self.settings = settings
    }

    /// Posts `parts` to `url`; returns the answer whatever its status. Throws when no answer
    /// came: ``OutboundError`` `.unreachable` (refused, timed out, dropped), `.tls` (the
    /// certificate does not verify: nothing was sent), `.source` (reading a part failed).
    public func post(_ url: String, headers: [String: String], parts: [MultipartPart]) throws -> HTTPResponse {
        let server = Self.serverName(url)
        try handle.begin(url, protocols: settings.allowCleartext ? "https,http" : "https",
                         timeoutSeconds: settings.timeoutSeconds, tls: settings.tls)
        try handle.set(CURLOPT_FOLLOWLOCATION, 0)

        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        var lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if let token = settings.bearerToken { lines.append("Authorization: Bearer \(token)") }
        // No "Expect: 100-continue" round trip before each body.
        lines.append("Expect:")
        for line in lines { list = curl_slist_append(list, line) }
        try handle.set(CURLOPT_HTTPHEADER, pointer: list.map { UnsafeRawPointer($0) })

        guard let mime = curl_mime_init(handle.raw) else {
            throw OutboundError(.configuration, "libcurl could not build the request (out of memory?)")
        }
        defer { curl_mime_free(mime) }
        let streams = CallbackBox<[StreamState]>([])
        for part in parts {
            let piece = curl_mime_addpart(mime)
            curl_mime_name(piece, part.name)
            if let fileName = part.fileName { curl_mime_filename(piece, fileName) }
            curl_mime_type(piece, part.contentType)
            switch part.content {
            case .bytes(let bytes):
                bytes.withUnsafeBufferPointer { buffer in
                    // Copied by libcurl.
                    buffer.withMemoryRebound(to: CChar.self) { _ = curl_mime_data(piece, $0.baseAddress, $0.count) }
                }
            case .stream(let size, let read):
                let state = StreamState(size: size, read: read)
                streams.value.append(state)
                curl_mime_data_cb(piece, curl_off_t(size), streamRead, streamSeek, nil,
                                  Unmanaged.passUnretained(state).toOpaque())
            }
        }
        try handle.set(CURLOPT_MIMEPOST, pointer: UnsafeRawPointer(mime))

        let collected = CallbackBox(Collected())
        try handle.set(CURLOPT_HEADERDATA, pointer: collected.pointer)
        _ = miadmin_curl_setopt_header(handle.raw, collectHeader)
        try handle.set(CURLOPT_WRITEDATA, pointer: collected.pointer)
        _ = miadmin_curl_setopt_write(handle.raw, collectBody)

        do {
            try withExtendedLifetime(streams) { try handle.perform(server: server) }
        } catch let error as OutboundError {
            if let failure = streams.value.lazy.compactMap(\.failure).first {
                throw OutboundError(.source, curlCode: error.curlCode, "reading what was to be sent failed: \(failure)")
            }
            throw error
        }
        let body = String(decoding: collected.value.body, as: UTF8.self)
        let sent = parts.reduce(0) { total, part in
            switch part.content {
            case .bytes(let data): total + data.count
            case .stream(let size, _): total + size
            }
        }
        return HTTPResponse(status: handle.responseCode, retryAfter: collected.value.retryAfter, body: body,
                            reasonPhrase: collected.value.reasonPhrase, location: collected.value.location, sentBytes: sent)
    }

    /// `host:port` of a URL, for messages (never its user part or query).
    static func serverName(_ url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return "the server" }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    /// A `Retry-After` value in seconds from `now`: delta-seconds or an HTTP date (RFC 9110 10.2.3).
    public static func retryAfter(_ value: String, now: Date = Date()) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// What the header and write callbacks keep of an answer.
struct Collected {
    var retryAfter: TimeInterval?
    var reasonPhrase = ""
    var location: String?
    var body: [UInt8] = []
    static let bodyLimit = 1024
}

/// A streamed part's position and the first error its reader threw.
final class StreamState {
    let size: Int
    let read: (Int, Int) throws -> [UInt8]
    var offset = 0
    var failure: String?

    init(size: Int, read: @escaping (Int, Int) throws -> [UInt8]) {
        self.size = size
        self.read = read
    }
}

/// libcurl's read callback over a ``StreamState`` (a streamed part, a mail in memory).
let streamRead: curl_read_callback = { buffer, size, count, context in
    let state = Unmanaged<StreamState>.fromOpaque(context!).takeUnretainedValue()
    let wanted = min(size * count, state.size - state.offset)
    guard wanted > 0 else { return 0 }
    do {
        let bytes = try state.read(state.offset, wanted)
        guard !bytes.isEmpty, bytes.count <= wanted else {
            state.failure = "the data ended after \(state.offset) of \(state.size) bytes"
            return Int(CURL_READFUNC_ABORT)
        }
        bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        state.offset += bytes.count
        return bytes.count
    } catch {
        state.failure = "\(error)"
        return Int(CURL_READFUNC_ABORT)
    }
}

private let streamSeek: curl_seek_callback = { context, offset, origin in
    let state = Unmanaged<StreamState>.fromOpaque(context!).takeUnretainedValue()
    guard origin == SEEK_SET, offset >= 0, offset <= state.size else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    state.offset = Int(offset)
    return Int32(CURL_SEEKFUNC_OK)
}

private let collectHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    let box = CallbackBox<Collected>.from(context)
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        // A new answer (after an interim 1xx): forget the previous one's fields. The status
        // line is `HTTP/1.1 413 Request Entity Too Large`: its third word on is the phrase.
        box.value = Collected()
        let words = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 2)
        if words.count == 3 { box.value.reasonPhrase = String(words[2].prefix(100)) }
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        if name == "retry-after" { box.value.retryAfter = HTTPSClient.retryAfter(value) }
        if name == "location" { box.value.location = String(value.prefix(500)) }
    }
    return length
}

private let collectBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    let box = CallbackBox<Collected>.from(context)
    let length = size * count
    let room = Collected.bodyLimit - box.value.body.count
    if room > 0, let data {
        box.value.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(room, length)))
    }
    return length
}
