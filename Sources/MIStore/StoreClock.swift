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

/// A clock stopped at one instant: tests of expiry and reminders set "now" instead of sleeping.
public struct FixedClock: StoreClock {
    public let instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { instant }
}
