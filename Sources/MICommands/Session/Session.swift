import Foundation
import Logging
import MIDirectory
import MIStore

/// What every command receives: who is logged in, the configuration, the directory, the store
/// (opened on first use) and how to ask for confirmation. One per console process.
///
/// A session is built on two services (``DirectoryService`` and the store's areas,
/// ``StoreAreas``): the launch layer (MILaunch) hands it the LDAP directory the user logged in
/// to and a way to the store it opens; unit tests hand it fakes.
public final class Session {
    public let config: AppConfig
    public let user: DirectoryUser
    public let directory: any DirectoryService
    public let logger: Logger
    public let clock: any StoreClock
    /// `--yes`: destructive commands do not ask.
    public var assumeYes = false
    /// How the user logged in (`whoami`'s `auth`).
    public var loginMethod = LoginMethod.password
    /// Asks a person a yes/no question; nil when nobody is there (scripts, pipes, `-c`).
    public var confirmer: ((String) -> Bool)?
    /// `--dry-run` for the whole run: the store rolls everything back, and commands that write
    /// files (reports, calendars, media, their folders) write none and say what they would write.
    public var dryRun = false
    /// How many rows a confirmation lists before asking (a screenful at the prompt); nil: all.
    /// The rest are counted, not listed.
    public var previewRows: Int?
    /// How results are shown (format, expanded, pager, time zone); `set` changes it.
    public var display = DisplaySettings()
    /// The store once opened, and how to open it until then.
    private(set) var openedStore: StoreAreas?
    /// The store if a command opened it (nil before): the run loop asks it for its events.
    public var storeIfOpened: (any StoreAdministration)? { openedStore?.administration }
    private let openStore: () throws -> StoreAreas
    /// Whether Ctrl-C asked the running command to stop (``checkpoint(_:)``); the console's
    /// signal flag, a stand-in in unit tests.
    public var interruptionRequested: () -> Bool = { Interruption.isRequested }
    /// How many unread notices the login banner showed (and marked read): `notices` right after
    /// it would otherwise be empty without a word why.
    public var noticesShownAtLogin = 0
    /// The technicians as the running script sees them; nil at the prompt (see TechnicianRoster).
    public private(set) var roster: TechnicianRoster?
    /// What the session showed (for a move's "moved since" warning) and its last move (for `undo`).
    public var recall = SessionRecall()
    /// ``crewReach()`` once read, and when (``crewUptime``).
    var crewReachCache: (reach: CrewReach, readAt: Double)?
    /// Seconds on a clock that only goes forward, for the age of the crews read
    /// (`teams.refreshSeconds`); tests move it.
    public var crewUptime: () -> Double = { ProcessInfo.processInfo.systemUptime }

    /// `store`: opens the store on first use (``store()``); called again after a failure, so a
    /// store that was unreachable once may be reached by a later command.
    public init(config: AppConfig, user: DirectoryUser, directory: any DirectoryService, logger: Logger,
                clock: any StoreClock = SystemClock(), areas: @escaping () throws -> StoreAreas) {
        self.config = config
        self.user = user
        self.directory = directory
        self.logger = logger
        self.clock = clock
        self.openStore = areas
    }

    /// `store` opens one store that answers every area (``FormStore``).
    public convenience init(config: AppConfig, user: DirectoryUser, directory: any DirectoryService, logger: Logger,
                            clock: any StoreClock = SystemClock(), store: @escaping () throws -> any SessionStore) {
        self.init(config: config, user: user, directory: directory, logger: logger, clock: clock) {
            StoreAreas(try store())
        }
    }

    /// The shared store's areas, opened once per process on first use.
    public func store() throws -> StoreAreas {
        // The crews and their members are read before the store is handed out: a directory
        // that cannot say them leaves the store closed rather than open to every crew.
        let reach = try crewReach()
        return try openedStore ?? open(reach)
    }

    /// The store for the user's own rows (the unread notices at login), opened if need be with
    /// the crews led but not their members (``crewsLed()``): it acts for the user's own forms
    /// until a command asks for ``store()``, which reads the members first.
    public func storeForOwnRows() throws -> StoreAreas {
        if let openedStore { return openedStore }
        return try open(try crewsLed())
    }

    private func open(_ reach: CrewReach) throws -> StoreAreas {
        let store = try openStore()
        store.reachSetting.setReach(storeReach(reach))
        store.administration.setActivity(activity)
        openedStore = store
        return store
    }

    /// Who runs which command (`mkhan expire`), handed to the store for another console's busy
    /// error (``StoreHolder``).
    var activity: String? {
        didSet { openedStore?.administration.setActivity(activity) }
    }

    /// A script run starts (`-c`, `-f`, a pipe, `source`): move targets are checked against one
    /// roster of technicians for the run instead of one directory lookup each.
    public func beginScriptRun() {
        roster = TechnicianRoster(directory: directory, logger: logger)
    }

    /// The script run ended: back to asking the directory.
    public func endScriptRun() {
        roster = nil
    }

    /// Throws unless the logged-in user holds one of `roles`, naming the roles needed.
    public func require(_ roles: Set<Role>, for command: String) throws {
        guard !roles.isDisjoint(with: user.roles) else {
            let needed = roles.sorted().map(\.rawValue).joined(separator: " or ")
            let held = user.roles.map(\.rawValue).joined(separator: ", ")
            throw CommandError.permissionDenied("'\(command)' needs the \(needed) role; you are \(held)")
        }
    }

    /// The role the user acts in for a command that `allowed` roles may run: the first they hold
    /// in foreman, technician, support order. Notices name it ("by support lchen"), so a support
    /// user is never called a foreman.
    public func actingRole(_ allowed: Set<Role>) -> Role {
        user.roles.sorted().first(where: allowed.contains) ?? user.roles.sorted().first ?? .support
    }

    /// True when the user may only see their own forms and notices (a technician and nothing more).
    public var isTechnicianOnly: Bool { user.roles == [.technician] }

    /// The one home of "technicians see only their own": whose forms, notices or reminders a
    /// command may show when the user asked for `asked` (nil: nobody in particular).
    ///
    /// Returns the owner to limit the lookup to: the user's own uid for a technician, `asked`
    /// for everyone else. A technician naming somebody else gets ``ownOnlyMessage``; a foreman
    /// naming somebody outside his crews gets the crew refusal (``requireInCrews(_:)``). A single
    /// form is looked up *with* this owner (`show`), so another's form gives exactly the answer
    /// a missing form gives and tells nothing of what others hold.
    public func visibleOwner(asked: String? = nil) throws -> String? {
        guard isTechnicianOnly else {
            // A glob is not an owner: the store's scope limits what it matches.
            if let asked, Glob(asked).isLiteral { try requireInCrews(asked) }
            return asked
        }
        if let asked, asked.nfc != user.uid.nfc {
            throw CommandError.permissionDenied(Self.ownOnlyMessage)
        }
        return user.uid
    }

    public static let ownOnlyMessage = "technicians see only their own forms, notices and reminders"

    /// For a destructive step: passes with `--yes` or a "yes" from the person at the prompt;
    /// otherwise throws (scripts never get a question they cannot answer).
    public func confirm(_ question: String, yes: Bool) throws {
        if yes || assumeYes { return }
        guard let confirmer else {
            throw CommandError.failed("\(question) — refusing without confirmation in a script; add --yes")
        }
        guard confirmer(question) else { throw Cancelled() }
    }

    /// The person answered no (or pressed Ctrl-C) at a confirmation: not a failure. The prompt
    /// says so quietly and goes on; nothing was changed.
    public struct Cancelled: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "cancelled; nothing was changed" }
    }

    /// Whether `uid` may hold forms. The directory caches its lookups for the session, so asking
    /// for every owner of a large store costs one lookup per owner; in a script run, the roster
    /// answers for technicians once many different users were asked about.
    public enum FormHolder: Equatable {
        case technician(DirectoryUser)
        case notInDirectory
        case notTechnician(roles: [Role])
    }

    public func formHolder(_ uid: String) throws -> FormHolder {
        if let listed = try roster?.technician(uid) { return .technician(listed) }
        guard let user = try directory.user(uid: uid) else { return .notInDirectory }
        return user.has(.technician) ? .technician(user) : .notTechnician(roles: user.roles)
    }

    /// The directory user `uid`, who must exist and hold the technician role (targets of moves
    /// and restores).
    public func technician(_ uid: String) throws -> DirectoryUser {
        switch try formHolder(uid) {
        case .technician(let user):
            if let state = user.accountState {
                throw CommandError.failed("'\(uid)' is \(state.label) in the directory"
                    + (state.attribute.map { " (\($0))" } ?? "") + " and cannot receive forms")
            }
            return user
        case .notInDirectory:
            throw CommandError.failed("no user '\(uid)' in the directory")
        case .notTechnician(let roles):
            throw CommandError.failed("'\(uid)' is not a technician (roles: \(roles.map(\.rawValue).joined(separator: ", ").ifEmpty("none")))")
        }
    }

    /// Why the owner `uid` cannot keep forms, as `check`, `orphans` and `restore` report it;
    /// nil when they can.
    public func ownerProblem(_ uid: String) throws -> String? {
        switch try formHolder(uid) {
        case .technician:
            return nil
        case .notInDirectory:
            return "owner \(uid) is not in the directory"
        case .notTechnician(let roles):
            return "owner \(uid) is not a technician (\(roles.map(\.rawValue).joined(separator: ", ").ifEmpty("no role")))"
        }
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
