import Foundation
import Testing
@testable import MIStore

@Suite("JSON reading and writing")
struct JSONTests {
    @Test func keepsKeyOrderAndNumberLiterals() throws {
        let value = try JSONParser.parse(Data(#"{"b": 1.50, "a": [true, null, "x\u00e9\n"], "c": -2e3}"#.utf8))
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == .number("1.50"))
        #expect(object["c"] == .number("-2e3"))
        #expect(object["a"] == .array([.bool(true), .null, .string("xé\n")]))
        let compact = JSONWriter.compact(value)
        #expect(compact == #"{"b":1.50,"a":[true,null,"x\u00e9\n"],"c":-2e3}"#.replacingOccurrences(of: "\\u00e9", with: "é"))
        #expect(try JSONParser.parse(Data(JSONWriter.write(value).utf8)) == value)
    }

    /// Strings without a quote, backslash or control character are written as they are (the
    /// writer's one-scan path); the rest character by character, and both read back the same.
    @Test(arguments: [
        ("plain", #""plain""#), ("Pump station 4 (2)", #""Pump station 4 (2)""#), ("é😀", #""é😀""#), ("", #""""#),
        (#"say "hi""#, #""say \"hi\"""#), (#"C:\dir"#, #""C:\\dir""#), ("a\nb\tc\r", #""a\nb\tc\r""#),
        ("bell\u{07}", #""bell\u0007""#), ("\u{1F}é", #""\u001fé""#), ("\u{08}\u{0C}", #""\b\f""#),
    ])
    func stringsAreEscapedOnlyWhereJSONNeedsIt(text: String, expected: String) throws {
        #expect(JSONWriter.compact(.string(text)) == expected)
        #expect(try JSONParser.parse(Data(expected.utf8)) == .string(text))
    }

    @Test func objectEqualityIgnoresOrder() throws {
        let one = try JSONParser.parse(Data(#"{"a": 1, "b": 2}"#.utf8))
        let two = try JSONParser.parse(Data(#"{"b": 2, "a": 1}"#.utf8))
        #expect(one == two)
    }

    @Test(arguments: [
        (#"{"a": 1,"#, "line 1, column 9"),
        ("{\n  \"a\": tru\n}", "line 2, column 8"),
        (#"{"a": 1, "a": 2}"#, "duplicate key \"a\""),
        (#"[1 2]"#, "expected ',' or ']'"),
        (#"{"a": 01}"#, "expected ',' or '}'"),
        ("\"tab\there\"", "control character"),
        ("", "unexpected end of file"),
    ])
    func syntaxErrorsSayWhere(text: String, expected: String) {
        #expect {
            _ = try JSONParser.parse(Data(text.utf8))
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { _ = try JSONParser.parse(Data([0x22, 0xFF, 0x22])) }
    }

    @Test func surrogatePairs() throws {
        #expect(try JSONParser.parse(Data(#""\ud83d\ude00""#.utf8)) == .string("😀"))
        #expect(throws: JSONSyntaxError.self) { _ = try JSONParser.parse(Data(#""\ud83d""#.utf8)) }
    }

    @Test func sha256KnownVectors() {
        #expect(MediaDigest.hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(MediaDigest.hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(MediaDigest.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}

@Suite("JSON limits and escapes")
struct JSONLimitTests {
    func refusal(_ text: String, limits: JSONLimits = .standard) -> String? {
        do { _ = try JSONParser.parse(Data(text.utf8), limits: limits); return nil } catch { return error.description }
    }

    // `UInt32("+fff", radix: 16)` is 4095: a signed parse took these as escapes.
    @Test(arguments: [#"["\u+fff"]"#, #"["\u-000"]"#, #"["\u 123"]"#, #"["\u12g4"]"#])
    func uEscapesTakeExactlyFourHexDigits(text: String) {
        #expect(refusal(text)?.contains("expected four hex digits after \\u") == true)
    }

    @Test func upperAndLowerCaseHexDigits() throws {
        #expect(try JSONParser.parse(Data(#""\u00E9\u00e9\uD83D\uDE00""#.utf8)) == .string("éé😀"))
    }

    @Test func tooManyKeys() {
        let limits = JSONLimits(maximumBytes: 1 << 20, maximumDepth: 8, maximumKeys: 3, maximumArrayLength: 10, maximumStringBytes: 100)
        #expect(refusal(#"{"a":1,"b":2,"c":3}"#, limits: limits) == nil)
        #expect(refusal(#"{"a":1,"b":2,"c":3,"d":4}"#, limits: limits)?.contains("more than 3 keys in one object") == true)
    }

    @Test func tooLongArraysStringsAndTexts() {
        let limits = JSONLimits(maximumBytes: 64, maximumDepth: 3, maximumKeys: 3, maximumArrayLength: 2, maximumStringBytes: 4)
        #expect(refusal("[1,2,3]", limits: limits)?.contains("more than 2 elements in one array") == true)
        #expect(refusal(#""abcde""#, limits: limits)?.contains("a string longer than 4 bytes") == true)
        #expect(refusal(#""\u00e9\u00e9\u00e9""#, limits: limits)?.contains("a string longer than 4 bytes") == true)
        #expect(refusal("[[[[1]]]]", limits: limits)?.contains("nested more than 3 levels deep") == true)
        #expect(refusal("[" + String(repeating: "1,", count: 40) + "1]", limits: limits)?.contains("at most 64 are allowed") == true)
    }

    @Test func theStandardCapsHoldForAFormSizedObjectAndRefuseAHostileOne() throws {
        // 10,000 distinct keys: the most one object may hold. Found by hashing; before, each key
        // was compared with every earlier one (a 710 KB file took 93 s).
        let keys = (0..<10_000).map { #""key-\#($0)-\#(String(repeating: "x", count: 40))":\#($0)"# }
        let text = "{" + keys.joined(separator: ",") + "}"
        guard case .object(let object) = try JSONParser.parse(Data(text.utf8)) else { Issue.record("not an object"); return }
        #expect(object.entries.count == 10_000 && object["key-9999-" + String(repeating: "x", count: 40)] == .number("9999"))
        #expect(refusal("{" + keys.joined(separator: ",") + #","one-more":0}"#)?.contains("more than 10000 keys") == true)
        #expect(refusal("{" + keys.joined(separator: ",") + "," + keys[5000] + "}")?.contains("duplicate key") == true)
    }

    @Test(arguments: TestEngine.allCases) func aFormFileOverTheSizeCapIsRefusedBeforeItIsRead(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try Samples.writeTree(at: dir.sub("Documents"))
        // The import's own cap (ImportLimits, 4 MiB) is below the JSON reader's (8 MiB) and is
        // checked on the open descriptor, before a byte is read.
        let cap = ImportLimits.defaults.formJSONBytes
        let big = try tree.write("jdoe/Huge/form.json", Data(count: cap + 1))
        let report = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        let issue = try #require(report.errors.first { $0.path == big.path })
        #expect(issue.reason == "\(cap + 1) bytes, more than the limit of 4 MiB")
        #expect(report.inserted.count == 5)
    }
}
