import Foundation
import MITestSupport
import Testing

/// Account states as OpenLDAP's password policy overlay reports them in the bind's response
/// control, through the built binary (Scripts/ldap-fixture `--ppolicy`): each state its own
/// message and exit 4, a must-change account never let in, an expiring password a warning.
@Suite struct PasswordPolicyLoginTests {
    let fixture = Fixture.passwordPolicy

    func login(_ uid: String, password: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", uid, "-c", "whoami"],
                        password: password ?? fixture.password(uid))
    }

    @Test func aLockedAccountIsRefusedNamingTheLock() throws {
        let result = try login("plocked")
        #expect(result.status == 4)
        #expect(result.stderr.contains("locked by the directory's password policy (pwdAccountLockedTime"), "\(result.stderr)")
        #expect(result.stderr.contains("an administrator must unlock it"), "\(result.stderr)")
        #expect(!result.stderr.contains("wrong password"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anExpiredPasswordIsRefusedSayingSo() throws {
        let result = try login("pexpired")
        #expect(result.status == 4)
        #expect(result.stderr.contains("the password has expired"), "\(result.stderr)")
        #expect(!result.stderr.contains("wrong password"), "\(result.stderr)")
    }

    @Test func anAccountThatMustChangeItsPasswordIsNeverLetIn() throws {
        // The bind itself succeeds (the server then allows nothing but a password change).
        let result = try login("preset")
        #expect(result.status == 4, "\(result.stdout)")
        #expect(result.stderr.contains("must be changed before first use"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "must-change was let in: \(result.stdout)")
    }

    @Test func graceLoginsAndAnExpiringPasswordWarnAndLetIn() throws {
        let grace = try login("pgrace")
        #expect(grace.status == 0, "\(grace.stderr)")
        #expect(grace.stdout.contains("pgrace"))
        #expect(grace.stderr.contains("miadmin: warning: your password has expired;"), "\(grace.stderr)")
        #expect(grace.stderr.contains("grace logins left"), "\(grace.stderr)")
        let expiring = try login("pexpiring")
        #expect(expiring.status == 0, "\(expiring.stderr)")
        #expect(expiring.stdout.contains("pexpiring"))
        // Seven days before expiry, less the seconds since the fixture started.
        #expect(expiring.stderr.contains("miadmin: warning: your password expires in 6 days"), "\(expiring.stderr)")
        // An ordinary account: no warning.
        let plain = try login("jdoe")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.isEmpty, "\(plain.stderr)")
    }

    @Test func failedLoginsLockTheAccountOutAndTheRightPasswordThenSaysLocked() throws {
        let first = try login("plockout", password: "not-it")
        #expect(first.status == 4)
        // Before the lockout (or on a fixture a test run already locked): the server's word.
        #expect(first.stderr.contains("unknown user id or wrong password") || first.stderr.contains("pwdAccountLockedTime"))
        for _ in 0..<3 { _ = try login("plockout", password: "not-it") }
        let right = try login("plockout")
        #expect(right.status == 4)
        #expect(right.stderr.contains("pwdAccountLockedTime"), "\(right.stderr)")
        #expect(!right.stderr.contains("wrong password"), "\(right.stderr)")
    }

    @Test func aWrongPasswordIsStillTheGenericMessage() throws {
        let wrong = try login("jdoe", password: "not-it")
        #expect(wrong.status == 4)
        #expect(wrong.stderr.contains("unknown user id or wrong password"), "\(wrong.stderr)")
        let unknown = try login("nosuchuser", password: "not-it")
        #expect(unknown.stderr.replacingOccurrences(of: "nosuchuser", with: "jdoe") == wrong.stderr)
        // The right password resets the failure count, so runs against one fixture never lock jdoe out.
        #expect(try login("jdoe").status == 0)
    }
}

/// Locked and disabled accounts receive no forms, and `users --state` shows them (the entry's
/// own attributes: ppolicy's pwdAccountLockedTime here, AD's userAccountControl in
/// DirectoryKindsTests).
@Suite struct LockedAccountTargetTests {
    let fixture = Fixture.passwordPolicy

    @Test func aLockedTechnicianIsNoMoveTargetAndUsersShowsTheLock() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Locked target")
        let config = try fixture.store(importing: tree.root)
        let toLocked = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Locked target' plocked"], fixture: fixture)
        #expect(toLocked.status != 0)
        #expect(toLocked.stderr.contains("'plocked' is locked in the directory (pwdAccountLockedTime) and cannot receive forms"),
                "\(toLocked.stderr)")
        #expect(try sqlite(try fixture.storePath(config), "SELECT owner FROM forms") == "jdoe")
        // An expired password is no lock: the technician still receives forms.
        let toExpired = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Locked target' pexpired"], fixture: fixture)
        #expect(toExpired.status == 0, "\(toExpired.stderr)")

        let listed = try MIAdmin.as_("mkhan", format: "csv", ["users 'p*' --state"], fixture: fixture)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.lines.first == "uid,name,mail,roles,state")
        #expect(listed.lines.contains("plocked,Paul Locked,plocked@example.com,technician,locked (pwdAccountLockedTime)"),
                "\(listed.stdout)")
        #expect(listed.lines.contains("pexpired,Pia Expired,pexpired@example.com,technician,"), "\(listed.stdout)")
        // Without --state, the columns stay as they were.
        let plain = try MIAdmin.as_("mkhan", format: "csv", ["users plocked"], fixture: fixture)
        #expect(plain.lines == ["uid,name,mail,roles", "plocked,Paul Locked,plocked@example.com,technician"])
    }

    /// A script asking about many targets reads the technicians in one listing (TechnicianRoster);
    /// listings that show no state leave the states out of the search, this one must not.
    @Test func aLockedTechnicianIsNoMoveTargetOnceTheScriptReadsTheRoster() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Roster target")
        let config = try fixture.store(importing: tree.root)
        let unknown = (1...32).map { "move 'jdoe/Roster target' nobody\($0)" }
        let dir = try TempDir.make()
        let script = dir + "/moves.mi"
        try (unknown + ["move 'jdoe/Roster target' plocked"]).joined(separator: "\n")
            .write(toFile: script, atomically: true, encoding: .utf8)
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "--on-error", "continue", "-f", script],
                                     password: fixture.password("mkhan"), environment: ["MIADMIN_LOG_LEVEL": "debug"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("technician roster: read"), "the roster answered for plocked: \(result.stderr)")
        #expect(result.stderr.contains("\(script):33: 'plocked' is locked in the directory (pwdAccountLockedTime) and cannot receive forms"),
                "\(result.stderr)")
        #expect(try sqlite(try fixture.storePath(config), "SELECT owner FROM forms") == "jdoe")
    }
}
