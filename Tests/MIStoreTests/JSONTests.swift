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
