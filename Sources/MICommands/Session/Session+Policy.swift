import MIDirectory
import MIStore

extension Session {
    /// The expiry and notification policy in force: the store's values (`policy set`) where set,
    /// else the config file's.
    public func policy() throws -> EffectivePolicy {
        try store().policy(defaults: config.policy.expiryPolicy)
    }

    /// Asks before a destructive run that first shows what it will change.
    ///
    /// Returns false when the caller must not show a preview: `--yes` was given (nothing to ask)
    /// or nobody can answer (then this throws the "add --yes" error at once, before any listing).
    func needsPreview(_ yes: Bool, question: @autoclosure () throws -> String) throws -> Bool {
        if yes || assumeYes { return false }
        if confirmer == nil { try confirm(try question(), yes: false) }
        return true
    }
}

/// Directory lookups of form owners, once per uid: who left the directory or the technician group.
final class OwnerLookup {
    enum Status: Equatable {
        case technician
        case notInDirectory
        case notTechnician(roles: [Role])
    }

    private let directory: Directory
    private var cache: [String: Status] = [:]

    init(_ directory: Directory) { self.directory = directory }

    func status(_ uid: String) throws -> Status {
        if let known = cache[uid] { return known }
        let status: Status
        if let user = try directory.user(uid: uid) {
            status = user.has(.technician) ? .technician : .notTechnician(roles: user.roles)
        } else {
            status = .notInDirectory
        }
        cache[uid] = status
        return status
    }

    /// Why `uid` cannot keep forms, or nil when they can.
    func problem(_ uid: String) throws -> String? {
        switch try status(uid) {
        case .technician: return nil
        case .notInDirectory: return "owner \(uid) is not in the directory"
        case .notTechnician(let roles):
            let held = roles.isEmpty ? "no role" : roles.map(\.rawValue).joined(separator: ", ")
            return "owner \(uid) is not a technician (\(held))"
        }
    }
}
