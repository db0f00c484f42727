import Foundation
import Testing
@testable import MIStore

@Suite("Foreman comments and submission")
struct CommentSubmitTests {
    @Test(arguments: TestEngine.allCases) func commentsOnCompletedForms(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"], clock: clock)
        let first = try store.comment(ref("jdoe/Done"), text: "Bearing 2 runs hot.", author: "mkhan")
        clock.advance(days: 1)
        let second = try store.comment(ref("jdoe/Done"), text: "Replace seal next visit.", author: "bwong", note: "follow-up")
        let form = try store.form(ref("jdoe/Done"))
        #expect(form.foremanComments.map(\.text) == ["Bearing 2 runs hot.", "Replace seal next visit."])
        #expect(form.foremanComments.map(\.author) == ["mkhan", "bwong"])
        #expect(form.foremanComments == [first, second])
        #expect(second.at.timeIntervalSince(first.at) == 86_400)
        #expect(form.document.foremanComments == "Bearing 2 runs hot.\nReplace seal next visit.")
        #expect(form.version == 3)
        let audit = try store.auditEntries(AuditFilter(form: ref("jdoe/Done"))).filter { $0.command == "comment" }
        #expect(audit.map(\.actor) == ["mkhan", "bwong"])
        #expect(audit.last?.note == "follow-up")
        #expect(try store.review(ref("jdoe/Done")).foremanComments.count == 2)
    }

    @Test(arguments: TestEngine.allCases) func commentsAreRefusedOnOtherStates(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        #expect { try store.comment(ref("jdoe/Pump"), text: "Hi", author: "mkhan") } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidState && error.message.contains("has not completed it yet")
        }
        _ = try store.submit(ref("jdoe/Done"), actor: "mkhan")
        #expect { try store.comment(ref("jdoe/Done"), text: "Late", author: "mkhan") } throws: {
            ($0 as! StoreError).message.contains("submitted already")
        }
        #expect { try store.comment(ref("jdoe/Pump"), text: "  ", author: "mkhan") } throws: {
            ($0 as! StoreError).kind == .invalidInput
        }
        #expect(try store.auditEntries().filter { $0.command == "comment" } == [])
    }

    @Test(arguments: TestEngine.allCases) func submitIsIdempotent(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        let first = try store.submit(ref("jdoe/Done"), actor: "mkhan", note: "reviewed")
        #expect(!first.alreadySubmitted && first.version == 2)
        let again = try store.submit(ref("jdoe/Done"), actor: "bwong")
        #expect(again.alreadySubmitted && again.version == 2)
        #expect(try store.form(ref("jdoe/Done")).state == .submitted)
        let audit = try store.auditEntries().filter { $0.command == "submit" }
        #expect(audit.count == 1 && audit[0].actor == "mkhan" && audit[0].note == "reviewed")
        #expect(audit[0].after == #"{"owner":"jdoe","name":"Done","state":"submitted","version":2}"#)

        #expect { try store.submit(ref("jdoe/Pump"), actor: "mkhan") } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidState && error.message.contains("is incomplete")
        }
    }

    @Test(arguments: TestEngine.allCases) func submitWithStaleVersion(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, [])
        let seen = try store.form(ref("jdoe/Done"))
        _ = try store.comment(.id(seen.id), text: "Note", author: "bwong")
        #expect { try store.submit(.id(seen.id), actor: "mkhan", expectedVersion: seen.version) } throws: {
            ($0 as! StoreError).kind == .conflict
        }
    }
}
