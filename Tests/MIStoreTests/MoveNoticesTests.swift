import Foundation
import Testing
@testable import MIStore

/// The notices of a bulk move: each move leaves its own with it, so a run that stops or dies
/// part-way has told everyone of what it did; `tellOfMoves` then replaces the unread ones of
/// whoever has several by one naming them all.
@Suite("Notices of a bulk move")
struct MoveNoticesTests {
    @Test(arguments: TestEngine.allCases) func eachMoveIsToldUntilOneNoticeReplacesTheUnreadOnes(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump 1", "jdoe/Pump 2", "jdoe/Pump 3"])
        var moves: [MoveResult] = []
        for name in ["Pump 1", "Pump 2", "Pump 3"] {
            moves.append(try store.move(ref("jdoe/\(name)"), to: "asmith", actor: "mkhan", note: "handover"))
        }
        // What a run killed here leaves: every move told, on its own.
        #expect(try store.notices(for: "jdoe").count == 3)
        #expect(try store.notices(for: "asmith").count == 3)
        // jdoe read the first one meanwhile: it stays, and its form is not told again.
        _ = try store.markRead(ids: [try #require(moves[0].noticeId)], actor: "jdoe")

        try store.tellOfMoves(moves, actor: "mkhan", actorRole: "foreman", note: "handover", undone: false)

        let jdoe = try store.notices(for: "jdoe", unreadOnly: false)
        #expect(jdoe.count == 2)
        #expect(jdoe.contains { $0.id == moves[0].noticeId && $0.readAt != nil })
        #expect(jdoe.contains { $0.readAt == nil && $0.text.hasPrefix("2 forms were reassigned by foreman mkhan")
            && $0.text.contains("'Pump 2' to asmith") && $0.text.contains("'Pump 3' to asmith") && !$0.text.contains("Pump 1") })
        let asmith = try store.notices(for: "asmith", unreadOnly: false)
        #expect(asmith.count == 1)
        #expect(asmith.first?.text.hasPrefix("3 forms were given to you by foreman mkhan") == true)
    }

    @Test func oneFormPerTechnicianKeepsItsOwnNotice() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, ["jdoe/Pump 1", "lchen/Pump 2"])
        let moves = [try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan"),
                     try store.move(ref("lchen/Pump 2"), to: "bnguyen", actor: "mkhan")]
        try store.tellOfMoves(moves, actor: "mkhan", actorRole: "foreman", note: nil, undone: false)
        #expect(try store.notices(for: "jdoe").map(\.id) == [moves[0].noticeId])
        #expect(try store.notices(for: "bnguyen").map(\.id) == [moves[1].receiverNoticeId])
    }
}
