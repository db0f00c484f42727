import Foundation

/// An ISO 8601 date-time with zone, as the field app writes it (`2026-11-19T13:40:00+01:00`).
///
/// The store keeps ``text`` exactly as given (zone included) and ``date`` for comparisons.
/// Two timestamps are equal when their texts are; compare ``date`` for the instant.
public struct Timestamp: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let date: Date

    /// Parses an ISO 8601 date-time; a missing zone is an error.
    public init(_ text: String) throws(StoreError) {
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw StoreError(.invalidInput, "'\(text)' is not an ISO 8601 date-time with zone (like 2026-11-19T13:40:00+01:00)")
        }
        self.text = text
        self.date = date
    }

    init(storedText text: String, date: Date) {
        self.text = text
        self.date = date
    }

    public var description: String { text }
}

extension Date {
    /// ISO 8601 in UTC (`2026-11-21T09:00:00Z`): how the store and the console show times they
    /// recorded themselves. A format style, not a formatter per call: listings format a time
    /// per row, and building an `ISO8601DateFormatter` costs more than the formatting.
    public var iso8601: String { formatted(.iso8601) }
}
