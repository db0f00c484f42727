import Foundation

/// Times as the console writes them, in the site's zone (`display.timeZone`) with its offset:
/// `2026-11-21 10:00:00+01:00` in tables, `2026-11-21T10:00:00+01:00` in JSON and CSV.
///
/// Hand-made from `gmtime_r` on the shifted instant rather than a `DateFormatter`: listings
/// write two times per row, and a formatter per zone and call is slow.
struct TimeText {
    let zone: TimeZone

    func table(_ date: Date) -> String { text(date, separator: " ", offsetSeparator: "") }
    func iso8601(_ date: Date) -> String { text(date, separator: "T", offsetSeparator: "") }

    private func text(_ date: Date, separator: String, offsetSeparator: String) -> String {
        let offset = zone.secondsFromGMT(for: date)
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down)) + time_t(offset)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + separator + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + offsetSeparator + sign + pad(magnitude / 60, 2) + ":" + pad(magnitude % 60, 2)
    }

    private func pad(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}
