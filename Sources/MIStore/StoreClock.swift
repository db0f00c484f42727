import Foundation

/// Where the store gets "now" from. Inject a fixed clock in tests so nothing ever sleeps.
public protocol StoreClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemClock: StoreClock {
    public init() {}
    public func now() -> Date { Date() }
}
