import Foundation
import MICommands
@testable import MIStore

/// The store as a whole: where it is, the reach the session set, transactions; support tools and copies end the command with ``FakeStore/Reached``.
final class FakeAdministration: StoreAdministration {
    let store: FakeStore
    init(_ store: FakeStore) { self.store = store }

    var path: String { store.path }
    var engineName: String { store.engineName }
    var reach: Reach { store.reach }
    var ownerScope: OwnerScope { store.reach.scope }
    func setActivity(_ text: String?) { store.activity = text }

    func check(_ body: (StoreFinding) throws -> Void) throws {
        throw store.reached("check")
    }

    func forEachOwner(_ body: (_ uid: String, _ forms: Int) throws -> Void) throws {
        throw store.reached("forEachOwner")
    }

    func info() throws -> StoreInfo {
        throw store.reached("info")
    }

    func copy(to destination: CopyDestination, append: Bool, actor: String, progress: (String, Int) -> Void) throws -> StoreCopyReport {
        throw store.reached("copy")
    }

    func backup(to path: String) throws -> Int64 {
        throw store.reached("backup")
    }

    var isInSessionTransaction: Bool { false }

    func endSessionReadSnapshot() throws {}

    func withSessionTransaction<T>(end: FormStore.SessionEnd, _ body: () throws -> T) throws -> T {
        throw store.reached("withSessionTransaction")
    }

    func withRetriedTransaction<T>(_ body: () throws -> T) throws -> T {
        throw store.reached("withRetriedTransaction")
    }
}
