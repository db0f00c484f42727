import MIDirectory
import MIStore

extension Session {
    /// The expiry and notification policy in force: the store's values (`policy set`) where set,
    /// else the config file's.
    public func policy() throws -> EffectivePolicy {
        try store().policy.policy(defaults: config.policy.expiryPolicy)
    }

    /// The policy per form owner, as the store decides it (``FormStore/ownerPolicies(defaults:)``):
    /// the site's, and for the members of a crew with values of its own that crew's.
    public func ownerPolicies() throws -> OwnerPolicies {
        try store().policy.ownerPolicies(defaults: config.policy.expiryPolicy)
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
