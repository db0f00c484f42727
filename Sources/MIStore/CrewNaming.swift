import Foundation

/// What the store asks about crews: the crews an owner works in, for audit rows; which foremen
/// hear of a form moved out of or into their crew; the members of a crew with a policy of its own (for
/// ``OwnerPolicies``). The console's session answers from the directory (read once per owner
/// and crew until the session reads its crews again); without crews the store asks nothing. A
/// directory that cannot answer fails the change (rolled back), so no crew's notice is lost.
public protocol CrewNaming: AnyObject, Sendable {
    /// The names of the crews `owner` works in (empty: none).
    func crews(of owner: String) throws -> [String]
    /// The foremen to tell that a form moved from `previous` to `owner` by `actor`, each once
    /// (the actor excluded): those of every crew `previous` works in, and those of `owner`'s
    /// crews that `previous` was not in.
    func foremenToTell(movedFrom previous: String, to owner: String, actor: String) throws -> [CrewForemanToTell]
    /// The foremen of `owner`'s crews, told when a form of `owner` is completed.
    func foremen(supervising owner: String) throws -> [String]
    /// The user ids of the crew called `crew` (foremen included); nil when the directory has no
    /// such crew.
    func members(ofCrew crew: String) throws -> [String]?
}

/// A foreman told of a form that moved: the crews he leads that the form came into, and those
/// of the previous owner he leads (the form left them, or stayed with its new owner).
public struct CrewForemanToTell: Sendable, Equatable {
    public let foreman: String
    public var into: [String]
    public var from: [String]

    public init(foreman: String, into: [String] = [], from: [String] = []) {
        self.foreman = foreman
        self.into = into
        self.from = from
    }
}

extension FormStore {
    /// Writes one audit row (``Audit/record``); with crews, `before` and `after` name the crews
    /// of their owner (`"crews": ["Kolonne Nord"]`), so the trail says whose crew a change was in.
    func audit(_ db: any StoreDatabase, at: Double, actor: String, command: String, formId: Int64?, object: String,
               before: JSONValue?, after: JSONValue?, note: String?) throws {
        try db.execute(try auditing(at: at, actor: actor, command: command, formId: formId, object: object,
                                    before: before, after: after, note: note))
    }

    /// ``audit(_:at:actor:command:formId:object:before:after:note:)`` as a statement for a batch.
    func auditing(at: Double, actor: String, command: String, formId: Int64?, object: String,
                  before: JSONValue?, after: JSONValue?, note: String?) throws -> StoreStatement {
        Audit.recording(at: at, actor: actor, command: command, formId: formId, object: object,
                        before: try before.map(namingCrews), after: try after.map(namingCrews), note: note)
    }

    private func namingCrews(_ value: JSONValue) throws -> JSONValue {
        guard let naming = crewNaming, case .object(var object) = value, case .string(let owner)? = object["owner"] else {
            return value
        }
        object["crews"] = .array(try naming.crews(of: owner).map(JSONValue.string))
        return .object(object)
    }
}
