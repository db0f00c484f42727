import Foundation
import MITestSupport
import Testing

/// `--check-config` of the installed, setgid miadmin run by real Unix accounts: it prints the
/// service account's DN, the role groups' sizes and locked accounts, so it is root's, and other
/// accounts' only after a directory login of support staff (or a site lead). Anyone else gets
/// exit 4 and nothing from the directory.
@Suite(.tags(.endToEnd, .ldap), .serialized, .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"))
struct ConfigCheckPrivilegeTests {
    let install: Installation
    let fixture = Fixture.shared

    init() throws { install = try Installation.shared.get() }

    /// Nothing the directory told: not the service account's DN, no check line.
    func expectNothingFromTheDirectory(_ result: ProcessResult, _ who: String) {
        #expect(result.status == 4, "\(who): \(result.status) \(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(who): \(result.stdout)")
        #expect(!result.stderr.contains(fixture["BIND_DN"]) && !result.stderr.contains("ok "), "\(who): \(result.stderr)")
        #expect(result.stderr.contains("--check-config of the installed miadmin is for root"), "\(who): \(result.stderr)")
    }

    @Test func anAccountWithoutALoginGetsExit4AndNothing() throws {
        let result = try install.runAs(.technician, [install.binary, "--check-config"])
        expectNothingFromTheDirectory(result, "no --user")
    }

    @Test func aTechniciansOrAForemansLoginGetsExit4AndNothing() throws {
        expectNothingFromTheDirectory(try install.run(.technician, ["--check-config"]), "jdoe")
        expectNothingFromTheDirectory(try install.run(.foreman, ["--check-config"]), "mkhan")
    }

    @Test func supportsLoginAndRootGetTheCheck() throws {
        let file = install.home(.technician) + "/.lchen-password"
        try (fixture.password("lchen") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try install.chown(file, to: .technician)
        chmod(file, 0o600)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let support = try install.runAs(.technician, [install.binary, "--check-config", "--user", "lchen", "--password-file", file])
        #expect(support.status == 0, "\(support.stdout)\(support.stderr)")
        #expect(support.stdout.contains("bound as service account '\(fixture["BIND_DN"])'"), "\(support.stdout)")
        let root = try Shell.run(install.binary, ["--check-config"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(root.status == 0, "\(root.stdout)\(root.stderr)")
        #expect(root.stdout.contains("bound as service account '\(fixture["BIND_DN"])'"), "\(root.stdout)")
    }

    /// Where the site keeps crews, a site lead (in `teams.allTeamsGroup`) gets the check; the
    /// foreman of one crew does not.
    @Test func aSiteLeadGetsTheCheckAndACrewsForemanDoesNot() throws {
        let crews = CrewDirectory.fixture
        let second = try Installation.configured(tag: "checkcrews", groupOf: install, fixture: crews) { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", CrewDirectory.base(crews))
            setKey(&object, "teams.allTeamsGroup", CrewDirectory.siteLeadsGroup(crews))
        }
        defer { second.remove() }
        func check(as uid: String) throws -> ProcessResult {
            let file = second.home(.foreman) + "/.\(uid)-password"
            try (crews.password(uid) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            try second.chown(file, to: .foreman)
            chmod(file, 0o600)
            defer { try? FileManager.default.removeItem(atPath: file) }
            return try second.runAs(.foreman, [second.binary, "--check-config", "--user", uid, "--password-file", file])
        }
        let lead = try check(as: "sitelead")
        #expect(lead.status == 0 || lead.status == 1, "\(lead.stdout)\(lead.stderr)")
        #expect(lead.stdout.contains("bound as service account '\(crews["BIND_DN"])'"), "\(lead.stdout)\(lead.stderr)")
        let foreman = try check(as: "mkhan")
        #expect(foreman.status == 4 && foreman.stdout.isEmpty, "\(foreman.stdout)\(foreman.stderr)")
        #expect(!foreman.stderr.contains(crews["BIND_DN"]), "\(foreman.stderr)")
    }
}
