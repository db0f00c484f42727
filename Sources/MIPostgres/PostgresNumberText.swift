/// Numbers in libpq's text format read straight from the result's bytes, without a `String`
/// for each first: a listing reads four numbers per row (id, two times, version), and making a
/// string of each, measuring it and parsing it again through `Int64(_:)` or `Double(_:)` showed
/// in its profile (docs/benchmarks.md).
///
/// Each function reads only the plain spellings the server writes for the store's values and
/// returns nil for anything else (an exponent, `NaN`, `Infinity`, more digits than it takes
/// exactly); the caller then reads the text the general way, so the value is the same either way.
package enum PostgresNumberText {
    /// `-`? digits, as `int2`, `int4` and `int8` are written; nil on overflow or anything else.
    package static func int64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulated negative: Int64.min has no positive twin.
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    /// `-`? digits (`.` digits)?, at most 15 digits in all, as `float8` writes the store's times
    /// (seconds since 1970, whole or with a few decimals). Those digits are an integer below
    /// 2^53 and the decimals a power of ten below 10^22, both exact as a `Double`, so one
    /// division gives the correctly rounded value: the same `Double` as `strtod` reads.
    package static func double(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var decimals = 0
        var seenPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            digits += 1
            guard digits <= 15 else { return nil }
            mantissa = mantissa * 10 + Int64(digit)
            if seenPoint { decimals += 1 }
        }
        // At least one digit, and none of "1." or ".5" (the server writes neither).
        guard digits > 0, !seenPoint || decimals > 0, bytes[negative ? 1 : 0] != UInt8(ascii: ".") else { return nil }
        let magnitude = Double(mantissa) / powersOfTen[decimals]
        return negative ? -magnitude : magnitude
    }

    /// 10^0 ... 10^15, each exact as a `Double`.
    private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }
}
