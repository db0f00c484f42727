import Foundation
import MITestSupport
import Testing

/// What a `users` listing costs while it streams 100,000 directory entries, through the built
/// binary against a slapd of 100,000 users with the memberof overlay, in measures that do not
/// move with the machine's load: the peak resident set (`/usr/bin/time`) of the whole listing
/// against a listing of one user, which runs the same code and maps the same pages, and the
/// read(2) calls it makes (`strace -c`).
@Suite(.tags(.endToEnd, .ldap), .serialized) struct BulkListingTests {
    /// Started for the test process unless `$MIADMIN_TEST_FIXTURE_BULK` names a running one
    /// (`Scripts/ldap-fixture start DIR --users 100000 --memberof`; about 15 s to start).
    static let fixture: Fixture = Fixture.dedicated(variable: "MIADMIN_TEST_FIXTURE_BULK", name: "bulk",
        options: ["--users", "100000", "--memberof"], what: "the directory of 100,000 users")

    /// Read calls of the whole listing: slapd sends each entry as a TLS record of its own, which
    /// GnuTLS read in two calls (200,531 for the listing); read ahead in blocks, a few thousand.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "needs strace"))
    func aListingReadsTheDirectoryInBlocksNotEntryByEntry() throws {
        let fixture = Self.fixture
        let counts = try TempDir.make() + "/strace.txt"
        let args = ["-f", "-c", "-e", "trace=read", "-o", counts, Paths.binary, "--config", try fixture.config(),
                    "--user", "mkhan", "--format", "csv", "-c", "users"]
        let result = try Shell.run("/usr/bin/strace", args, environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")])
        try #require(result.status == 0, "\(result.stderr)")
        // The summary's line for read: % time, seconds, usecs/call, calls, [errors,] syscall.
        let summary = try String(contentsOfFile: counts, encoding: .utf8)
        let line = try #require(summary.split(separator: "\n").first { $0.split(separator: " ").last == "read" })
        let reads = try #require(Int(line.split(separator: " ")[3]), "\(line)")
        #expect(reads < 25_000, "\(reads) read calls for 100,008 entries")
    }

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
        // The message and the keys (5.6 MB) with room for the allocator's own; the values' array
        // and a key array grown by doubling went over it (docs/benchmarks.md has the figures).
        #expect(all.kib - one.kib < 6_656, "every user, roles from the groups: \(all.kib) KiB, one user: \(one.kib) KiB")
    }
}
