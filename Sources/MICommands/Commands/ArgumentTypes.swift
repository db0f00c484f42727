import ArgumentParser
import Foundation
import MIStore

/// A date or time typed on the command line: `YYYY-MM-DD` (midnight UTC) or a full ISO 8601
/// time (``DateArgument/parse(_:)``). A bad value fails while the line is parsed, with the
/// command's usage, before anything runs.
public struct DateValue: Sendable, Hashable, ExpressibleByArgument {
    public let date: Date

    public init(_ date: Date) { self.date = date }

    public init?(argument: String) {
        guard let date = DateArgument.parse(argument) else { return nil }
        self.date = date
    }
}

/// A start time as people say it (``DateArgument/since(_:now:zone:)``: `today`, `1h`, `7d`, a
/// date, an ISO 8601 time), checked while the line is parsed; resolved against the session's
/// clock and time zone when the command runs.
public struct SinceArgument: Sendable, Hashable, ExpressibleByArgument {
    public let text: String

    public init?(argument: String) {
        // Whether the text has one of the accepted shapes does not depend on now or the zone.
        guard DateArgument.since(argument, now: Date(timeIntervalSince1970: 0), zone: TimeZone(identifier: "UTC")!) != nil
        else { return nil }
        text = argument
    }

    public func date(now: Date, zone: TimeZone) -> Date? { DateArgument.since(text, now: now, zone: zone) }
}

/// `FORM` as typed: a numeric id or `owner/name`, checked while the line is parsed.
extension FormReference: ExpressibleByArgument {
    public init?(argument: String) {
        guard let reference = try? FormReference(parsing: argument) else { return nil }
        self = reference
    }
}
