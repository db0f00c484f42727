import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// `store.readUrl`: listings, audit and check read from a hot standby (the shared site's
/// streaming standby), everything else from the primary; a lagging standby is said, one that
/// does not answer is passed over for the primary.
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresStandbyReadTests {
    let site = PostgresSiteFixture.pooled

    /// A store on a new database of the site's primary, reading listings from its standby.
    func store(readURL: String? = nil, maxLagSeconds: Double = 30) throws -> (FormStore, String) {
        let direct = try site.fixture.newDatabase()
        let name = direct.components(separatedBy: "?")[0].components(separatedBy: "/").last!
        let standby = readURL ?? site.fixture["PG_STANDBY_URL"].replacingOccurrences(of: "/mi?", with: "/\(name)?")
        let store = try FormStore(postgres: try PostgresTarget(uri: direct), password: site.fixture.password,
                                  readTarget: try PostgresTarget(uri: standby), maxLagSeconds: maxLagSeconds)
        let dir = try TempDir()
        let tree = try TreeBuilder(dir.sub("seed"))
        for index in 1...3 { try tree.form("jdoe/Pump \(index)") }
        #expect(try store.importTree(at: tree.root, actor: "seed").inserted.count == 3)
        try waitForReplay()
        return (store, name)
    }

    /// Waits until the standby has replayed everything the primary wrote so far.
    func waitForReplay() throws {
        let target = try site.fixture.query("SELECT pg_current_wal_lsn()", database: "postgres")
        try waitUntil("the standby replayed the primary's WAL up to \(target)") {
            try site.queryStandby("SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn", database: "postgres") == "t"
        }
    }

    func owners(_ store: FormStore) throws -> [String] {
        var owners: [String] = []
        try store.forEachForm(FormFilter(state: .incomplete)) { owners.append($0.owner) }
        return owners
    }

    @Test func listingsReadFromTheStandbyAndSayWhenItLags() throws {
        let (store, _) = try store(maxLagSeconds: 0)
        #expect(try owners(store) == ["jdoe", "jdoe", "jdoe"])
        #expect(store.takeEvents().isEmpty)
        // The standby stops replaying; a move commits on the primary (flushed on the standby,
        // not yet applied): the listing, from the standby, still shows jdoe and says it lags.
        _ = try site.queryStandby("SELECT pg_wal_replay_pause()", database: "postgres")
        defer { _ = try? site.queryStandby("SELECT pg_wal_replay_resume()", database: "postgres") }
        try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan")
        #expect(try store.form(ref("asmith/Pump 1")).owner == "asmith")  // the primary
        #expect(try owners(store) == ["jdoe", "jdoe", "jdoe"])
        let events = store.takeEvents()
        guard case .standbyLag(let host, let seconds)? = events.first, events.count == 1 else {
            Issue.record("expected one lag event, got \(events)")
            return
        }
        #expect(host.hasPrefix("127.0.0.1:\(site.standbyPort)/") && seconds > 0)
        _ = try site.queryStandby("SELECT pg_wal_replay_resume()", database: "postgres")
        try waitForReplay()
        #expect(try owners(store).sorted() == ["asmith", "jdoe", "jdoe"])
    }

    @Test func aStandbyThatDoesNotAnswerIsPassedOverForThePrimary() throws {
        let unreachable = site.fixture["PG_STANDBY_URL"].replacingOccurrences(of: ":\(site.standbyPort)/", with: ":1/")
        let (store, _) = try store(readURL: unreachable)
        #expect(try owners(store) == ["jdoe", "jdoe", "jdoe"])
        let events = store.takeEvents()
        guard case .standbyUnavailable(let reason)? = events.first, events.count == 1 else {
            Issue.record("expected one standby-unavailable event, got \(events)")
            return
        }
        #expect(reason.contains("127.0.0.1:1/"))
        // Once is enough: the next listing goes to the primary without trying again.
        #expect(try owners(store).count == 3 && store.takeEvents().isEmpty)
    }
}
