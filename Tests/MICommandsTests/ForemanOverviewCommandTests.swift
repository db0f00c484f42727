import Foundation
import MICommands
import MIDirectory
@testable import MIStore
import Testing

/// A foreman's overview, against the fake services: what `forms` asks the store
/// for, the rows it adds itself (expiry, technicians with none), and `workload`.
@Suite("Foreman's overview")
struct ForemanOverviewCommandTests {
    /// The fake store's forms were created at this instant; the policy is the default (7 days).
    static let created = Date(timeIntervalSince1970: 1_795_600_000)

    @Test func formsHandsItsNewFiltersToTheStore() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["forms", "--since", "2026-11-20T00:00:00Z", "--name", "Pump*", "--search", "leak"])
        let filter = try #require(harness.store.lastFilter)
        #expect(filter.modifiedSince == ISO8601DateFormatter().date(from: "2026-11-20T00:00:00Z"))
        #expect(filter.namePattern == "Pump*" && filter.answerText == "leak")
        // --since 1h is an hour before the session's clock.
        try harness.run(["forms", "--since", "1h"])
        #expect(harness.store.lastFilter?.modifiedSince == Date(timeIntervalSince1970: 1_796_000_000 - 3_600))
    }

    @Test func formsShowWhenIncompleteFormsExpire() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["forms"])
        #expect(harness.output.columns.last == "expires")
        let expires = harness.output.rows.map { $0.last }
        #expect(expires == [.time(Self.created.addingTimeInterval(7 * 86_400)), .null, .null],
                "only the incomplete form expires: \(harness.output.rows)")
    }

    @Test func aRestartedClockCountsFromTheRestart() {
        var form = FakeStore.summary(9, "jdoe", "Moved", .incomplete)
        #expect(form.expires(afterDays: 2) == Self.created.addingTimeInterval(2 * 86_400))
        form.expiryResetAt = Self.created.addingTimeInterval(3_600)
        #expect(form.expires(afterDays: 2) == Self.created.addingTimeInterval(2 * 86_400 + 3_600))
        form.expiryResetAt = Self.created.addingTimeInterval(-3_600)
        #expect(form.expires(afterDays: 2) == Self.created.addingTimeInterval(2 * 86_400), "a reset before created is ignored")
    }

    @Test func countByTwoFieldsListsTechniciansWithNoneAsZero() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["forms", "--count-by", "owner,state"])
        #expect(harness.output.columns == ["owner", "state", "count"])
        #expect(harness.output.rows == [
            [.string("asmith"), .string("submitted"), .int(1)],
            [.string("jdoe"), .string("completed"), .int(1)],
            [.string("jdoe"), .string("incomplete"), .int(1)],
            // The directory's technicians with no form, by uid; foremen, support and nbody are none.
            [.string("tpatel"), .null, .int(0)],
        ])
        let filtered = try CommandHarness(user: "mkhan")
        try filtered.run(["forms", "--count-by", "state,owner", "--state", "completed", "--owner", "*"])
        #expect(filtered.output.rows == [
            [.string("completed"), .string("jdoe"), .int(1)],
            [.string("completed"), .string("asmith"), .int(0)],
            [.string("completed"), .string("tpatel"), .int(0)],
        ])
    }

    @Test func countByOneOwnerAsksTheDirectoryForThatOneOnly() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["forms", "--count-by", "owner", "--owner", "tpatel"])
        #expect(harness.output.rows == [[.string("tpatel"), .int(0)]])
        #expect(harness.directory.questions == ["user tpatel"])
        // A technician counts only their own, and has no zero rows of others.
        let technician = try CommandHarness(user: "asmith")
        try technician.run(["forms", "--count-by", "owner"])
        #expect(technician.output.rows == [[.string("asmith"), .int(1)]])
    }

    @Test(arguments: ["owner,owner", "owner,state,template", "team,owner", "team,team", "owner,", ""])
    func countByRefusesWhatItCannotCount(_ value: String) {
        #expect(throws: (any Error).self) { try CommandHarness.parse(["forms", "--count-by", value]) }
    }

    @Test func workloadHasARowPerTechnicianWithNoneIncluded() throws {
        let harness = try CommandHarness(user: "lchen")
        try harness.run(["workload"])
        // crew: null where the site keeps no crews.
        #expect(harness.output.columns == ["uid", "name", "incomplete", "completed", "oldest", "nextExpiry", "crew"])
        #expect(harness.output.rows == [
            [.string("asmith"), .string("Anna Smith"), .int(0), .int(0), .null, .null, .null],
            [.string("jdoe"), .string("John Doe"), .int(1), .int(1), .time(Self.created),
             .time(Self.created.addingTimeInterval(7 * 86_400)), .null],
            [.string("tpatel"), .string("Tara Patel"), .int(0), .int(0), .null, .null, .null],
        ])
        let busy = try CommandHarness(user: "lchen")
        try busy.run(["workload", "--nonzero"])
        #expect(busy.output.rows.map { $0.first } == [.string("jdoe")])
    }

    @Test func workloadKeepsOwnersTheDirectoryDoesNotList() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.store.forms.append(FakeStore.summary(7, "gone", "Left behind", .incomplete))
        try harness.run(["workload", "--owner", "g*"])
        #expect(harness.output.rows.map { Array($0.prefix(3)) } == [[.string("gone"), .null, .int(1)]])
    }

    @Test func aTechnicianSeesTheirOwnWorkloadOnly() throws {
        let harness = try CommandHarness(user: "jdoe")
        try harness.run(["workload"])
        #expect(harness.output.rows.map { $0.first } == [.string("jdoe")])
        #expect(harness.store.lastFilter?.owner == "jdoe")
        let other = try CommandHarness(user: "jdoe")
        #expect(other.outcome(["workload", "--owner", "asmith"])?.isPermissionDenied == true)
        #expect(other.store.calls.isEmpty)
    }

    @Test func globsBecomeLikePatternsThatMatchLiterally() {
        #expect(LikePattern.glob("Pump*") == "pump%")
        #expect(LikePattern.glob("a?b") == "a_b")
        #expect(LikePattern.glob("100%_done") == "100\\%\\_done")
        #expect(LikePattern.glob("star\\*") == "star*")
        #expect(LikePattern.glob("Ångström*") == "Ångström%", "only ASCII letters are lowered: the engines lower no others")
        #expect(LikePattern.glob("trailing\\") == "trailing\\\\")
    }

    @Test func searchLooksInAnswersNotInQuestions() throws {
        let questions = """
            [{"type": "multipleChoice", "text": "Hazards", "options": ["Noise", "Confined space"], "Max-answers": 0,
              "answer": [0]},
             {"type": "shortAnswer", "text": "Serial number", "answer": "PX-2231-B"},
             {"type": "table", "text": "Temps", "rows": ["a"], "columns": ["b"], "noCells": [], "answer": [["41 °C"]]},
             {"type": "numeric", "text": "Pressure", "answer": 4.5, "comment": "Gauge recalibrated"}]
            """
        for found in ["noise", "px-2231", "41 °c", "4.5", "GAUGE"] {
            #expect(AnswerSearch.matches(found, questionsJSON: questions), "\(found)")
        }
        for missing in ["confined", "serial", "hazards", "pressure"] {
            #expect(!AnswerSearch.matches(missing, questionsJSON: questions), "\(missing)")
        }
        #expect(AnswerSearch.likePrefilter("PX-2231") == "%px-2231%")
        #expect(AnswerSearch.likePrefilter("50%") == "%50\\%%")
        #expect(AnswerSearch.likePrefilter("Ångström") == nil, "JSON may escape it: no cut by text")
        #expect(AnswerSearch.likePrefilter("a/b") == nil)
    }
}
