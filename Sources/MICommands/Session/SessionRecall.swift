import MIStore

/// What this session showed and did that a later command looks back on: the owner and version
/// it last showed for a form (`forms`, `show`, a move's own output), so a move can say that
/// somebody moved the form in between; and the last move or bulk move, for `undo`.
public struct SessionRecall {
    /// A form as the session last showed it.
    public struct Shown: Equatable, Sendable {
        public let owner: String
        public let version: Int
    }

    /// At most this many forms are remembered: a listing of a million forms would otherwise keep
    /// a million entries. Past it the session starts again with the forms shown from then on.
    static let limit = 10_000

    public private(set) var shown: [Int64: Shown] = [:]
    /// The forms the last move or bulk move moved (those it changed), for `undo`; nil once undone.
    public var lastMoves: [MoveResult]?

    public init() {}

    /// The session showed `id` owned by `owner` at `version`.
    public mutating func saw(_ id: Int64, owner: String, version: Int) {
        if shown.count >= Self.limit && shown[id] == nil { shown.removeAll(keepingCapacity: true) }
        shown[id] = Shown(owner: owner, version: version)
    }

    public mutating func saw(_ form: FormSummary) { saw(form.id, owner: form.owner, version: form.version) }

    /// After a move: the warning when the form was not where this session last showed it (somebody
    /// moved it in between, and this move took it from them), or nil. Remembers the form's new owner.
    public mutating func moved(_ result: MoveResult) -> String? {
        defer { saw(result.formId, owner: result.toOwner, version: result.version) }
        guard let seen = shown[result.formId], seen.owner != result.fromOwner else { return nil }
        let what = result.moved ? "this move took it from \(result.fromOwner)"
                                : "it already belonged to \(result.toOwner), so this move changed nothing"
        return "form \(result.formId) '\(result.oldName)' was moved since this session last showed it "
            + "(then \(seen.owner)'s, version \(seen.version)); \(what)"
    }
}
