import ArgumentParser
import MIDirectory
import MIStore

/// `FORM` of the commands that change several forms at once (`move`, `submit`, `comment`): one
/// form (`12`, `jdoe/Pump station 4`) or a pattern on owner and name (`'jdoe/*'`,
/// `'jdoe/Pump*'`, `'u0000?/*'`): `*` any run of characters, `?` one, `\` makes the next
/// literal, case-insensitive, as `forms --owner` and `users` take globs. A name without a
/// wildcard is the one form of that name, as before.
public enum FormPattern: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    case form(FormReference)
    case pattern(owner: String, name: String)

    public init?(argument: String) {
        guard let reference = try? FormReference(parsing: argument) else { return nil }
        guard case .path(let owner, let name) = reference, !(Glob(owner).isLiteral && Glob(name).isLiteral) else {
            self = .form(reference)
            return
        }
        self = .pattern(owner: owner, name: name)
    }

    public var description: String {
        switch self {
        case .form(let reference): reference.description
        case .pattern(let owner, let name): "\(owner)/\(name)"
        }
    }

    public var isPattern: Bool {
        if case .pattern = self { return true }
        return false
    }
}

/// A form a bulk command chose, as the listing showed it: the change is made with this version
/// (`expectedVersion`), so a form changed between the preview and the change is not changed.
public struct SelectedForm: Sendable, Hashable {
    public let id: Int64
    public let owner: String
    public let name: String
    public let state: FormState
    public let version: Int

    public init(id: Int64, owner: String, name: String, state: FormState, version: Int) {
        self.id = id
        self.owner = owner
        self.name = name
        self.state = state
        self.version = version
    }

    init(_ form: FormSummary) { self.init(id: form.id, owner: form.owner, name: form.name, state: form.state, version: form.version) }
    init(_ form: Form) { self.init(id: form.id, owner: form.owner, name: form.name, state: form.state, version: form.version) }
}

/// Which forms a bulk command acts on: forms and patterns named, or the forms of `--owner`
/// (a uid or a glob) in `--state`. Read through the listing `forms` uses (``FormFilter``, the
/// session's ``Session/visibleOwner(asked:)`` and the store's crew scope), never a path of its own.
struct FormSelection {
    var patterns: [FormPattern] = []
    var owner: String?
    var state: FormState?

    /// True when the selection is exactly one form named: the command's single-form behaviour.
    var isSingleForm: Bool {
        guard patterns.count == 1, owner == nil, state == nil, case .form = patterns[0] else { return false }
        return true
    }

    /// The forms selected, each once, in the order named (a pattern's in owner/name order). A
    /// pattern or `--owner` takes forms in `state` (default `eligible`, the state the command
    /// changes); a form named by id or full name is taken whatever its state, so the store's own
    /// refusal says why it cannot be changed.
    func forms(in session: Session, eligible: FormState) throws -> [SelectedForm] {
        let store = try session.store()
        var seen = Set<Int64>()
        var selected: [SelectedForm] = []
        func add(_ form: SelectedForm) {
            if seen.insert(form.id).inserted { selected.append(form) }
        }
        let state = self.state ?? eligible
        for pattern in patterns {
            switch pattern {
            case .form(let reference):
                add(SelectedForm(try store.listing.form(reference, owner: session.visibleOwner())))
            case .pattern(let owner, let name):
                let glob = Glob(name)
                try Self.forEachForm(owner: owner, filter: FormFilter(state: state), in: session) { form in
                    if glob.matches(form.name) { add(SelectedForm(form)) }
                }
            }
        }
        if owner != nil || patterns.isEmpty {
            // `--state completed` alone: every visible owner's forms in that state.
            try Self.forEachForm(owner: owner ?? "*", filter: FormFilter(state: state), in: session) { add(SelectedForm($0)) }
        }
        return selected
    }

    /// The forms of `owner` (a uid or a glob) that pass `filter`, as `forms --owner` lists them
    /// (``ListedOwners``): a glob is expanded to the store's owners it matches, one after the
    /// other in owner order.
    static func forEachForm(owner: String, filter: FormFilter, in session: Session,
                            _ body: (FormSummary) throws -> Void) throws {
        let store = try session.store()
        var filter = filter
        for owner in try ListedOwners(asked: owner, in: session).storeOwners(store.listing, filter) {
            filter.owner = owner
            try store.listing.forEachForm(filter) {
                try session.checkpointRow()
                try body($0)
            }
        }
    }
}

/// `--owner` and `--state` of the commands that change several forms: a selection read as
/// `forms --owner UID --state STATE` lists it.
public struct FormSelectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Every form of this technician (a uid or a glob such as 'u0000*').", valueName: "technician"))
    public var owner: String?
    @Option(help: ArgumentHelp("Forms in this state (default: the state the command changes).",
                               valueName: "incomplete|completed|submitted"))
    public var state: FormState?

    public init() {}

    func selection(_ patterns: [FormPattern]) -> FormSelection {
        FormSelection(patterns: patterns, owner: owner, state: state)
    }
}
