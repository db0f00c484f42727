import ArgumentParser
import Foundation
import MIStore

/// A date or time typed on the command line: `YYYY-MM-DD` (midnight UTC) or a full ISO 8601
/// time. A bad value fails while the line is parsed, with the command's usage, before anything runs.
public struct DateArgument: Sendable, Hashable, ExpressibleByArgument {
    public let date: Date

    public init(_ date: Date) { self.date = date }

    public init?(argument: String) {
        guard let date = Self.parse(argument) else { return nil }
        self.date = date
    }

    public static func parse(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        day.timeZone = TimeZone(identifier: "UTC")
        return day.date(from: text)
    }
}

/// `FORM` as typed: a numeric id or `owner/name`, checked while the line is parsed.
extension FormReference: ExpressibleByArgument {
    public init?(argument: String) {
        guard let reference = try? FormReference(parsing: argument) else { return nil }
        self = reference
    }
}
