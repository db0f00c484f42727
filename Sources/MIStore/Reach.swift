import Foundation

/// Who a console's session acts for, set on the store once per session and again whenever the
/// session reads its crews again (`teams.refreshSeconds`, `refresh`): whose forms it may see and
/// change (``OwnerScope``), and whom the store asks about crews (``CrewNaming``: the crews named
/// in audit rows, the foremen told of a move or a completion, the members of the crews with a
/// policy of their own, from which the store decides each owner's policy,
/// ``FormStore/ownerPolicies(defaults:)``). Both change together.
public struct Reach: Sendable {
    public let scope: OwnerScope
    /// nil where the site keeps no crews: audit rows name none, no foreman is told, every owner
    /// has the site's policy.
    public let naming: (any CrewNaming)?

    /// Every owner, no crews: support tools, tests, a site without crews.
    public static let everyone = Reach(scope: .everyone)

    public init(scope: OwnerScope, naming: (any CrewNaming)? = nil) {
        self.scope = scope
        self.naming = naming
    }
}

extension FormStore {
    /// The session's reach (``Reach``); everyone, without crews, until set.
    public internal(set) var reach: Reach {
        get { reachState.withLock { $0 } }
        set { reachState.withLock { $0 = newValue } }
    }

    /// Sets ``reach``: the console's session does, when it opens the store and whenever it
    /// reads its crews again (nothing else sets it).
    public func setReach(_ reach: Reach) { self.reach = reach }

    /// Whose forms this process may see and change: every form query's condition (``FormQuery``), every change's check.
    public var ownerScope: OwnerScope { reach.scope }

    /// Where audit rows, notices and crew policies learn crews from.
    public var crewNaming: (any CrewNaming)? { reach.naming }
}
