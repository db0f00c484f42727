import Testing
@testable import MIPostgres
@testable import MIStore

/// Numbers read from libpq's bytes are the numbers `Int64(_:)` and `Double(_:)` read from the
/// same text, and what the short way does not take is left to them (nil).
@Suite("PostgreSQL: numbers read from the result's bytes")
struct PostgresNumberTextTests {
    private func int64(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBufferPointer(PostgresNumberText.int64)
    }

    private func double(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer(PostgresNumberText.double)
    }

    @Test(arguments: ["0", "7", "-7", "42", "1735737871", "-0", "9223372036854775807", "-9223372036854775808"])
    func integersAreReadAsInt64ReadsThem(text: String) {
        #expect(int64(text) == Int64(text))
        #expect(int64(text) != nil)
    }

    @Test(arguments: ["", "-", "9223372036854775808", "-9223372036854775809", "+5", "1.5", "12a", " 1", "1e3"])
    func anythingElseIsLeftToTheGeneralWay(text: String) {
        #expect(int64(text) == nil)
    }

    @Test(arguments: ["0", "1735737871", "1735737871.5", "1735737871.123", "-1.25", "0.1", "0.3", "123456789012345",
                      "1.23456789012345", "-0", "0.00000000000001", "99999.9999999999"])
    func plainDecimalsAreReadAsDoubleReadsThem(text: String) throws {
        let read = try #require(double(text))
        let expected = try #require(Double(text))
        #expect(read.bitPattern == expected.bitPattern)
    }

    @Test(arguments: ["", "-", ".", "1.", ".5", "1.2.3", "1e10", "NaN", "Infinity", "-Infinity",
                      "1735737871.5336144", "1234567890123456", "+1"])
    func spellingsTheShortWayDoesNotTakeAreLeftToDouble(text: String) {
        #expect(double(text) == nil)
    }

    /// The store's times, whole and with up to five decimals, over several decades: every one
    /// read as `Double` reads it, to the bit.
    @Test func timesWithDecimalsMatchDoubleToTheBit() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let seconds = Int64.random(in: 0...4_000_000_000, using: &generator)
            let decimals = Int.random(in: 0...5, using: &generator)
            var text = String(seconds)
            if decimals > 0 {
                let fraction = Int.random(in: 0..<Int(pow10(decimals)), using: &generator)
                let digits = String(fraction)
                text += "." + String(repeating: "0", count: decimals - digits.count) + digits
            }
            let read = try #require(double(text), "\(text)")
            #expect(read.bitPattern == Double(text)!.bitPattern, "\(text)")
        }
    }

    private func pow10(_ n: Int) -> Double { (0..<n).reduce(1) { value, _ in value * 10 } }
}
