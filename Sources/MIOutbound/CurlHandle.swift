import CCurl
import CCurlLazy
import Foundation

/// One libcurl easy handle, owned: cleaned up in `deinit`. Connections stay open in its cache
/// between transfers, so consecutive posts to the same office reuse one TLS connection.
///
/// libcurl is opened on first use (``CurlLibrary/open()``), not at start-up.
final class CurlHandle {
    let raw: UnsafeMutableRawPointer
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

    init() throws(OutboundError) {
        try CurlLibrary.open()
        guard let raw = curl_easy_init() else {
            throw OutboundError(.configuration, "libcurl could not start a transfer (out of memory?)")
        }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }

    /// Forgets the previous transfer's options; keeps the open connections.
    func reset() {
        curl_easy_reset(raw)
        errorBuffer = [CChar](repeating: 0, count: errorBuffer.count)
    }

    /// Starts setting up a transfer to `url`: only `protocols`, no signals, `timeoutSeconds` to
    /// connect and as the longest silence (no byte either way) before the transfer fails, and
    /// the TLS settings (the server's certificate always verified).
    func begin(_ url: String, protocols: String, timeoutSeconds: Int, tls: TLSSettings) throws(OutboundError) {
        reset()
        try set(CURLOPT_URL, url)
        try set(CURLOPT_PROTOCOLS_STR, protocols)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, timeoutSeconds * 1000)
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, timeoutSeconds)
        try tls.apply(to: self)
    }

    func set(_ option: CURLoption, _ value: Int) throws(OutboundError) {
        try check(miadmin_curl_setopt_long(raw, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(OutboundError) {
        // libcurl copies strings set as options (since 7.17).
        let code = value.withCString { miadmin_curl_setopt_pointer(raw, option, $0) }
        try check(code, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeRawPointer?) throws(OutboundError) {
        try check(miadmin_curl_setopt_pointer(raw, option, pointer), option)
    }

    func set(_ option: CURLoption, offset: Int64) throws(OutboundError) {
        try check(miadmin_curl_setopt_off(raw, option, curl_off_t(offset)), option)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(OutboundError) {
        guard code != CURLE_OK else { return }
        throw OutboundError(.configuration, curlCode: Int(code.rawValue),
                            "libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))")
    }

    /// Runs the transfer set up on the handle; a failure is classified for the caller.
    func perform(server: String) throws(OutboundError) {
        let code = errorBuffer.withUnsafeMutableBufferPointer { buffer -> CURLcode in
            _ = miadmin_curl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            let code = curl_easy_perform(raw)
            _ = miadmin_curl_setopt_pointer(raw, CURLOPT_ERRORBUFFER, nil)
            return code
        }
        guard code != CURLE_OK else { return }
        let detail = String(cString: errorBuffer)
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        throw OutboundError(Self.kind(of: code), curlCode: Int(code.rawValue), "\(server): \(reason)")
    }

    var responseCode: Int {
        var code = 0
        _ = miadmin_curl_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    static func kind(of code: CURLcode) -> OutboundError.Kind {
        switch code {
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_USE_SSL_FAILED, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CIPHER:
            return .tls
        case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_UNSUPPORTED_PROTOCOL,
             CURLE_URL_MALFORMAT, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_OUT_OF_MEMORY, CURLE_NOT_BUILT_IN, CURLE_SSL_CLIENTCERT:
            return .configuration
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            return .refused
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:
            return .source
        default:
            return .unreachable
        }
    }
}

/// libcurl, loaded the first time something is sent (CLazyLibrary says why).
public enum CurlLibrary {
    private static let initialized: Result<Void, OutboundError> = {
        var reason: UnsafePointer<CChar>?
        guard miadmin_curl_open(&reason) != 0 else {
            return .failure(OutboundError(.configuration, "deliver and remind need libcurl (\(String(cString: miadmin_curl_soname()))), "
                + "which cannot be loaded: \(reason.map { String(cString: $0) } ?? "unknown error"). "
                + "Install the libcurl4 package."))
        }
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else {
            return .failure(OutboundError(.configuration, curlCode: Int(code.rawValue), "libcurl could not start: \(String(cString: curl_easy_strerror(code)))"))
        }
        return .success(())
    }()

    /// Opens libcurl and runs its global set-up once per process.
    public static func open() throws(OutboundError) {
        if case .failure(let error) = initialized { throw error }
    }
}

/// A pointer-sized box handed to libcurl's callbacks as their user data.
final class CallbackBox<T> {
    var value: T
    init(_ value: T) { self.value = value }
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ pointer: UnsafeMutableRawPointer?) -> CallbackBox<T> {
        Unmanaged<CallbackBox<T>>.fromOpaque(pointer!).takeUnretainedValue()
    }
}
