import Logging
import MIDirectory

/// The technicians of the directory as one script run sees them, read with one paged search
/// once the run has asked about enough different users to make that cheaper than one lookup
/// each (a script moving forms onto 1,200 technicians paid 1,200 searches and 1,200 role
/// queries; docs/benchmarks.md).
///
/// "Now", for a move target, means: when the roster was read, in this script run. A user the
/// roster lists is accepted as a technician for the rest of the run; a user it does not list is
/// looked up in the directory on the spot (so someone made a technician during the run is
/// accepted, and the error for a non-technician names their roles). The prompt keeps no roster:
/// each line there asks the directory (through its per-session cache).
public final class TechnicianRoster {
    /// Distinct users asked about (and not found in the directory's cache) before the whole
    /// role is read: below it, single lookups are cheaper than a listing of the role.
    public static let readAfterLookups = 32
    /// A role larger than this is not held in memory: the run goes on with single lookups.
    public static let maximumSize = 200_000

    private let directory: any DirectoryService
    private let logger: Logger
    private var asked = Set<String>()
    private var technicians: [String: DirectoryUser]?
    private var unusable = false

    public init(directory: any DirectoryService, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    /// Whether the roster has been read (for tests and the log).
    public var isLoaded: Bool { technicians != nil }

    /// The technician `uid` if the roster lists them; nil means "ask the directory" (not yet
    /// read, or not listed).
    public func technician(_ uid: String) throws -> DirectoryUser? {
        let key = uid.lowercased()
        if let technicians { return technicians[key] }
        guard !unusable else { return nil }
        asked.insert(key)
        guard asked.count >= Self.readAfterLookups else { return nil }
        try load()
        return technicians?[key]
    }

    private struct TooLarge: Error {}

    private func load() throws {
        var found: [String: DirectoryUser] = [:]
        do {
            // With their states: a locked technician listed here must still be refused as a target.
            try directory.forEachUser(matching: nil, role: .technician, accountStates: true) { user in
                found[user.uid.lowercased()] = user
                if found.count > Self.maximumSize { throw TooLarge() }
            }
        } catch is TooLarge {
            logger.debug("technician roster: more than \(Self.maximumSize) technicians; single lookups for this run")
            unusable = true
            return
        }
        logger.debug("technician roster: read \(found.count) technicians after \(asked.count) different users were asked about")
        technicians = found
    }
}
