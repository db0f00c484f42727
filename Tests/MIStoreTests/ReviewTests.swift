import Foundation
import Testing
@testable import MIStore

@Suite("Reviewing a form")
struct ReviewTests {
    @Test(arguments: TestEngine.allCases) func typedAnswersByType(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        _ = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        let review = try store.review(ref("jdoe/Generator monthly"))
        #expect(review.form.state == .completed && review.form.mediaCount == 2)
        #expect(review.violations == [])
        #expect(review.questions.map(\.answer).prefix(4) == [.multipleChoice(["Good"]), .trueFalse(true),
                                                             .shortAnswer("PX-2231-B"), .numeric(value: 4.5, literal: "4.5")])
        #expect(review.questions[5].answer == .multipleChoice(["Noise", "Electrical"]))
        #expect(review.questions[4].answer == .table(ReviewTable(
            columns: ["Drive end", "Non-drive end"], rows: ["Motor", "Pump"],
            cells: [["41", "39"], ["44", nil]], noCells: [TableCell(row: 1, column: 1)])))
        #expect(review.questions[1].media.map(\.fileName) == ["Qid1(1).mp4", "Qid1(2).jpg"])
        #expect(review.questions[1].media.map(\.size) == [12, 6])
        #expect(review.questions[1].help == "Open the valve until water flows, then close it.")
        #expect(review.questions.map(\.index) == Array(0..<6))
        #expect(review.questions.map(\.number) == Array(1...6))

        let empty = try store.review(ref("jdoe/Pump station 4"))
        #expect(empty.questions.allSatisfy { $0.answer == nil && !$0.answered && $0.invalidAnswer == nil })
        #expect(empty.questions[3].comment == "gauge recalibrated")
        #expect(empty.violations == [])  // incomplete forms may be unanswered
    }

    @Test func numericLiteralsAreKeptForDisplay() throws {
        for literal in ["1.50", "1e3", "-0.0", "42"] {
            let json = Samples.formJSON(name: "N", created: "2026-11-10T07:00:00Z", modified: "2026-11-10T07:00:00Z", answered: true)
                .replacingOccurrences(of: "\"answer\": 4.5", with: "\"answer\": \(literal)")
            let document = try FormDocument(jsonData: Data(json.utf8))
            #expect(ReviewAnswer(document.questions[3]) == .numeric(value: Double(literal)!, literal: literal))
        }
    }

    @Test(arguments: TestEngine.allCases) func flagsEveryRuleNumberingQuestionsFromOne(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
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
        #expect(review.violations[0].message == "question 1 'Pump condition': 2 answers chosen, at most 1 allowed")
        #expect(review.violations[4].message
                == "question 5 'Bearing temperatures (C)': the cell in row 2 'Pump', column 2 'Non-drive end' must stay empty")
        #expect(review.violations[5].message == "media file Qid9(1).jpg is for question 10, but the form has 6 questions")
        #expect(review.questions[0].answer == .multipleChoice(["Good"]))
        #expect(review.questions[0].violations.map(\.rule) == [.tooManyAnswers, .optionOutOfRange])
        #expect(review.questions[3].answer == nil)
        #expect(review.questions[3].invalidAnswer == "\"4.5 bar\"")
        guard case .table(let table)? = review.questions[4].answer else { Issue.record("not a table"); return }
        #expect(table.cells[1][1] == "40" && table.isNoCell(row: 1, column: 1))
        #expect(report.warnings.count == 6)
        #expect(report.warnings.contains { $0.description.contains("question 1 'Pump condition'") })
        #expect(!report.warnings.contains { $0.description.contains("question 0") })
        // Nothing was dropped: the stored form.json still holds every answer as given.
        let stored = try store.form(ref("jdoe/Broken")).document
        #expect(stored.questions[3].json["answer"] == .string("4.5 bar"))
    }

    @Test func importValidatesAgainstTheTypedModel() throws {
        let json = Samples.formJSON(name: "T", created: "2026-11-10T07:00:00Z", modified: "2026-11-10T07:00:00Z", answered: true)
            .replacingOccurrences(of: "\"Max-answers\": 0,", with: "\"Max-answers\": 2,")
            .replacingOccurrences(of: "\"answer\": [0, 2]", with: "\"answer\": [0, 1, 2]")
            .replacingOccurrences(of: "\"answer\": true", with: "\"answer\": \"yes\"")
        let document = try FormDocument(jsonData: Data(json.utf8))
        let violations = Rules.check(document, state: .completed, mediaNames: [])
        #expect(violations.map(\.rule) == [.malformedAnswer, .tooManyAnswers])
        #expect(violations.map(\.message) == [
            "question 2 'Pressure relief valve tested?': the answer is a string, which a trueFalse question cannot hold",
            "question 6 'Hazards present': 3 answers chosen, at most 2 allowed"])
    }

    @Test func tableShapeMismatch() throws {
        let json = Samples.formJSON(name: "T", created: "2026-11-10T07:00:00Z", modified: "2026-11-10T07:00:00Z", answered: true)
            .replacingOccurrences(of: "[[\"41\", \"39\"], [\"44\", null]]", with: "[[\"41\"], [null, null, \"7\"]]")
        let document = try FormDocument(jsonData: Data(json.utf8))
        let violations = Rules.check(document, state: .incomplete, mediaNames: [])
        #expect(violations.map(\.rule) == [.tableShape])
        #expect(violations[0].message.hasSuffix("(1 filled cell(s) outside them are stored but not shown)"))
        // The review keeps the declared shape.
        #expect(ReviewAnswer(document.questions[4]) == .table(ReviewTable(
            columns: ["Drive end", "Non-drive end"], rows: ["Motor", "Pump"], cells: [["41", nil], [nil, nil]],
            noCells: [TableCell(row: 1, column: 1)])))
    }

    @Test(arguments: TestEngine.allCases) func aHugeDeclaredTableIsRefusedWithoutBuildingIt(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try TreeBuilder(dir.sub("Documents"))
        // 100,000 x 100,000 declared cells (10^10): the form.json itself is small.
        let headers = "[" + Array(repeating: "\"\"", count: 100_000).joined(separator: ",") + "]"
        let json = Samples.formJSON(name: "Huge", created: "2026-11-10T07:00:00Z", modified: "2026-11-10T07:00:00Z", answered: true)
            .replacingOccurrences(of: "\"rows\": [\"Motor\", \"Pump\"]", with: "\"rows\": \(headers)")
            .replacingOccurrences(of: "\"columns\": [\"Drive end\", \"Non-drive end\"]", with: "\"columns\": \(headers)")
        try tree.write("Completed MIs/jdoe/Huge/form.json", json)
        let report = try store.importTree(at: tree.root, actor: "importer")
        #expect(report.inserted.count == 1, "stored, never dropped")
        #expect(report.warnings.contains { $0.description.contains("tableTooLarge") || $0.description.contains("declares 100000 rows") })
        #expect {
            _ = try store.review(ref("jdoe/Huge"))
        } throws: { error in
            (error as? StoreError)?.message.contains("question 5 'Bearing temperatures (C)': declares 100000 rows x 100000 columns "
                                                     + "= 10000000000 cells; miadmin reviews tables of at most 10000 cells") == true
        }
        var findings: [StoreFinding] = []
        try store.check { findings.append($0) }
        #expect(findings.map(\.message).contains { $0.hasPrefix("tableTooLarge: question 5") })
    }
}
