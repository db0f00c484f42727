import Foundation

/// A value a helper thread works out ahead of time (``HelperThread``), handed over once and
/// then read by whoever waits for it, as often as they like.
///
/// The one place of the launch layer where a value crosses threads: the helper sets it once,
/// before anyone reads it; readers wait until it is set. `@unchecked Sendable` because that
/// order, not the compiler, makes it safe: ``set(_:)`` writes before it signals, ``wait()``
/// reads after its wait returns.
final class AheadOfTime<Value>: @unchecked Sendable {
    private var value: Value?
    private let ready = DispatchSemaphore(value: 0)

    init() {}

    /// Hands the value over; called once, by the helper thread.
    func set(_ value: Value) {
        self.value = value
        ready.signal()
    }

    /// The value, once the helper has set it.
    func wait() -> Value {
        ready.wait()
        // Let the next reader through: the value is set for good.
        ready.signal()
        return value!
    }
}
