import Foundation
import MITestSupport
import Testing

/// 389 Directory Server (Red Hat Directory Server, FreeIPA) as Scripts/ds389-fixture sets it up:
/// the memberOf plug-in following `member` only, support as a groupOfUniqueNames, crews as
/// groupOfUniqueNames, a service account with an ACI of its own, accounts in each state.
@Suite(.enabled(if: Fixture.ds389 != nil, "needs Scripts/ds389-fixture (Scripts/test starts it)"))
struct DS389Tests {
    var fixture: Fixture { Fixture.ds389! }

    func login(_ uid: String, password: String? = nil, _ commands: [String] = ["whoami"],
               config: String? = nil, format: String? = nil) throws -> ProcessResult {
        var arguments = ["--config", config ?? fixture.configPath, "--user", uid]
        if let format { arguments += ["--format", format] }
        for command in commands { arguments += ["-c", command] }
        return try MIAdmin.run(arguments, password: password ?? fixture.password(uid))
    }

    @Test func eachAccountStateHasItsOwnMessageAndExit4() throws {
        let locked = try login("dlocked")
        #expect(locked.status == 4)
        #expect(locked.stderr.contains("the account is locked by the directory (nsAccountLock): an administrator must unlock it"),
                "\(locked.stderr)")
        let expired = try login("dexpired")
        #expect(expired.status == 4)
        #expect(expired.stderr.contains("the password has expired"), "\(expired.stderr)")
        let reset = try login("dreset")
        #expect(reset.status == 4, "must-change was let in: \(reset.stdout)")
        #expect(reset.stderr.contains("must be changed before first use"), "\(reset.stderr)")
        #expect(reset.stdout.isEmpty)
        let expiring = try login("dexpiring")
        #expect(expiring.status == 0, "\(expiring.stderr)")
        #expect(expiring.stderr.contains("miadmin: warning: your password expires in"), "\(expiring.stderr)")
        for result in [locked, expired, reset] { #expect(!result.stderr.contains("wrong password"), "\(result.stderr)") }
        let wrong = try login("jdoe", password: "not-it")
        #expect(wrong.status == 4)
        #expect(wrong.stderr.contains("unknown user id or wrong password"), "\(wrong.stderr)")
        #expect(try login("jdoe").status == 0)  // resets jdoe's failure count
    }

    @Test func failedLoginsLockTheAccountOut() throws {
        for _ in 0..<3 { _ = try login("dlockout", password: "not-it") }
        let right = try login("dlockout")
        #expect(right.status == 4)
        #expect(right.stderr.contains("locked out after failed logons"), "\(right.stderr)")
        // The entry says so too (accountUnlockTime): users shows it, move refuses it.
        let listed = try login("mkhan", ["users dlockout --state"], format: "csv")
        #expect(listed.lines.last?.hasSuffix(",locked out") == true, "\(listed.stdout)")
    }

    @Test func rolesDoNotDependOnUnrelatedGroups() throws {
        // lchen is in the canteen group (memberOf values), support lists her by uniqueMember.
        let lchen = try login("lchen", format: "csv")
        #expect(lchen.status == 0, "\(lchen.stderr)")
        #expect(lchen.lines.last?.hasSuffix(",support,password") == true, "\(lchen.stdout)")
        let tpatel = try login("tpatel", format: "json")
        #expect(tpatel.stdout.contains("\"foreman\"") && tpatel.stdout.contains("\"technician\""), "\(tpatel.stdout)")
        let support = try login("lchen", ["users --role support"], format: "csv")
        #expect(support.lines.dropFirst().map { String($0.prefix { $0 != "," }) } == ["lchen"], "\(support.stdout)")
    }

    @Test func listingsPageBeyondTheSizeLimitAndShowLockedAccounts() throws {
        let all = try login("mkhan", ["users --state"], format: "csv")
        #expect(all.status == 0, "\(all.stderr)")
        let bulk = Int(fixture["BULK_USERS"]) ?? 0
        #expect(all.lines.count == 1 + bulk + fixture.users.count - 1, "\(all.lines.count)")  // users.tsv has u00001 too
        #expect(all.lines.contains { $0.hasPrefix("dlocked,") && $0.hasSuffix(",locked (nsAccountLock)") }, "\(all.stdout)")
    }

    @Test func aLockedAccountIsNoMoveTarget() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "389 target")
        let config = try fixture.store(importing: tree.root)
        let move = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/389 target' dlocked"], fixture: fixture)
        #expect(move.status != 0)
        #expect(move.stderr.contains("'dlocked' is locked in the directory (nsAccountLock) and cannot receive forms"),
                "\(move.stderr)")
    }

    @Test func crewsAsGroupOfUniqueNames() throws {
        let mkhan = try login("mkhan", ["whoami"], config: fixture["MIADMIN_CONFIG_TEAMS_GROUPS"])
        #expect(mkhan.status == 0, "\(mkhan.stderr)")
        #expect(mkhan.stdout.contains("Kolonne Nord"), "\(mkhan.stdout)")
    }

    @Test func theConfigCheckSeesWhatMiadminSees() throws {
        let result = try MIAdmin.run(["--config", fixture["MIADMIN_CONFIG_TEAMS_GROUPS"], "--check-config"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("389"), "\(result.stdout)")
        #expect(result.lines.contains { $0.contains("role support") && $0.contains("by uniqueMember; read from the group entry") },
                "\(result.stdout)")
        #expect(result.lines.contains { $0.contains("role foreman") && $0.contains("read from users' memberOf") }, "\(result.stdout)")
        #expect(result.lines.contains { $0.contains("crews") && $0.contains("2 crew groups readable") }, "\(result.stdout)")
        #expect(result.lines.contains { $0.contains("account states") && $0.contains("nsAccountLock on 1 user entry") },
                "\(result.stdout)")
    }
}
