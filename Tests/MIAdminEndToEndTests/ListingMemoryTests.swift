import Foundation
import MITestSupport
import Testing

/// What a `users` listing holds while it streams 100,000 directory entries, through the built
/// binary against a slapd of 100,000 users with the memberof overlay: the peak resident set
/// (`/usr/bin/time`, stable under load where times are not) of the whole listing against a
/// listing of one user, which runs the same code and maps the same pages.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct ListingMemoryTests {
    /// Started for the test process unless `$MIADMIN_TEST_FIXTURE_BULK` names a running one
    /// (`Scripts/ldap-fixture start DIR --users 100000 --memberof`; about 15 s to start).
    static let fixture: Fixture = {
        do {
            return try Fixture.dedicated(variable: "MIADMIN_TEST_FIXTURE_BULK", name: "bulk",
                                         options: ["--users", "100000", "--memberof"])
        } catch {
            fatalError("cannot start the directory of 100,000 users: \(error)")
        }
    }()

    /// Peak RSS in KiB of `users PATTERN` (every user without one) as mkhan, and the rows listed.
    private func listing(config: String, pattern: String? = nil) throws -> (kib: Int, rows: Int) {
        let fixture = Self.fixture
        let command = "users" + (pattern.map { " " + $0 } ?? "")
        let args = ["-f", "maxrss=%M", Paths.binary, "--config", config, "--user", "mkhan", "--format", "csv", "-c", command]
        let result = try Shell.run("/usr/bin/time", args, environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")])
        try #require(result.status == 0, "\(command): \(result.stderr)")
        print("\(command) (\(config)): peak RSS \(result.stderr.split(separator: "\n").last ?? "")")
        let kib = try #require(result.stderr.split(separator: "\n").compactMap { $0.hasPrefix("maxrss=") ? Int($0.dropFirst(7)) : nil }.last)
        // Lines end in CRLF (RFC 4180), which Swift reads as one Character: count the LF bytes.
        return (kib, result.stdout.utf8.count { $0 == UInt8(ascii: "\n") } - 1)
    }

    /// Roles from each entry's memberOf: nothing is kept per user (the look-alike check keeps
    /// only ids beyond their own skeleton; a set of every id's hash was 3 MiB).
    @Test func aListingOfEveryUserPeaksWithinAMebibyteOfAListingOfOne() throws {
        let config = try Self.fixture.config()
        let one = try listing(config: config, pattern: "mkhan")
        let all = try listing(config: config)
        #expect(one.rows == 1)
        #expect(all.rows == 100_008)
        #expect(all.kib - one.kib < 1024, "every user: \(all.kib) KiB, one user: \(one.kib) KiB")
    }

    /// Roles from the groups' member lists (`ldap.roleSource: groups`): the technicians group of
    /// 99,999 members arrives as one message of about 4 MB, and its members are kept as 16-byte
    /// keys (1.6 MB); nothing more (the values' array of 1.6 MB and a doubling key array were).
    @Test func rolesFromA99999MemberGroupCostTheGroupsMessageAndItsKeysOnly() throws {
        let memberOf = try Self.fixture.config()
        let groups = try Self.fixture.config { setKey(&$0, "ldap.roleSource", "groups") }
        let one = try listing(config: memberOf, pattern: "mkhan")
        let all = try listing(config: groups)
        #expect(all.rows == 100_008)
        #expect(all.kib - one.kib < 6 * 1024, "every user, roles from the groups: \(all.kib) KiB, one user: \(one.kib) KiB")
    }
}
