import MIDirectory

extension Session {
    /// After a listing for one user id (`audit --user`, `notices UID`, `trash --owner`, ...)
    /// found nothing: an id the directory does not know is far more often a typo than a user
    /// with nothing to show, so it is an error naming the nearest id rather than an empty table
    /// that reads as "this user did nothing". An id the directory knows, a glob, or a listing
    /// that found rows (a former user's forms and audit rows stay) pass.
    func requireKnownUser(_ asked: String?, foundNothing: Bool) throws {
        guard foundNothing, let asked, Glob(asked).isLiteral, try directory.user(uid: asked) == nil else { return }
        var known = try store().listing.countForms(by: .owner).map(\.value)
        if let first = asked.first {
            // Ids sharing the first letter: a bounded search, where a typo usually keeps it.
            known += try directory.userIDs(prefix: String(first), role: nil, limit: 200)
        }
        if let guess = Spelling.closest(to: asked, among: known.sorted()) {
            throw CommandError.failed("no user '\(asked)' in the directory; did you mean '\(guess)'?")
        }
        throw CommandError.failed("no user '\(asked)' in the directory")
    }
}
