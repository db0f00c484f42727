import Foundation
import Testing
@testable import MIStore

@Suite("Moving forms")
struct MoveTests {
    /// A store holding incomplete forms `owner/name` for each entry, and one completed form.
    static func store(_ dir: TempDir, engine: TestEngine = .sqlite, _ forms: [String], clock: TestClock = TestClock()) throws -> FormStore {
        let store = try makeStore(dir, engine: engine, clock: clock)
        let tree = try TreeBuilder(dir.sub("seed"))
        for form in forms { try tree.form(form) }
        try tree.form("Completed MIs/jdoe/Done", answered: true)
        let report = try store.importTree(at: tree.root, actor: "seed")
        precondition(report.inserted.count == forms.count + 1 && report.errors.isEmpty)
        return store
    }

    @Test(arguments: TestEngine.allCases) func movesAndLeavesANotice(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, ["jdoe/Pump station 4"])
        let result = try store.move(ref("jdoe/Pump station 4"), to: "asmith", actor: "mkhan", note: "jdoe on leave")
        #expect(result.moved && !result.renamed)
        #expect(result.fromOwner == "jdoe" && result.toOwner == "asmith" && result.newName == "Pump station 4")
        #expect(result.version == 2)
        #expect(try store.names(of: "asmith") == ["Pump station 4"])
        #expect(try store.names(of: "jdoe") == ["Done"])
        #expect(try store.notices(for: "jdoe").map(\.text) == ["Form 'Pump station 4' was reassigned to asmith by foreman mkhan: jdoe on leave"])
        #expect(try store.notices(for: "jdoe").first?.id == result.noticeId)
        // The receiver is told too, with the same reason.
        #expect(try store.notices(for: "asmith").map(\.text) == ["Form 'Pump station 4' was given to you from jdoe by foreman mkhan: jdoe on leave"])
        #expect(try store.notices(for: "asmith").first?.id == result.receiverNoticeId)

        let audit = try #require(try store.auditEntries(AuditFilter(actor: "mkhan")).first)
        #expect(audit.command == "move" && audit.formId == result.formId && audit.note == "jdoe on leave")
        // Before and after carry the expiry: the move restarted the clock.
        var created: [Date] = []
        try store.forEachForm { if $0.id == result.formId { created.append($0.created.date) } }
        let expiresBefore = Expiry.expires(clockStart: try #require(created.first), policy: .defaults).iso8601
        #expect(audit.before == #"{"owner":"jdoe","name":"Pump station 4","state":"incomplete","version":1,"expires":"\#(expiresBefore)"}"#)
        #expect(audit.after == #"{"owner":"asmith","name":"Pump station 4","state":"incomplete","version":2,"expires":"\#(result.expires.iso8601)"}"#)
        // Media travel with the form.
        #expect(try store.form(.id(result.formId)).owner == "asmith")
    }

    @Test(arguments: TestEngine.allCases, [
        // (forms before, form moved, name expected at asmith)
        (["jdoe/Pump", "asmith/Pump"], "jdoe/Pump", "Pump (2)"),
        (["jdoe/Pump (2)", "asmith/Pump (2)"], "jdoe/Pump (2)", "Pump (3)"),
        (["jdoe/Pump", "asmith/Pump", "asmith/Pump (2)"], "jdoe/Pump", "Pump (3)"),
        (["jdoe/Pump", "asmith/Pump", "asmith/Pump (3)"], "jdoe/Pump", "Pump (2)"),
        (["jdoe/Pump (2)", "asmith/Pump", "asmith/Pump (2)", "asmith/Pump (3)"], "jdoe/Pump (2)", "Pump (4)"),
        (["jdoe/Pump (7)", "asmith/Pump"], "jdoe/Pump (7)", "Pump (7)"),
        (["jdoe/Pump", "asmith/Pump", "asmith/Pump (2) (2)", "asmith/Pump station"], "jdoe/Pump", "Pump (2)"),
        (["jdoe/Valve 3/4", "asmith/Valve 3/4"], "jdoe/Valve 3/4", "Valve 3/4 (2)"),
        (["jdoe/Prüfung (2)", "asmith/Prüfung (2)", "asmith/Prüfung"], "jdoe/Prüfung (2)", "Prüfung (3)"),
    ])
    func renamesOnACollision(engine: TestEngine, example: (forms: [String], moved: String, expected: String)) throws {
        let (forms, moved, expected) = example
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        // Names with '/' cannot be folders: make those forms by import, then rename in SQL.
        let tree = try TreeBuilder(dir.sub("seed"))
        for (index, form) in forms.enumerated() {
            try tree.form(form.replacingOccurrences(of: "3/4", with: "3∕4") + "", name: nil, created: "2026-11-1\(index)T07:00:00Z")
        }
        _ = try store.importTree(at: tree.root, actor: "seed")
        try store.write { try $0.execute(literal: "UPDATE forms SET name = replace(name, '3∕4', '3/4')") }

        let before = try store.names(of: "asmith")
        let result = try store.move(ref(moved), to: "asmith", actor: "mkhan")
        #expect(result.newName == expected)
        #expect(result.renamed == (expected != result.oldName))
        #expect(try store.names(of: "asmith").sorted() == (before + [expected]).sorted())
        // The notice names the form as its old owner knew it, and its new name.
        let renamed = expected == result.oldName ? "" : " as '\(expected)'"
        #expect(try store.notices(for: "jdoe").last?.text == "Form '\(result.oldName)' was reassigned to asmith\(renamed) by foreman mkhan.")
        let audit = try #require(try store.auditEntries().last)
        #expect(audit.after?.contains("\"name\":\(Samples.quoted(expected))") == true)
    }

    @Test(arguments: TestEngine.allCases) func completedFormsCannotMove(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [])
        #expect { try store.move(ref("jdoe/Done"), to: "asmith", actor: "mkhan") } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidState && error.message.contains("is completed")
        }
        _ = try store.submit(ref("jdoe/Done"), actor: "mkhan")
        #expect { try store.move(ref("jdoe/Done"), to: "asmith", actor: "mkhan") } throws: {
            ($0 as! StoreError).message.contains("is submitted")
        }
        #expect(try store.names(of: "jdoe") == ["Done"])
    }

    /// An undo gives the clock back as the undone move found it: a restart of an earlier move, or
    /// none (the clock counts from `created` again).
    @Test(arguments: TestEngine.allCases) func anUndoGivesTheClockBackAsTheMoveFoundIt(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock()
        let store = try Self.store(dir, engine: engine, ["jdoe/Pump"], clock: clock)
        func summary() throws -> FormSummary {
            var found: [FormSummary] = []
            try store.forEachForm { found.append($0) }
            return try #require(found.first { $0.name == "Pump" })
        }
        let fromCreated = try summary().expires(afterDays: ExpiryPolicy.defaults.expiryDays)
        let first = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        clock.advance(days: 2)
        let second = try store.move(ref("asmith/Pump"), to: "sobrien", actor: "mkhan")
        #expect(second.expires > first.expires)
        clock.advance(days: 1)
        let back = try store.move(ref("sobrien/Pump"), to: "asmith", actor: "mkhan", undoing: second)
        #expect(back.expires == first.expires, "the first move's restart, not the second's, not now")
        let home = try store.move(ref("asmith/Pump"), to: "jdoe", actor: "mkhan", undoing: first)
        #expect(home.expires == fromCreated, "no restart before the first move: from created again")
        #expect(try summary().expiryResetAt == nil)
    }

    @Test(arguments: TestEngine.allCases) func movingToTheOwnerIsANoOp(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, ["jdoe/Pump"])
        let auditCount = try store.auditEntries().count
        let result = try store.move(ref("jdoe/Pump"), to: "jdoe", actor: "mkhan")
        #expect(!result.moved && result.newName == "Pump" && result.version == 1 && result.noticeId == nil)
        #expect(try store.auditEntries().count == auditCount)
        #expect(try store.notices(for: "jdoe") == [])
    }

    @Test(arguments: TestEngine.allCases) func staleVersionIsAConflict(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, ["jdoe/Pump"])
        let seen = try store.form(ref("jdoe/Pump"))
        // Another console moves it first.
        _ = try store.move(.id(seen.id), to: "asmith", actor: "other", expectedVersion: seen.version)
        #expect { try store.move(.id(seen.id), to: "bwong", actor: "mkhan", expectedVersion: seen.version) } throws: { error in
            let error = error as! StoreError
            return error.kind == .conflict && error.message.contains("of asmith") && error.message.contains("version 2")
        }
        #expect(try store.form(.id(seen.id)).owner == "asmith")
        #expect(try store.names(of: "bwong") == [])
    }

    @Test(arguments: TestEngine.allCases) func unknownFormsAndBadInput(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, ["jdoe/Pump"])
        #expect { try store.move(ref("jdoe/Nope"), to: "asmith", actor: "mkhan") } throws: {
            ($0 as! StoreError) == StoreError(.notFound, "jdoe has no form named 'Nope'.")
        }
        #expect { try store.move(.id(999), to: "asmith", actor: "mkhan") } throws: { ($0 as! StoreError).kind == .notFound }
        for badUid in ["", "a/b", "two\nlines", "Completed MIs"] {
            #expect { try store.move(ref("jdoe/Pump"), to: badUid, actor: "mkhan") } throws: {
                ($0 as! StoreError).kind == .invalidInput
            }
        }
        #expect { try store.move(ref("jdoe/Pump"), to: "asmith", actor: " ") } throws: { ($0 as! StoreError).kind == .invalidInput }
    }

    /// Many threads move forms named alike onto one user at once: every move lands, no name twice.
    @Test(arguments: TestEngine.allCases) func concurrentMovesFromThreads(engine: TestEngine) throws {
        let dir = try TempDir()
        let sources = (0..<8).map { "tech\($0)/Pump" }
        let store = try Self.store(dir, engine: engine, sources + ["target/Pump"])
        DispatchQueue.concurrentPerform(iterations: sources.count) { index in
            _ = try! store.move(FormReference(parsing: sources[index]), to: "target", actor: "foreman\(index)")
        }
        let names = try store.names(of: "target")
        #expect(names.count == 9 && Set(names).count == 9)
        #expect(Set(names) == Set(["Pump"] + (2...9).map { "Pump (\($0))" }))
        #expect(try store.auditEntries().filter { $0.command == "move" }.count == 8)
    }

    /// Four consoles (four stores: four SQLite connections, or four PostgreSQL sessions) move
    /// forms named alike onto one technician at once. They race for the same free name; every
    /// move lands, under a name nobody else got (on PostgreSQL the loser's transaction runs again).
    @Test(arguments: TestEngine.allCases) func fourConsolesMoveAlikeNamedFormsOntoOneTechnician(engine: TestEngine) throws {
        let dir = try TempDir()
        let sources = (0..<24).map { "tech\($0)/Pump" }
        let seed = try Self.store(dir, engine: engine, sources + ["target/Pump"])
        let consoles = try [seed] + (1..<4).map { _ in try makeStore(dir, engine: engine) }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: consoles.count) { console in
            for index in stride(from: console, to: sources.count, by: consoles.count) {
                do {
                    _ = try consoles[console].move(FormReference(parsing: sources[index]), to: "target", actor: "foreman\(console)")
                    outcomes.add("moved")
                } catch {
                    outcomes.add("\(error)")
                }
            }
        }
        #expect(outcomes.counts == ["moved": 24])
        let names = try seed.names(of: "target")
        #expect(Set(names) == Set(["Pump"] + (2...25).map { "Pump (\($0))" }))
        #expect(try seed.auditEntries().filter { $0.command == "move" }.count == 24)
        #expect(try seed.notices(for: "target").count == 24)
    }

    /// Two FormStore instances (as two processes) on one file race to move the same forms.
    @Test(arguments: TestEngine.allCases) func concurrentMovesFromTwoStores(engine: TestEngine) throws {
        let dir = try TempDir()
        let forms = (0..<10).map { "tech\($0)/Pump" }
        let first = try Self.store(dir, engine: engine, forms)
        let second = try makeStore(dir, engine: engine)
        let ids = try first.summaries(FormFilter(state: .incomplete)).map(\.id)
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 2 * ids.count) { index in
            let store = index % 2 == 0 ? first : second
            let target = index % 2 == 0 ? "alice" : "bob"
            do {
                _ = try store.move(.id(ids[index / 2]), to: target, actor: "foreman", expectedVersion: 1)
                outcomes.add("moved")
            } catch let error as StoreError {
                outcomes.add(error.kind.rawValue)
            } catch {
                outcomes.add("other")
            }
        }
        // Each form moved exactly once; the loser of each race got a conflict.
        #expect(outcomes.counts == ["moved": 10, "conflict": 10])
        let alice = try first.names(of: "alice"), bob = try second.names(of: "bob")
        #expect(alice.count + bob.count == 10)
        #expect(Set(alice).count == alice.count && Set(bob).count == bob.count)
        #expect(try first.auditEntries().filter { $0.command == "move" }.count == 10)
        #expect(try first.notices(for: "tech0").count == 1)
    }
}

final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]
    func add(_ key: String) { lock.withLock { values[key, default: 0] += 1 } }
    var counts: [String: Int] { lock.withLock { values } }
}
