import Foundation
import MICommands
@testable import MIStore

/// A store that holds a few forms in memory, answered by one small fake per area
/// (``FakeListing``, ``FakeChanges``, ``FakePolicy``, ``FakeOutbox``, ``FakeAdministration``),
/// each implementing only its own protocol. What they share lives here: the forms and the calls
/// asked. A call a fake does not answer is recorded and ends the command with ``Reached``, which
/// tells a permission test that the command got past every permission check and went on to the
/// store.
final class FakeStore: StoreReachSetting {
    /// The call a command made that the fakes do not answer.
    struct Reached: Error, Equatable { let call: String }

    let path = "/fake/store.sqlite"
    let engineName = "sqlite"
    var calls: [String] = []
    /// Set by the session before any command reaches the store; the fake records it, the real
    /// store enforces it (CrewRuleTests run on a real SQLite store).
    private(set) var reach = Reach.everyone
    func setReach(_ reach: Reach) { self.reach = reach }
    var ownerScope: OwnerScope { reach.scope }
    /// The arguments of the last `forEachForm` call.
    var lastFilter: FormFilter?
    var forms: [FormSummary] = [
        FakeStore.summary(1, "jdoe", "Pump station 4", .incomplete),
        FakeStore.summary(2, "jdoe", "Valve check", .completed),
        FakeStore.summary(3, "asmith", "Generator monthly", .submitted),
    ]
    var storedNotices: [Notice] = []
    /// What `move` answers for the moved form's new expiry.
    var movedFormExpires = Date(timeIntervalSince1970: 1_796_000_000)
    /// What `expire` takes, how many it takes per batch, and how many it took.
    var expirable: [FormSummary] = []
    var expiryBatchSize = 2
    var expired = 0
    /// The policy defaults the last `move` passed (the config's).
    var lastMovePolicy: ExpiryPolicy?
    /// What `move` throws for these form ids (a busy store part-way through a bulk move).
    var failingMoves: [Int64: StoreError] = [:]
    /// Who runs what (the console's label for another console's busy error).
    var activity: String?

    static func summary(_ id: Int64, _ owner: String, _ name: String, _ state: FormState) -> FormSummary {
        let created = Timestamp(storedText: "2026-11-20 08:00:00", date: Date(timeIntervalSince1970: 1_795_600_000))
        return FormSummary(id: id, owner: owner, name: name, state: state, template: "Pump", created: created,
                           modified: created, mediaCount: 0, version: 1)
    }

    func reached(_ call: String) -> Reached {
        calls.append(call)
        return Reached(call: call)
    }

    /// The areas as the session hands them to commands, each answered by its own fake.
    var areas: StoreAreas {
        StoreAreas(administration: FakeAdministration(self), listing: FakeListing(self), changes: FakeChanges(self),
                   policy: FakePolicy(self), outbox: FakeOutbox(self), reachSetting: self)
    }
}
