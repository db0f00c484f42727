import Foundation
import MITestSupport
import Testing

/// Tab completion of form references in a real terminal: every candidate owner, quoted or not,
/// on an empty word, trashed forms for `restore`.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct FormCompletionTests {
    let prompt = "mkhan@foreman> "
    static let owners = ["t00002", "t00003", "t00005", "t00006", "t00008"]

    /// A store with one form for each of five owners sharing the prefix `t0000`.
    func storeWithOwnersSharingAPrefix() throws -> String {
        let tree = try DocumentsTree()
        for owner in Self.owners { try tree.form(owner, "Form of \(owner)") }
        return try Fixture.shared.store(importing: tree.root)
    }

    /// The screen below the prompt line where readline lists the candidates.
    func listed(_ term: TerminalSession, expecting owners: [String]) throws -> String {
        try term.waitFor(owners.last! + "/")
    }

    @Test(arguments: ["move 't0000", "move t0000", "show \"t0000"])
    func aPrefixManyOwnersShareListsThemAll(_ typed: String) throws {
        let term = try TerminalSession(uid: "mkhan", config: try storeWithOwnersSharingAPrefix())
        try term.waitFor(prompt)
        try term.type(typed)
        // The common prefix is all there is to fill in, so the first Tab changes nothing and
        // the second lists every owner (readline's way)…
        try term.press("Tab", "Tab")
        let screen = try listed(term, expecting: Self.owners)
        for owner in Self.owners { #expect(screen.contains(owner + "/"), "\(owner) missing:\n\(screen)") }
        // …and the line is still as typed.
        #expect(try term.currentLine(prompt: prompt) == typed)
        // Choosing one still completes its forms.
        try term.type("3/")
        try term.press("Tab")
        // Completed and quoted (the name has spaces): with the user's quote, or single quotes.
        let quote = typed.contains("\"") ? "\"" : "'"
        let command = String(typed.prefix { $0 != " " })
        let want = "\(command) \(quote)t00003/Form of t00003\(quote) "
        #expect(try term.currentLine(prompt: prompt, becomes: want) == want)
    }

    @Test(arguments: ["move ", "show ", "audit --form "])
    func anEmptyWordListsTheOwners(_ typed: String) throws {
        let term = try TerminalSession(uid: "mkhan", config: try storeWithOwnersSharingAPrefix())
        try term.waitFor(prompt)
        try term.type(typed)
        try term.press("Tab")
        // Five owners share "t0000": that much is filled in, no single owner is chosen.
        #expect(try term.currentLine(prompt: prompt, becomes: typed + "t0000") == typed + "t0000")
        // Then, as after any completion that filled something in, two more Tabs list them.
        try term.press("Tab", "Tab")
        let screen = try listed(term, expecting: Self.owners)
        for owner in Self.owners { #expect(screen.contains(owner + "/"), "\(owner) missing:\n\(screen)") }
    }

    @Test func restoreOffersTrashedFormsOnly() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Expired pump", created: "2026-11-01T08:00:00Z")
        try tree.form("asmith", "Fresh pump", created: "2026-11-20T08:00:00Z")
        let config = try Fixture.shared.store(importing: tree.root)
        let expired = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "expire --yes"],
                                      password: Fixture.shared.password("mkhan"),
                                      environment: ["MIADMIN_NOW": "2026-11-21T09:00:00Z"])
        #expect(expired.status == 0, "\(expired.stderr)")
        #expect(try sqlite(try Fixture.shared.storePath(config), "SELECT owner FROM forms WHERE trashed_at IS NOT NULL") == "jdoe")

        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.type("restore ")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "restore jdoe/") == "restore jdoe/")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "restore 'jdoe/Expired pump' ") == "restore 'jdoe/Expired pump' ")
        try term.press("C-u")
        // `show` still offers the forms in use, not the trashed one.
        try term.type("show ")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "show asmith/") == "show asmith/")
    }
}
