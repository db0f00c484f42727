import Foundation

/// When a failed delivery is tried again: exponential backoff with jitter, the office's
/// `Retry-After` honoured, and a limit on tries after which the delivery is held.
public struct RetryPolicy: Sendable {
    public var baseSeconds: Double
    public var maxSeconds: Double
    public var maxAttempts: Int

    public init(baseSeconds: Double, maxSeconds: Double, maxAttempts: Int) {
        self.baseSeconds = baseSeconds
        self.maxSeconds = maxSeconds
        self.maxAttempts = maxAttempts
    }

    /// The next try after a failed one, or nil when that was the last try allowed.
    ///
    /// - Parameters:
    ///   - attempts: tries made so far, the failed one included (1 after the first).
    ///   - retryAfter: the office's `Retry-After` in seconds: the next try is then exactly that
    ///     far away (even past `maxSeconds`: the office knows when it will be back).
    ///   - jitter: a number in 0..<1; the delay is base × 2^(attempts−1), capped, times
    ///     (0.5 + jitter / 2) ("equal jitter"), so that many consoles failing at once do not all
    ///     come back at once.
    public func nextTry(after attempts: Int, retryAfter: TimeInterval?, now: Date, jitter: Double) -> Date? {
        guard attempts < maxAttempts else { return nil }
        if let retryAfter { return now.addingTimeInterval(retryAfter) }
        let exponential = baseSeconds * pow(2, Double(min(max(attempts - 1, 0), 40)))
        let delay = min(maxSeconds, exponential) * (0.5 + min(max(jitter, 0), 1) / 2)
        return now.addingTimeInterval(delay)
    }
}
