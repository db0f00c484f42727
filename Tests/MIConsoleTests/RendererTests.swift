import Foundation
import MICommands
@testable import MIConsole
import Testing

/// The byte-level CSV and JSON writers, checked against what the rules say and, for JSON,
/// against Foundation's JSON parser reading the output back.
@Suite struct RendererTests {
    func csv(_ text: String) -> String {
        var bytes: [UInt8] = []
        CSVRenderer.appendField(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func csvFieldsQuoteOnlyWhatNeedsIt() {
        #expect(csv("Pump station 12") == "Pump station 12")
        #expect(csv("") == "")
        #expect(csv("Booster pump, north yard") == "\"Booster pump, north yard\"")
        #expect(csv("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(csv("two\nlines") == "\"two\nlines\"")
        #expect(csv("Zoë Ångström") == "Zoë Ångström")
        #expect(csv("O'Brien, Seán") == "\"O'Brien, Seán\"")
    }

    @Test func csvFieldsEscapeTerminalControls() {
        #expect(csv("a\u{1b}[31mred") == "a\\x1b[31mred")
        #expect(csv("cr\rhere") == "cr\\x0dhere", "CR is escaped, so it needs no quotes")
        #expect(csv("del\u{7f}") == "del\\x7f")
        #expect(csv("c1\u{85}x") == "c1\\u{0085}x")
        #expect(csv("tab\there, \"q\"") == "\"tab\\x09here, \"\"q\"\"\"")
    }

    func json(_ text: String) -> String {
        var bytes: [UInt8] = []
        JSONRenderer.appendString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func jsonStringsEscapeAndReadBack() throws {
        let samples = ["plain", "", "quote \" and \\ backslash", "new\nline\ttab\rcr", "\u{1}\u{1f}\u{7f}",
                       "Zoë Ångström", "c1 \u{85}\u{9f} and \u{a0}", "emoji 🙂 and CJK 点检", "Sprinkler riser – Zürich"]
        for sample in samples {
            let literal = json(sample)
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
            #expect(parsed == [sample], "\(literal)")
        }
        #expect(json("a\"b") == "\"a\\\"b\"")
        #expect(json("\u{1b}") == "\"\\u001b\"")
        #expect(json("\u{85}") == "\"\\u0085\"")
        #expect(json("é") == "\"é\"", "printable non-ASCII is written as itself")
        #expect(JSONRenderer.string("x\ny") == "\"x\\ny\"")
    }

    @Test func timesAsISO8601AndForTables() throws {
        let date = try #require(ISO8601DateFormatter().date(from: "2026-03-07T04:05:06Z"))
        let utc = TimeText(zone: try #require(TimeZone(identifier: "UTC")))
        #expect(utc.iso8601(date) == "2026-03-07T04:05:06Z")
        #expect(utc.table(date) == "2026-03-07 04:05:06+00:00")
        let kolkata = TimeText(zone: try #require(TimeZone(identifier: "Asia/Kolkata")))
        #expect(kolkata.iso8601(date) == "2026-03-07T09:35:06+05:30")
        let newYork = TimeText(zone: try #require(TimeZone(identifier: "America/New_York")))
        #expect(newYork.table(date) == "2026-03-06 23:05:06-05:00")
        var bytes: [UInt8] = Array("x=".utf8)
        kolkata.appendISO8601(date, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x=2026-03-07T09:35:06+05:30")
        let fixed = TimeText(zone: try #require(TimeZone(secondsFromGMT: -3 * 3600 - 1800)))
        #expect(fixed.iso8601(date) == "2026-03-07T00:35:06-03:30")
        let early = Date(timeIntervalSince1970: -62_000_000_000)  // year 0005
        #expect(utc.iso8601(early).hasPrefix("0005-"))
    }
}
