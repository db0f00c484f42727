import Foundation
import Testing
@testable import MIStore

@Suite("Reviewing a form")
struct ReviewTests {
    @Test func rendersAnswersByType() throws {
        let dir = try TempDir()
        let store = try makeStore(dir)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        _ = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        let review = try store.review(ref("jdoe/Generator monthly"))
        #expect(review.form.state == .completed && review.form.mediaCount == 2)
        #expect(review.violations == [])
        #expect(review.questions.map(\.answer).prefix(4) == ["Good", "yes", "PX-2231-B", "4.5"])
        #expect(review.questions[5].answer == "Noise, Electrical")
        #expect(review.questions[4].answer == [
            "      | Drive end | Non-drive end",
            "Motor | 41        | 39",
            "Pump  | 44        | ×",
        ].joined(separator: "\n"))
        #expect(review.questions[1].media == ["Qid1(1).mp4", "Qid1(2).jpg"])
        #expect(review.questions[1].help == "Open the valve until water flows, then close it.")
        #expect(review.questions.map(\.index) == Array(0..<6))

        let empty = try store.review(ref("jdoe/Pump station 4"))
        #expect(empty.questions.allSatisfy { $0.answer == "" && !$0.answered })
        #expect(empty.questions[3].comment == "gauge recalibrated")
        #expect(empty.violations == [])  // incomplete forms may be unanswered
    }

    @Test func flagsEveryRule() throws {
        let dir = try TempDir()
        let store = try makeStore(dir)
        let tree = try TreeBuilder(dir.sub("Documents"))
        let json = Samples.formJSON(name: "Broken", created: "2026-11-10T07:00:00Z", modified: "2026-11-10T07:00:00Z",
                                    answered: true)
            .replacingOccurrences(of: "\"answer\": [0],", with: "\"answer\": [0, 9],")
            .replacingOccurrences(of: "\"answer\": \"PX-2231-B\"", with: "\"answer\": \"  \"")
            .replacingOccurrences(of: "\"answer\": 4.5", with: "\"answer\": \"4.5 bar\"")
            .replacingOccurrences(of: "[\"44\", null]", with: "[\"44\", \"40\"]")
        try tree.write("Completed MIs/jdoe/Broken/form.json", json)
        try tree.write("Completed MIs/jdoe/Broken/Qid9(1).jpg", "x")
        let report = try store.importTree(at: tree.root, actor: "importer")
        #expect(report.inserted.count == 1)

        let review = try store.review(ref("jdoe/Broken"))
        #expect(review.violations.map(\.rule) == [.tooManyAnswers, .optionOutOfRange, .unanswered, .notANumber,
                                                  .filledNoCell, .mediaWithoutQuestion])
        #expect(review.violations.map(\.question) == [0, 0, 2, 3, 4, 9])
        #expect(review.violations[0].message == "question 0 'Pump condition': 2 answers chosen, at most 1 allowed")
        #expect(review.questions[0].answer == "Good, #9 (no such option)")
        #expect(review.questions[3].answer == "(not a valid answer: \"4.5 bar\")")
        #expect(review.questions[4].answer.hasSuffix("Pump  | 44        | × 40"))
        #expect(report.warnings.count == 6)
        // Nothing was dropped: the stored form.json still holds every answer as given.
        let stored = try store.form(ref("jdoe/Broken")).document
        #expect(stored.questions[3].json["answer"] == .string("4.5 bar"))
    }

    @Test func tableShapeMismatch() throws {
        let json = Samples.formJSON(name: "T", created: "2026-11-10T07:00:00Z", modified: "2026-11-10T07:00:00Z", answered: true)
            .replacingOccurrences(of: "[[\"41\", \"39\"], [\"44\", null]]", with: "[[\"41\"]]")
        let document = try FormDocument(jsonData: Data(json.utf8))
        #expect(Rules.check(document, state: .incomplete, mediaNames: []).map(\.rule) == [.tableShape])
        #expect(AnswerRendering.render(document.questions[4]) == [
            "      | Drive end | Non-drive end",
            "Motor | 41        |",
            "Pump  |           | ×",
        ].joined(separator: "\n"))
    }
}
