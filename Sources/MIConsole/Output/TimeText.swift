import Foundation

/// Times as the console writes them, in the site's zone (`display.timeZone`) with its offset:
/// `2026-11-21 10:00:00+01:00` in tables, `2026-11-21T10:00:00+01:00` in JSON and CSV (with
/// `Z` for a zero offset there, as the store's own ISO 8601 times have always been written).
///
/// Hand-made from `gmtime_r` on the shifted instant rather than a `DateFormatter`: listings
/// write two times per row, and a formatter per zone and call is slow.
struct TimeText {
    let zone: TimeZone
    private let offsets = OffsetCache()

    init(zone: TimeZone) { self.zone = zone }

    /// The zone's offset per quarter hour (every zone changes its offset on a quarter hour):
    /// a listing's times fall in few quarters, and asking the zone costs more than the rest.
    private final class OffsetCache {
        var byQuarter: [Int: Int] = [:]
    }

    private func offset(for date: Date) -> Int {
        let quarter = Int((date.timeIntervalSince1970 / 900).rounded(.down))
        if let cached = offsets.byQuarter[quarter] { return cached }
        let offset = zone.secondsFromGMT(for: date)
        if offsets.byQuarter.count > 100_000 { offsets.byQuarter.removeAll(keepingCapacity: true) }
        offsets.byQuarter[quarter] = offset
        return offset
    }

    func table(_ date: Date) -> String { text(date, separator: " ", zulu: false) }
    func iso8601(_ date: Date) -> String { text(date, separator: "T", zulu: true) }

    private func text(_ date: Date, separator: String, zulu: Bool) -> String {
        let offset = offset(for: date)
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down)) + time_t(offset)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        let zone = zulu && offset == 0 ? "Z" : sign + pad(magnitude / 60, 2) + ":" + pad(magnitude % 60, 2)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + separator + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + zone
    }

    private func pad(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}
