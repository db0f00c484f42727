import Foundation
import MICommands
import Testing

/// The one parser of every time option, on a fixed clock (2026-11-25 09:30:00 UTC, a Wednesday)
/// in a fixed zone (Europe/Berlin, +01:00 in November).
@Suite("Time arguments")
struct TimeArgumentTests {
    let now = Date(timeIntervalSince1970: 1_795_599_000)  // 2026-11-25T09:30:00Z
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    func resolved(_ typed: String) throws -> Date {
        try TimeArgument(parsing: typed).date(now: now, zone: berlin)
    }

    @Test func aFullISOTimeWithItsOffsetIsThatInstant() throws {
        #expect(try resolved("2026-11-23T12:00:00+01:00") == utc("2026-11-23T11:00:00Z"))
        #expect(try resolved("2026-11-23T12:00:00Z") == utc("2026-11-23T12:00:00Z"))
        #expect(try resolved("2026-11-23T12:00-0500") == utc("2026-11-23T17:00:00Z"))
        #expect(try resolved("2026-11-23T12:00:00.250Z") == utc("2026-11-23T12:00:00Z"))
    }

    @Test func aDateOrDateTimeWithoutOffsetIsReadInTheDisplayZone() throws {
        #expect(try resolved("2026-11-23") == utc("2026-11-22T23:00:00Z"))
        #expect(try resolved("2026-11-23T12:00") == utc("2026-11-23T11:00:00Z"))
        #expect(try resolved("2026-11-23 12:00") == utc("2026-11-23T11:00:00Z"))
        #expect(try resolved("2026-11-23T12:00:30") == utc("2026-11-23T11:00:30Z"))
        // Summer time: +02:00.
        #expect(try resolved("2026-07-01T12:00") == utc("2026-07-01T10:00:00Z"))
    }

    @Test func aTimeOfDayIsTodayInTheDisplayZone() throws {
        #expect(try resolved("12:00") == utc("2026-11-25T11:00:00Z"))
        #expect(try resolved("00:30:15") == utc("2026-11-24T23:30:15Z"))
    }

    @Test func wordsAndSpansBackFromNow() throws {
        #expect(try resolved("today") == utc("2026-11-24T23:00:00Z"))
        #expect(try resolved("Yesterday") == utc("2026-11-23T23:00:00Z"))
        #expect(try resolved("now") == now)
        #expect(try resolved("-2h") == utc("2026-11-25T07:30:00Z"))
        #expect(try resolved("2h") == utc("2026-11-25T07:30:00Z"))
        #expect(try resolved("-3d") == utc("2026-11-22T09:30:00Z"))
        #expect(try resolved("30m") == utc("2026-11-25T09:00:00Z"))
        #expect(try resolved("1w") == utc("2026-11-18T09:30:00Z"))
        #expect(try resolved("tomorrow") == utc("2026-11-25T23:00:00Z"))
        #expect(try resolved("+24h") == utc("2026-11-26T09:30:00Z"))
    }

    @Test(arguments: ["2026-11-25Tgarbage", "2026-11-25T", "2026-02-30", "2026-13-01", "25:00", "12:60", "12",
                      "2026-11-23T12:00+25:00", "next week", "-h", "+-2h", "2026/11/23", "", "2026-11-23T12:00 +01:00", "1.5h"])
    func anythingElseIsRefusedWithTheAcceptedForms(_ typed: String) {
        #expect(throws: TimeArgument.Refusal(text: typed)) { try TimeArgument(parsing: typed) }
        #expect(TimeArgument(argument: typed) == nil)
        #expect(TimeArgument.Refusal(text: typed).description.contains("2026-11-23T12:00"))
    }
}
