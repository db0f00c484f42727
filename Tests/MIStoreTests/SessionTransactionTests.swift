import Foundation
import Testing
@testable import MIStore

/// `--atomic` and `--dry-run` run a whole script in one session transaction. It holds the write
/// lock from its first change only: a session that only reads (a technician's `whoami`, a
/// listing) never keeps another console from writing.
@Suite("Session transactions")
struct SessionTransactionTests {
    @Test(arguments: TestEngine.allCases) func aSessionThatOnlyReadsBlocksNoOtherConsole(engine: TestEngine) throws {
        let dir = try TempDir()
        let session = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "jdoe/Valve"])
        let other = try makeStore(dir, engine: engine, busyTimeout: 0.2)
        try session.withSessionTransaction(end: .commit) {
            #expect(try session.countForms() == 3)
            // Another console's change goes through at once, not after the session ends.
            let moved = try other.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
            #expect(moved.moved)
            #expect(try session.countForms() == 3)
        }
        #expect(try other.names(of: "asmith") == ["Pump"])
    }

    /// The first change takes the write lock and keeps it to the end, so the session is still
    /// all or nothing; the reads after it see its own changes.
    @Test(arguments: TestEngine.allCases) func theFirstChangeTakesTheWriteLockUntilTheEnd(engine: TestEngine) throws {
        let dir = try TempDir()
        let session = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "jdoe/Valve"])
        let other = try makeStore(dir, engine: engine, busyTimeout: 0.2)
        let error = #expect(throws: StoreError.self) {
            try session.withSessionTransaction(end: .commit) {
                _ = try session.countForms()
                try session.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
                #expect(try session.names(of: "asmith") == ["Pump"])
                if engine == .sqlite {
                    // SQLite's one writer: the other console waits, then is told the store is busy.
                    #expect { try other.move(ref("jdoe/Valve"), to: "asmith", actor: "tpatel") } throws: { error in
                        (error as? StoreError)?.kind == .busy
                    }
                }
                throw StoreError(.invalidState, "a later command failed")
            }
        }
        #expect(error?.message == "a later command failed")
        // All or nothing: the move made before the failure is gone.
        #expect(try other.names(of: "asmith").isEmpty)
        #expect(try other.names(of: "jdoe") == ["Done", "Pump", "Valve"])
    }

    /// A dry run's preview inside the session (a nested session transaction) writes too.
    @Test(arguments: TestEngine.allCases) func aNestedPreviewInsideAReadingSessionRollsBackItsChanges(engine: TestEngine) throws {
        let dir = try TempDir()
        let session = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        try session.withSessionTransaction(end: .commit) {
            _ = try session.countForms()
            try session.withSessionTransaction(end: .rollback) {
                try session.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
                #expect(try session.names(of: "asmith") == ["Pump"])
            }
            #expect(try session.names(of: "asmith").isEmpty)
            try session.move(ref("jdoe/Pump"), to: "sobrien", actor: "mkhan")
        }
        #expect(try session.names(of: "sobrien") == ["Pump"])
    }

    /// A change the store refuses inside the transaction undoes only itself and the next one goes
    /// on: a bulk change's preview names every form it cannot change, on PostgreSQL too, where a
    /// failed statement would otherwise abort the whole transaction.
    @Test(arguments: TestEngine.allCases) func aRefusedChangeUndoesOnlyItselfAndTheNextGoesOn(engine: TestEngine) throws {
        let dir = try TempDir()
        let session = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        let submitted = try session.withSessionTransaction(end: .rollback) { () throws -> Bool in
            _ = try session.countForms()
            #expect { try session.submit(ref("jdoe/Pump"), actor: "mkhan") } throws: { error in
                (error as? StoreError)?.kind == .invalidState
            }
            // A statement that fails in the server: the name is taken by the form beside it.
            #expect { try session.write { try $0.execute(literal: "UPDATE forms SET name = 'Done' WHERE name = 'Pump'") } }
                throws: { error in (error as? StoreError)?.kind == .conflict }
            let result = try session.submit(ref("jdoe/Done"), actor: "mkhan")
            #expect(try session.form(ref("jdoe/Done")).state == .submitted)
            return !result.alreadySubmitted
        }
        #expect(submitted)
        #expect(try session.form(ref("jdoe/Done")).state == .completed)
    }
}
