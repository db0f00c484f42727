import Foundation
import Testing
@testable import MIStore

/// Where a form is now (`find`): live, in the trash, purged; by id, by an owner/name it had,
/// by a name alone; on both engines.
@Suite("Form whereabouts")
struct WhereaboutsTests {
    @Test(arguments: TestEngine.allCases) func aMovedTrashedAndPurgedFormIsFound(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "asmith/Pump", "asmith/Valve"], clock: clock)
        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        #expect(moved.newName == "Pump (2)")

        let byOldName = try store.whereabouts(.reference(ref("jdoe/Pump")))
        #expect(byOldName.map(\.formId) == [moved.formId])
        #expect(byOldName.first?.place == .live && byOldName.first?.owner == "asmith" && byOldName.first?.name == "Pump (2)")
        #expect(try store.whereabouts(FindTarget("\(moved.formId)")).first?.name == "Pump (2)")

        // Everything incomplete expires into the trash; then the trash is purged but for nothing.
        clock.advance(days: 30)
        _ = try store.expire(try store.expiryCutoff(days: 7), actor: "mkhan")
        let trashed = try #require(try store.whereabouts(.reference(ref("asmith/Valve"))).first)
        #expect(trashed.place == .trash && trashed.trashedAt == clock.now())
        clock.advance(days: 100)
        _ = try store.purge(try store.purgeCutoff(days: 30), actor: "mkhan")
        let purged = try #require(try store.whereabouts(.reference(ref("asmith/Valve"))).first)
        #expect(purged.place == .purged && purged.owner == "asmith" && purged.name == "Valve" && purged.state == nil)

        // A name alone: every form that has or had it.
        #expect(Set(try store.whereabouts(.name("Pump")).map(\.formId)).count == 2)
        #expect(try store.whereabouts(.name("Nothing")).isEmpty)
        #expect(try store.whereabouts(.reference(ref("nobody/Nothing"))).isEmpty)
    }

    /// A name is a glob with ASCII letters in either case, as `forms --name` takes it; owner/name
    /// looks for the exact name first, then as a glob among what that owner has or had.
    @Test(arguments: TestEngine.allCases) func aNameIsAGlobInEitherCase(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump station 4", "asmith/Pump", "asmith/Valve"], clock: TestClock())
        let moved = try store.move(ref("jdoe/Pump station 4"), to: "asmith", actor: "mkhan")
        #expect(Set(try store.whereabouts(.name("pump*")).map(\.formId)).count == 2)
        #expect(try store.whereabouts(.name("PUMP STATION ?")).map(\.formId) == [moved.formId])
        #expect(try store.whereabouts(.reference(ref("jdoe/pump*"))).map(\.formId) == [moved.formId], "by the name jdoe's form had")
        #expect(try store.whereabouts(.reference(ref("asmith/v*"))).map(\.name) == ["Valve"])
        #expect(try store.whereabouts(.name("Pump\\*")).isEmpty, "an escaped star is a star")
    }

    /// Outside the reach nothing is found, by id, by a name it has or had, or once purged; and a
    /// live form moved out of the reach is not taken for a purged one by the name it had there.
    @Test(arguments: TestEngine.allCases) func formsOutsideTheReachAreNotFound(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "jdoe/Valve", "asmith/Pump"], clock: clock)
        _ = try store.move(ref("jdoe/Valve"), to: "asmith", actor: "mkhan")
        let asmiths = try store.form(ref("asmith/Pump"))
        store.reach = Reach(scope: OwnerScope(owners: ["jdoe"], crews: ["Kolonne Nord"]))

        #expect(try store.whereabouts(FindTarget("\(asmiths.id)")).isEmpty)
        #expect(try store.whereabouts(.name("Pump")).map(\.owner) == ["jdoe"])
        #expect(try store.whereabouts(.name("Valve")).isEmpty)
        #expect(try store.whereabouts(.reference(ref("jdoe/Valve"))).isEmpty)
        #expect(throws: StoreError.self) { try store.whereabouts(.reference(ref("asmith/Pump"))) }
    }
}
