import Foundation

/// Times as the console writes them (tables, CSV, JSON, and the mails and calendars it sends), in the site's zone (`display.timeZone`) with its offset:
/// `2026-11-21 10:00:00+01:00` in tables, `2026-11-21T10:00:00+01:00` in JSON and CSV (with
/// `Z` for a zero offset there, as the store's own ISO 8601 times have always been written).
///
/// Hand-made from `gmtime_r` on the shifted instant rather than a `DateFormatter`: listings
/// write two times per row, and a formatter per zone and call is slow.
public struct TimeText {
    let zone: TimeZone
    private let offsets = OffsetCache()

    /// Nothing is asked of the zone until a time is written: the machine's zone
    /// (`TimeZone.autoupdatingCurrent`, the default) is only looked up then, and most sessions
    /// write no time at all (the look-up was half a millisecond of every start).
    public init(zone: TimeZone) {
        self.zone = zone
    }

    /// The zone's offset per quarter hour (every zone changes its offset on a quarter hour):
    /// a listing's times fall in few quarters, and asking the zone costs more than the rest.
    private final class OffsetCache {
        /// The offset of a zone that has only one (UTC, `GMT+0100`): no cache to ask. Hashing
        /// the quarter showed in a million-row listing's profile (docs/benchmarks.md). Set at
        /// the first time written.
        var fixedOffset: Int??
        var byQuarter: [Int: Int] = [:]
    }

    private func offset(for date: Date) -> Int {
        let fixed: Int?
        if let known = offsets.fixedOffset {
            fixed = known
        } else {
            let id = zone.identifier
            fixed = id == "UTC" || id == "Etc/UTC" || id == "GMT" || id.hasPrefix("GMT+") || id.hasPrefix("GMT-")
                ? zone.secondsFromGMT() : nil
            offsets.fixedOffset = .some(fixed)
        }
        if let fixed { return fixed }
        let quarter = Int((date.timeIntervalSince1970 / 900).rounded(.down))
        if let cached = offsets.byQuarter[quarter] { return cached }
        let offset = zone.secondsFromGMT(for: date)
        if offsets.byQuarter.count > 100_000 { offsets.byQuarter.removeAll(keepingCapacity: true) }
        offsets.byQuarter[quarter] = offset
        return offset
    }

    public func table(_ date: Date) -> String { text(date, separator: UInt8(ascii: " "), zulu: false) }
    public func iso8601(_ date: Date) -> String { text(date, separator: UInt8(ascii: "T"), zulu: true) }

    /// `iso8601(date)` appended to `bytes` (CSV and JSON listings: two times per row).
    public func appendISO8601(_ date: Date, to bytes: inout [UInt8]) {
        append(date, separator: UInt8(ascii: "T"), zulu: true, to: &bytes)
    }

    private func text(_ date: Date, separator: UInt8, zulu: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(25)
        append(date, separator: separator, zulu: zulu, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func append(_ date: Date, separator: UInt8, zulu: Bool, to bytes: inout [UInt8]) {
        let offset = offset(for: date)
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down)) + time_t(offset)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        Self.digits(Int(parts.tm_year) + 1900, 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.digits(Int(parts.tm_mon) + 1, 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Self.digits(Int(parts.tm_mday), 2, to: &bytes)
        bytes.append(separator)
        Self.digits(Int(parts.tm_hour), 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.digits(Int(parts.tm_min), 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.digits(Int(parts.tm_sec), 2, to: &bytes)
        if zulu && offset == 0 {
            bytes.append(UInt8(ascii: "Z"))
            return
        }
        bytes.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let magnitude = abs(offset) / 60
        Self.digits(magnitude / 60, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.digits(magnitude % 60, 2, to: &bytes)
    }

    /// `value` in decimal, zero-padded to at least `width` digits; no array per call. Two-digit
    /// fields (all but the year) take the short way: a listing writes ten of them per row.
    private static func digits(_ value: Int, _ width: Int, to bytes: inout [UInt8]) {
        if width == 2, (0..<100).contains(value) {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var power: UInt = 1, count = 1
        while magnitude / power >= 10 {
            power *= 10
            count += 1
        }
        for _ in count..<max(count, width) { bytes.append(UInt8(ascii: "0")) }
        while power > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((magnitude / power) % 10))
            power /= 10
        }
    }
}
