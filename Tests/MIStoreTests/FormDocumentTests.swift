import Foundation
import Testing
@testable import MIStore

@Suite("form.json decoding and form references")
struct FormDocumentTests {
    static let valid = Samples.formJSON(name: "Pump", created: "2026-11-19T13:40:00+01:00",
                                        modified: "2026-11-19T14:00:00+01:00", answered: true)

    @Test func decodesTheSampleForm() throws {
        let document = try FormDocument(jsonData: Data(Self.valid.utf8))
        #expect(document.name == "Pump")
        #expect(document.created.text == "2026-11-19T13:40:00+01:00")
        #expect(document.created.date == Date(timeIntervalSince1970: 1_795_092_000))
        #expect(document.questions.map(\.kind) == [.multipleChoice, .trueFalse, .shortAnswer, .numeric, .table, .multipleChoice])
        #expect(document.questions[0].maxAnswers == 1)
        #expect(document.questions[0].answer == .multipleChoice([0]))
        #expect(document.questions[1].help == "Open the valve until water flows, then close it.")
        #expect(document.questions[3].answer == .numeric(4.5))
        #expect(document.questions[4].noCells == [TableCell(row: 1, column: 1)])
        #expect(document.questions[4].answer == .table([["41", "39"], ["44", nil]]))
        #expect(document.foremanComments == nil)
    }

    @Test(arguments: [
        ("{\"name\": ", "invalid JSON at line 1"),
        ("[]", "expected an object, found an array"),
        (valid.replacingOccurrences(of: "\"templateId\": \"T-17\",", with: ""), "templateId: missing key"),
        (valid.replacingOccurrences(of: "\"templateId\": \"T-17\"", with: "\"templateId\": 17"),
         "templateId: expected a string, found a number"),
        (valid.replacingOccurrences(of: "\"Max-answers\": 1", with: "\"Max-answers\": \"one\""),
         "questions[0].Max-answers: expected an integer, found a string"),
        (valid.replacingOccurrences(of: "\"Good\", \"Worn\"", with: "\"Good\", 2"),
         "questions[0].options[1]: expected a string, found a number"),
        (valid.replacingOccurrences(of: "\"type\": \"trueFalse\"", with: "\"type\": \"signature\""),
         "questions[1].type: unknown question type 'signature'"),
        (valid.replacingOccurrences(of: "\"noCells\": [[1, 1]]", with: "\"noCells\": [[1]]"),
         "questions[4].noCells[0]: expected a [row, column] pair"),
        (valid.replacingOccurrences(of: "2026-11-19T13:40:00+01:00", with: "2026-11-19T13:40:00"),
         "created: '2026-11-19T13:40:00' is not an ISO 8601 date-time with zone"),
        (valid.replacingOccurrences(of: "\"text\": \"Serial number\"", with: "\"text\": null"),
         "questions[2].text: missing key"),
    ])
    func strictErrorsNameTheKeyPath(json: String, expected: String) {
        #expect {
            _ = try FormDocument(jsonData: Data(json.utf8))
        } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidInput && error.message.contains(expected)
        }
    }

    @Test func answersOfTheWrongShapeAreKeptAndFlagged() throws {
        let json = Self.valid
            .replacingOccurrences(of: "\"answer\": 4.5", with: "\"answer\": \"4,5\"")
            .replacingOccurrences(of: "\"answer\": true", with: "\"answer\": \"yes\"")
        let document = try FormDocument(jsonData: Data(json.utf8))
        #expect(document.questions[3].answer == .malformed(.string("4,5")))
        let rules = Rules.check(document, state: .completed, mediaNames: []).map(\.rule)
        #expect(rules == [.malformedAnswer, .notANumber])
    }

    @Test func unknownKeysSurviveEncoding() throws {
        let json = Self.valid
            .replacingOccurrences(of: "\"templateId\": \"T-17\",", with: "\"templateId\": \"T-17\", \"gps\": [1.25, 2],")
            .replacingOccurrences(of: "\"text\": \"Serial number\",", with: "\"text\": \"Serial number\", \"barcode\": true,")
        let document = try FormDocument(jsonData: Data(json.utf8))
        #expect(document.extra["gps"] == .array([.number("1.25"), .number("2")]))
        let again = try FormDocument(jsonData: document.jsonData())
        #expect(again == document)
        #expect(again.questions[2].json["barcode"] == .bool(true))
        #expect(try JSONParser.parse(document.jsonData()) == JSONParser.parse(Data(json.utf8)))
    }

    @Test func formReferences() throws {
        #expect(try ref("42") == .id(42))
        #expect(try ref("jdoe/Pump station 4") == .path(owner: "jdoe", name: "Pump station 4"))
        #expect(try ref("jdoe/Valve 3/4 (2)") == .path(owner: "jdoe", name: "Valve 3/4 (2)"))
        #expect(try ref("jdoe/Prüfung – Süd") == .path(owner: "jdoe", name: "Prüfung – Süd"))
        #expect(try ref("jdoe/123") == .path(owner: "jdoe", name: "123"))
        // Decomposed input is found under the composed (NFC) spelling the store keeps.
        #expect(try ref("jdoe/Pru\u{308}fung") == .path(owner: "jdoe", name: "Pr\u{FC}fung"))
        for bad in ["", "jdoe", "/Pump", "jdoe/", "0", "99999999999999999999"] {
            #expect(throws: StoreError.self) { try ref(bad) }
        }
    }

    @Test func mediaNames() {
        #expect(MediaFile.parseName("Qid1(3).mp4")! == (1, 3, "mp4"))
        #expect(MediaFile.parseName("Qid12(1).xyz")! == (12, 1, "xyz"))
        for bad in ["Qid1(3)", "Qid(3).jpg", "Qida(1).jpg", "Qid1(0).jpg", "qid1(1).jpg", "Qid1(1).tar.gz", "Qid1(1)(2).jpg", "notes.txt"] {
            #expect(MediaFile.parseName(bad) == nil, "\(bad)")
        }
    }

    @Test func baseNames() {
        #expect(FormNames.split("Pump (2)") == ("Pump", 2))
        #expect(FormNames.split("Pump (2) (3)") == ("Pump (2)", 3))
        #expect(FormNames.split("Pump") == ("Pump", nil))
        #expect(FormNames.split("Pump (02)") == ("Pump (02)", nil))
        #expect(FormNames.split("Pump(2)") == ("Pump(2)", nil))
        #expect(FormNames.split(" (2)") == (" (2)", nil))
    }
}
