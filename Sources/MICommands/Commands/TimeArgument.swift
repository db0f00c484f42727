import ArgumentParser
import Foundation

/// A time typed on the command line, as people say it: one parser for every time option
/// (`forms --since`, `audit --since`, `audit --until`, `notifications --from/--to`). Its shape is
/// checked while the line is parsed, so a bad value fails with the usage and the accepted forms
/// before anything runs; what it means is resolved when the command runs, against the session's
/// clock and `display.timeZone`:
///
/// - a full ISO 8601 time with its offset (`2026-11-23T12:00:00+01:00`, `…Z`): that instant;
/// - a date or a date and time without offset (`2026-11-23`, `2026-11-23T12:00`,
///   `2026-11-23 12:00`, seconds optional): in `display.timeZone`, a date at its midnight;
/// - a time of today (`12:00`, `07:30:15`) in `display.timeZone`;
/// - `now`, `today`, `yesterday`, `tomorrow` (midnight in `display.timeZone`);
/// - a span back from now: `-2h`, `-3d`, and the same without the sign (`30m`, `1h`, `7d`, `2w`);
///   a span ahead with `+` (`+24h`, for `forms --expires-before`). The options are declared
///   `parsing: .unconditional`, so `--since -2h` takes `-2h` as its value, not as an option.
public struct TimeArgument: Sendable, Hashable, ExpressibleByArgument {
    enum Shape: Sendable, Hashable {
        case instant(Date)
        /// Year, month, day, hour, minute, second, read in the display zone.
        case local(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)
        case timeOfDay(hour: Int, minute: Int, second: Int)
        case daysBack(Int)
        case secondsBack(Double)
    }

    /// What the user typed, for messages.
    public let text: String
    let shape: Shape

    /// The forms a refusal lists.
    public static let acceptedForms = "2026-11-23T12:00:00+01:00 (ISO 8601 with offset), 2026-11-23, "
        + "2026-11-23T12:00 or '2026-11-23 12:00' (in display.timeZone), 12:00 (today), now, today, yesterday, "
        + "tomorrow, -30m, -2h, -3d, -2w (back from now), +24h (ahead)"

    /// Why a typed time was refused: the accepted forms.
    public struct Refusal: Error, CustomStringConvertible, Equatable {
        public let text: String
        public init(text: String) { self.text = text }
        public var description: String { "not a time; use one of: \(TimeArgument.acceptedForms)" }
    }

    public init?(argument: String) {
        guard let parsed = try? Self(parsing: argument) else { return nil }
        self = parsed
    }

    /// Reads `text`, or throws a ``Refusal`` naming the accepted forms. The `@Option`s take it as
    /// their `transform`, so the parser's message carries the refusal.
    public init(parsing text: String) throws {
        self.text = text
        guard let shape = Self.shape(of: text.trimmingCharacters(in: .whitespaces)) else { throw Refusal(text: text) }
        self.shape = shape
    }

    /// The instant it names, at `now`, read in `zone`.
    public func date(now: Date, zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        switch shape {
        case .instant(let date):
            return date
        case .daysBack(let days):
            return calendar.date(byAdding: .day, value: -days, to: calendar.startOfDay(for: now))!
        case .secondsBack(let seconds):
            return now.addingTimeInterval(-seconds)
        case .timeOfDay(let hour, let minute, let second):
            let day = calendar.dateComponents([.year, .month, .day], from: now)
            return Self.local(day.year!, day.month!, day.day!, hour, minute, second, calendar)
        case .local(let year, let month, let day, let hour, let minute, let second):
            return Self.local(year, month, day, hour, minute, second, calendar)
        }
    }

    /// A wall-clock time in the calendar's zone; in a gap (a spring-forward hour) the next
    /// valid time, as the calendar gives it.
    private static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int,
                              _ calendar: Calendar) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    }

    private static func shape(of text: String) -> Shape? {
        switch text.lowercased() {
        case "now": return .secondsBack(0)
        case "today": return .daysBack(0)
        case "yesterday": return .daysBack(1)
        case "tomorrow": return .daysBack(-1)
        default: break
        }
        if let span = span(text) { return .secondsBack(span) }
        let scalars = Array(text.unicodeScalars)
        var reader = Reader(scalars: scalars)
        // A time of today: HH:MM[:SS].
        if scalars.count <= 8, let (hour, minute, second) = reader.clock(), reader.atEnd {
            return .timeOfDay(hour: hour, minute: minute, second: second)
        }
        reader = Reader(scalars: scalars)
        guard let year = reader.number(digits: 4), reader.take("-"), let month = reader.number(digits: 2), reader.take("-"),
              let day = reader.number(digits: 2), (1...12).contains(month), (1...daysIn(month, of: year)).contains(day)
        else { return nil }
        if reader.atEnd { return .local(year: year, month: month, day: day, hour: 0, minute: 0, second: 0) }
        guard reader.take("T") || reader.take("t") || reader.take(" "), let (hour, minute, second) = reader.clock() else { return nil }
        // Fractions of a second are read and dropped: the store keeps whole seconds.
        if reader.take(".") || reader.take(",") {
            guard reader.digits(atLeast: 1) else { return nil }
        }
        if reader.atEnd { return .local(year: year, month: month, day: day, hour: hour, minute: minute, second: second) }
        guard let offset = reader.offset(), reader.atEnd else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let utc = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
        return .instant(utc.addingTimeInterval(-Double(offset)))
    }

    /// `30m`, `-2h`, `7d`, `-2w`: seconds back from now; `+24h`: ahead (negative).
    private static func span(_ text: String) -> Double? {
        let ahead = text.hasPrefix("+")
        let body = text.hasPrefix("-") || ahead ? text.dropFirst() : Substring(text)
        guard let unit = body.last, body.count >= 2, body.dropLast().allSatisfy(\.isASCII),
              let count = Int(body.dropLast()), count >= 0 else { return nil }
        let seconds: Double? = switch unit {
        case "s": 1
        case "m": 60
        case "h": 3_600
        case "d": 86_400
        case "w": 7 * 86_400
        default: nil
        }
        return seconds.map { Double(count) * $0 * (ahead ? -1 : 1) }
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// A cursor over ASCII text: digits, separators, a clock time, an offset.
    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0
        var atEnd: Bool { index == scalars.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < scalars.count, scalars[index] == character else { return false }
            index += 1
            return true
        }

        mutating func number(digits count: Int) -> Int? {
            guard index + count <= scalars.count else { return nil }
            var value = 0
            for scalar in scalars[index..<(index + count)] {
                guard ("0"..."9").contains(scalar) else { return nil }
                value = value * 10 + Int(scalar.value - 48)
            }
            index += count
            return value
        }

        mutating func digits(atLeast count: Int) -> Bool {
            let start = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            return index - start >= count
        }

        /// `HH:MM` or `HH:MM:SS`, in range.
        mutating func clock() -> (Int, Int, Int)? {
            guard let hour = number(digits: 2), take(":"), let minute = number(digits: 2), hour < 24, minute < 60 else { return nil }
            var second = 0
            if take(":") {
                guard let value = number(digits: 2), value < 60 else { return nil }
                second = value
            }
            return (hour, minute, second)
        }

        /// `Z`, `±HH:MM`, `±HHMM` or `±HH`: seconds east of UTC.
        mutating func offset() -> Int? {
            if take("Z") || take("z") { return 0 }
            let sign: Int
            if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
            guard let hours = number(digits: 2), hours < 24 else { return nil }
            var minutes = 0
            if take(":") {
                guard let value = number(digits: 2) else { return nil }
                minutes = value
            } else if let value = number(digits: 2) {
                minutes = value
            }
            guard minutes < 60 else { return nil }
            return sign * (hours * 3_600 + minutes * 60)
        }
    }
}
