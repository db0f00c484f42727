import Foundation

extension ICalendarWriter {
    /// The calendar's opening lines (before the events).
    static let headerLines = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//miadmin//MI reminder plan//EN", "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH", "X-WR-CALNAME:" + escape("MI reminders"),
    ]

    /// One event's content lines, unfolded; `stamp` is DTSTAMP (UTC).
    static func lines(_ event: Event, stamp: String) -> [String] {
        var lines = ["BEGIN:VEVENT", "UID:" + escape(event.uid), "DTSTAMP:" + stamp, "DTSTART:" + utc(event.start),
                     "DURATION:PT15M", "SUMMARY:" + escape(event.summary)]
        if let description = event.description { lines.append("DESCRIPTION:" + escape(description)) }
        lines.append("END:VEVENT")
        return lines
    }

    /// A whole calendar in memory (a mail attachment): the same text the writer puts in a file.
    static func calendar(_ events: [Event], now: Date) -> Data {
        var data = Data()
        let stamp = utc(now)
        for text in headerLines + events.flatMap({ lines($0, stamp: stamp) }) + ["END:VCALENDAR"] { data.append(fold(text)) }
        return data
    }
}
