import Foundation
import Synchronization

/// The throwaway slapd the tests run against (Scripts/ldap-fixture): ports, TLS files, and the
/// users with their passwords and roles (users.tsv).
///
/// Uses `$MIADMIN_TEST_FIXTURE` when a script already started one; otherwise starts its own
/// once per test process under a temp dir and stops it when the process exits.
public struct Fixture: Sendable {
    public struct User: Sendable {
        public let uid, password, dn: String
        public let roles: [String]
    }

    public let directory: String
    public let values: [String: String]
    public let users: [String: User]

    public subscript(key: String) -> String { values[key] ?? "" }
    public var configPath: String { directory + "/miadmin.json" }
    public func password(_ uid: String) -> String { users[uid]!.password }

    /// The default fixture: anyone may read, roles from the groups' `member` lists; or why
    /// there is none.
    public static let started: Result<Fixture, FixtureUnavailable> = {
        do { return .success(try start(variable: "MIADMIN_TEST_FIXTURE", name: "plain", options: [])) } catch {
            return .failure(FixtureUnavailable(.ldap, error))
        }
    }()

    /// Why this run has no LDAP fixture (nil: it has one, started now if need be). A test that
    /// needs one asks this first and is skipped with the reason.
    public static var unavailable: String? {
        if case .failure(let why) = started { return why.description }
        return nil
    }

    /// The default fixture; only for tests that checked ``unavailable``.
    public static var shared: Fixture {
        switch started {
        case .success(let fixture): return fixture
        case .failure(let why): preconditionFailure("a test used the LDAP fixture without checking Fixture.unavailable: \(why)")
        }
    }

    /// The hardened fixture (`--strict-acl --memberof`): users read only their own entry, the
    /// service account reads everything, and entries carry `memberOf`.
    public static let strict: Fixture = {
        do { return try start(variable: "MIADMIN_TEST_FIXTURE_STRICT", name: "strict", options: ["--strict-acl", "--memberof"]) } catch {
            fatalError("cannot start the strict LDAP fixture: \(error)")
        }
    }()

    /// The password policy fixture (`--ppolicy`, 20 bulk users): technicians in each account
    /// state (plocked, plockout, pexpired, pgrace, pexpiring, preset; docs/testing-fixture.md).
    public static let passwordPolicy: Fixture = {
        do {
            return try start(variable: "MIADMIN_TEST_FIXTURE_PPOLICY", name: "ppolicy", options: ["--ppolicy", "--users", "20"])
        } catch {
            fatalError("cannot start the password policy LDAP fixture: \(error)")
        }
    }()

    /// The Samba AD DC started by Scripts/test (Scripts/ad-fixture) in `$MIADMIN_TEST_FIXTURE_AD`;
    /// nil without it (provisioning takes a lock and ~10 s, so tests never start one themselves).
    public static let activeDirectory: Fixture? = {
        guard let dir = ProcessInfo.processInfo.environment["MIADMIN_TEST_FIXTURE_AD"], !dir.isEmpty else { return nil }
        do { return try load(dir) } catch { fatalError("cannot read the AD fixture in \(dir): \(error)") }
    }()

    /// The 389 Directory Server started by Scripts/test (Scripts/ds389-fixture) in
    /// `$MIADMIN_TEST_FIXTURE_389`; nil without it (dscreate needs root and about a minute).
    public static let ds389: Fixture? = {
        guard let dir = ProcessInfo.processInfo.environment["MIADMIN_TEST_FIXTURE_389"], !dir.isEmpty else { return nil }
        do { return try load(dir) } catch { fatalError("cannot read the 389 fixture in \(dir): \(error)") }
    }()

    /// The MIT Kerberos KDC with a trusted second realm beside a slapd that takes tickets
    /// (Scripts/kdc-fixture): `$MIADMIN_TEST_FIXTURE_KDC`'s when a script started one, else one
    /// started for this test process on first use and stopped when it exits; or why there is none.
    public static let kerberos: Result<Fixture, FixtureUnavailable> = {
        if let dir = ProcessInfo.processInfo.environment[TestServer.kdc.variable], !dir.isEmpty {
            return Result { try load(dir) }.mapError { FixtureUnavailable(.kdc, $0) }
        }
        guard TestServer.mayStart else { return .failure(TestServer.kdc.notStarted()) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/krb5kdc") else {
            return .failure(FixtureUnavailable(description: "\(TestServer.kdc.rawValue) needs krb5kdc (Scripts/install-deps)"))
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-fixture-kdc-\(getpid())").path
        do {
            let result = try Shell.run(Paths.repoRoot + "/Scripts/kdc-fixture", ["start", dir])
            ownedKDCs.withLock { $0.append(dir) }
            _ = registerCleanup
            guard result.status == 0 else {
                throw ShellError(description: "Scripts/kdc-fixture start failed (\(result.status)): \(result.stderr)")
            }
            return .success(try load(dir))
        } catch {
            return .failure(FixtureUnavailable(.kdc, error))
        }
    }()

    /// Why this run has no Kerberos fixture (nil: it has one, started now if need be).
    public static var kerberosUnavailable: String? {
        if case .failure(let why) = kerberos { return why.description }
        return nil
    }

    /// The password of a Kerberos fixture's principal (`name@REALM`), from its principals.tsv.
    public func principalPassword(_ principal: String) throws -> String {
        let tsv = try String(contentsOfFile: self["PRINCIPALS_FILE"], encoding: .utf8)
        for line in tsv.split(separator: "\n").dropFirst() {
            let cols = line.split(separator: "\t", maxSplits: 1).map(String.init)
            if cols.count == 2, cols[0] == principal { return cols[1] }
        }
        throw ShellError(description: "no principal \(principal) in \(self["PRINCIPALS_FILE"])")
    }

    /// A fixture of one suite's own (``CrewDirectory``): `$variable`'s when a script started
    /// one, else one started with `options` for this test process. A suite's static fixture has
    /// nowhere to throw to, so a fixture that cannot start stops the test process, naming
    /// `what` and why.
    public static func dedicated(variable: String, name: String, options: [String], what: String) -> Fixture {
        do {
            return try start(variable: variable, name: name, options: options)
        } catch {
            fatalError("cannot start \(what): \(error)")
        }
    }

    /// Uses the fixture in `$variable` when a script started one; otherwise starts one under a
    /// temp dir, stopped when the test process exits.
    private static func start(variable: String, name: String, options: [String]) throws -> Fixture {
        if let dir = ProcessInfo.processInfo.environment[variable], !dir.isEmpty {
            return try load(dir)
        }
        guard TestServer.mayStart else { throw TestServer.ldap.notStarted() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-fixture-\(name)-\(getpid())").path
        let result = try Shell.run(Paths.repoRoot + "/Scripts/ldap-fixture", ["start", dir] + options)
        guard result.status == 0 else {
            throw ShellError(description: "Scripts/ldap-fixture start failed (\(result.status)): \(result.stderr)")
        }
        let fixture = try load(dir)
        ownedFixtures.withLock { $0.append(dir) }
        _ = registerCleanup
        return fixture
    }

    private static let registerCleanup: Void = {
        atexit {
            for dir in ownedFixtures.withLock({ $0 }) {
                _ = try? Shell.run(Paths.repoRoot + "/Scripts/ldap-fixture", ["stop", dir])
                try? FileManager.default.removeItem(atPath: dir)
            }
            for dir in ownedKDCs.withLock({ $0 }) {
                _ = try? Shell.run(Paths.repoRoot + "/Scripts/kdc-fixture", ["stop", dir])
                try? FileManager.default.removeItem(atPath: dir)
            }
        }
    }()

    private static func load(_ dir: String) throws -> Fixture {
        let values = try EnvFile.read(dir + "/fixture.env")
        var users: [String: User] = [:]
        let tsv = try String(contentsOfFile: dir + "/users.tsv", encoding: .utf8)
        for line in tsv.split(separator: "\n").dropFirst() {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count >= 3 else { continue }
            let roles = cols.count > 3 ? cols[3].split(separator: ",").map(String.init) : []
            users[cols[0]] = User(uid: cols[0], password: cols[1], dn: cols[2], roles: roles)
        }
        return Fixture(directory: dir, values: values, users: users)
    }

    /// Adds the entries of `ldif` as the fixture's rootdn; entries already there (from an earlier
    /// run against the same fixture) are kept. Returns ldapmodify's exit status (0, or 68).
    @discardableResult
    public func addEntries(_ ldif: String) throws -> Int32 {
        let result = try Shell.run("/usr/bin/ldapmodify", ["-a", "-c", "-x", "-ZZ", "-H", self["LDAP_URI"],
                                                          "-D", self["ROOT_DN"], "-y", self["ROOT_PW_FILE"]],
                                   environment: ["LDAPTLS_CACERT": self["CA_FILE"], "LDAPTLS_REQCERT": "demand"], input: ldif)
        guard result.status == 0 || result.status == 68 else {
            throw ShellError(description: "ldapmodify failed (\(result.status)): \(result.stderr)")
        }
        return result.status
    }

    /// Writes a copy of the fixture's config with `edit` applied to its JSON object, into a new
    /// temp dir (which also holds the store), and returns the path.
    public func config(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: configPath))
        var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let dir = try TempDir.make()
        var store = object["store"] as! [String: Any]
        store["path"] = dir + "/store.sqlite"
        object["store"] = store
        // Times in one zone whatever the machine's, so tests can compare them as text.
        setKey(&object, "display.timeZone", "UTC")
        edit(&object)
        let path = dir + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: path))
        return path
    }
}

private let ownedFixtures = Mutex<[String]>([])
private let ownedKDCs = Mutex<[String]>([])

/// Sets `object[a][b]... = value` for a dotted key path.
public func setKey(_ object: inout [String: Any], _ path: String, _ value: Any?) {
    let parts = path.split(separator: ".").map(String.init)
    func set(_ node: inout [String: Any], _ index: Int) {
        if index == parts.count - 1 { node[parts[index]] = value; return }
        var child = node[parts[index]] as? [String: Any] ?? [:]
        set(&child, index + 1)
        node[parts[index]] = child
    }
    set(&object, 0)
}

public enum Paths {
    /// The package root, found from this source file's location.
    public static let repoRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The built `miadmin` (beside the test bundle; `$MIADMIN_BINARY` overrides).
    public static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["MIADMIN_BINARY"], !explicit.isEmpty { return explicit }
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundleDir.appendingPathComponent("miadmin").path,
                          bundleDir.deletingLastPathComponent().appendingPathComponent("miadmin").path,
                          repoRoot + "/.build/debug/miadmin"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()
}

extension Paths {
    /// The field app's sample tree (a copy of shared/samples/Documents).
    public static var sampleTree: String { repoRoot + "/Tests/Fixtures/Documents" }

    /// Copies the sample tree to a new temp dir (the copy is writable) and returns its path.
    public static func copyOfSampleTree() throws -> String {
        let dir = try TempDir.make() + "/Documents"
        try FileManager.default.copyItem(atPath: sampleTree, toPath: dir)
        return dir
    }
}

public enum TempDir {
    /// A new folder under the system's temp folder, removed when the test process exits
    /// (`MIADMIN_TEST_KEEP=1` keeps them, to look at a failed test's store and config).
    public static func make() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        made.withLock { $0.append(path) }
        _ = removeAtExit
        return path
    }

    private static let made = Mutex<[String]>([])

    private static let removeAtExit: Void = {
        atexit {
            guard ProcessInfo.processInfo.environment["MIADMIN_TEST_KEEP"] == nil else { return }
            for path in TempDir.made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }()
}
