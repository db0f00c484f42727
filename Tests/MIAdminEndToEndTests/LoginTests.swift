import Foundation
import MITestSupport
import Testing

/// Login through the built binary: exit codes and messages (docs/exit-codes.md).
@Suite(.tags(.endToEnd, .ldap)) struct LoginTests {
    let fixture = Fixture.shared

    @Test func rightPasswordRunsWhoami() throws {
        let result = try MIAdmin.as_("mkhan", format: "json", ["whoami"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(json?["uid"] as? String == "mkhan")
        #expect(json?["dn"] as? String == "uid=mkhan,ou=people,dc=example,dc=com")
        #expect(json?["roles"] as? [String] == ["foreman"])
    }

    @Test func wrongPasswordExits4() throws {
        let result = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan", "-c", "whoami"], password: "Hunter2-secret")
        #expect(result.status == 4)
        #expect(result.stderr.contains("authentication failed"))
        #expect(!result.stderr.contains("Hunter2"), "the password must not appear in messages")
        #expect(result.stdout.isEmpty)
    }

    @Test func unknownUserExits4WithTheSameMessage() throws {
        let unknown = try MIAdmin.run(["--config", fixture.configPath, "--user", "nosuchuser", "-c", "whoami"], password: "x")
        let wrong = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan", "-c", "whoami"], password: "x")
        #expect(unknown.status == 4)
        #expect(unknown.stderr.replacingOccurrences(of: "nosuchuser", with: "mkhan") == wrong.stderr)
    }

    @Test func emptyPasswordExits4WithoutContactingTheDirectory() throws {
        // The config points at a closed port: had a bind (or any connection) been attempted,
        // the exit would be 2 (unreachable). 4 proves the refusal came first.
        let config = try fixture.config { setKey(&$0, "ldap.uri", "ldap://127.0.0.1:1") }
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "whoami"], password: "")
        #expect(result.status == 4)
        #expect(result.stderr.contains("empty password"))
        // And with no password source at all and no terminal, the same refusal.
        let none = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "whoami"])
        #expect(none.status == 4)
    }

    @Test(arguments: ["*", "a*)(uid=*", "x)(|(uid=*", "mkhan)(|(uid=*"])
    func filterInjectionUserNamesNeverLogIn(_ uid: String) throws {
        let result = try MIAdmin.run(["--config", fixture.configPath, "--user", uid, "-c", "whoami"],
                                     password: fixture.password("mkhan"))
        #expect(result.status == 4)
        #expect(result.stdout.isEmpty)
    }

    @Test func userInNoRoleGroupExits4() throws {
        let result = try MIAdmin.as_("nbody", ["whoami"])
        #expect(result.status == 4)
        #expect(result.stderr.contains("none of the console's role groups"))
    }

    @Test func startTLSWithWrongCAExits2() throws {
        let config = try fixture.config { setKey(&$0, "ldap.caFile", fixture["WRONG_CA_FILE"]) }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("StartTLS"))
        #expect(result.stderr.contains("ldap.caFile"))
    }

    @Test func ldapsWithWrongCAExits2() throws {
        let config = try fixture.config {
            setKey(&$0, "ldap.uri", fixture["LDAPS_URI"])
            setKey(&$0, "ldap.startTLS", false)
            setKey(&$0, "ldap.caFile", fixture["WRONG_CA_FILE"])
        }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(result.status == 2)
        // The reason and the setting, not "unreachable": the user can tell what to fix.
        #expect(result.stderr.contains("TLS handshake failed") && result.stderr.contains("ldap.caFile"), "\(result.stderr)")
        #expect(result.stderr.contains(fixture["WRONG_CA_FILE"]), "\(result.stderr)")
        #expect(!result.stderr.contains("unreachable"), "\(result.stderr)")
    }

    @Test func serverDownExits2WithinTheTimeout() throws {
        // Port 1 on loopback is closed; the deadline bounds the run, it is not a timing test.
        let config = try fixture.config {
            setKey(&$0, "ldap.uri", "ldap://127.0.0.1:1")
            setKey(&$0, "ldap.timeoutSeconds", 2)
        }
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "whoami"],
                                     password: fixture.password("mkhan"), deadline: 30)
        #expect(result.status == 2)
        #expect(result.stderr.contains("unreachable"))
    }

    /// A server that takes the connection and then says nothing: before StartTLS is answered,
    /// in the TLS handshake after it, and in an `ldaps://` handshake. Each is the timeout's
    /// error (exit 2); the run's deadline only stops a client that would wait, or spin, for
    /// ever, as libldap's handshake did with a network timeout set.
    @Test(arguments: [(SilentDirectory.Silence.silent, false), (.afterStartTLS, false), (.silent, true)])
    func aServerThatGoesSilentGivesTheTimeoutError(_ silence: SilentDirectory.Silence, ldaps: Bool) throws {
        let server = try SilentDirectory(silence)
        defer { server.stop() }
        let uri = ldaps ? server.ldapsURI : server.uri
        let config = try fixture.config {
            setKey(&$0, "ldap.uri", uri)
            setKey(&$0, "ldap.startTLS", !ldaps)
            setKey(&$0, "ldap.timeoutSeconds", 1)
        }
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "whoami"],
                                     password: fixture.password("mkhan"), deadline: 30)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("directory \(uri) did not answer within 1.0 s"), "\(result.stderr)")
    }

    /// That deadline covers the connection's first exchanges only: a session that reads the
    /// directory longer after its login than the timeout still gets its answers. The pause
    /// only outlasts the timeout; nothing is timed.
    @Test func theHandshakeDeadlineEndsWithTheHandshake() throws {
        let config = try fixture.config { setKey(&$0, "ldap.timeoutSeconds", 1) }
        let script = "(sleep 2.5; echo 'users --role foreman --format csv') | \"$0\" --config \"$1\" --user mkhan"
        let result = try Shell.run("/bin/sh", ["-c", script, Paths.binary, config],
                                   environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")], deadline: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("mkhan,Mariam Khan"), "\(result.stdout)")
    }

    @Test func wrongServiceAccountPasswordExits2() throws {
        let dir = try TempDir.make()
        try "not-the-password".write(toFile: dir + "/bind.pw", atomically: true, encoding: .utf8)
        let config = try fixture.config { setKey(&$0, "ldap.bindPasswordFile", dir + "/bind.pw") }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("service account"))
        #expect(!result.stderr.contains("not-the-password"))
    }

    @Test func passwordFileWorksAndFlagValueDoesNotExist() throws {
        let dir = try TempDir.make()
        try (fixture.password("lchen") + "\n").write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        let ok = try MIAdmin.run(["--config", fixture.configPath, "--user", "lchen", "--password-file", dir + "/pw", "-c", "whoami"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let flag = try MIAdmin.run(["--config", fixture.configPath, "--user", "lchen", "--password", "x", "-c", "whoami"])
        #expect(flag.status == 1)
    }

    @Test func misspeltConfigKeyIsAUsageError() throws {
        let config = try fixture.config { setKey(&$0, "ldap.startTls", true) }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("unknown key ldap.startTls"))
    }
}

/// Every number in the config has documented bounds; anything outside is a config error naming
/// the key and its range (exit 1), never a crash.
@Suite(.tags(.endToEnd, .ldap)) struct ConfigBoundsTests {
    let fixture = Fixture.shared

    @Test(arguments: ["ldap.timeoutSeconds", "ldap.pageSize", "store.busyTimeoutSeconds", "policy.expiryDays",
                      "policy.retentionDays"])
    func aHugeNumberIsAConfigError(_ key: String) throws {
        for value in [1e300, -1.0, 0.0] where !(key == "store.busyTimeoutSeconds" && value == 0) {
            let config = try fixture.config { setKey(&$0, key, value) }
            let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
            #expect(result.status == 1, "\(key)=\(value): \(result.stderr)")
            #expect(result.stderr.contains("key \(key) must be"), "\(result.stderr)")
            #expect(result.stderr.contains(" from "), "the message gives the range: \(result.stderr)")
        }
    }

    @Test func notifyDaysOutsideTheirRangeAreRefused() throws {
        let config = try fixture.config { setKey(&$0, "policy.notifyDays", [1, 1e300]) }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("policy.notifyDays"))
    }

    @Test func aFractionalTimeoutWorks() throws {
        // 0.5 s passed on as 500,000 µs: before, a timeout under 1 s became 0 and every search
        // "timed out" at once.
        let config = try fixture.config { setKey(&$0, "ldap.timeoutSeconds", 0.5) }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami", "users --role support"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("lchen"))
    }

    @Test func aURIListWithACleartextFallbackIsRefusedBeforeConnecting() throws {
        let config = try fixture.config {
            setKey(&$0, "ldap.uri", "\(fixture["LDAPS_URI"]) ldap://127.0.0.1:1")
            setKey(&$0, "ldap.startTLS", false)
        }
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("refusing to send passwords in cleartext to ldap://127.0.0.1:1"))
        // Covered by StartTLS, the same list is fine (the ldaps URI answers first).
        let covered = try fixture.config {
            setKey(&$0, "ldap.uri", "\(fixture["LDAPS_URI"]) \(fixture["LDAP_URI"])")
            setKey(&$0, "ldap.startTLS", true)
        }
        let ok = try MIAdmin.as_("mkhan", config: covered, ["whoami"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func roleSourceAndUserFilterAreChecked() throws {
        let source = try fixture.config { setKey(&$0, "ldap.roleSource", "memberof") }
        let bad = try MIAdmin.as_("mkhan", config: source, ["whoami"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("key ldap.roleSource must be one of auto, memberOf, groups"))
        let filter = try fixture.config { setKey(&$0, "ldap.userFilter", "objectClass=person") }
        let unbalanced = try MIAdmin.as_("mkhan", config: filter, ["whoami"])
        #expect(unbalanced.status == 1)
        #expect(unbalanced.stderr.contains("ldap.userFilter"))
        let groups = try fixture.config {
            setKey(&$0, "ldap.roleSource", "groups")
            setKey(&$0, "ldap.userFilter", "(objectClass=person)")
            setKey(&$0, "ldap.pageSize", 100)
        }
        let ok = try MIAdmin.as_("tpatel", config: groups, format: "csv", ["whoami"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("\"foreman, technician\""))
    }
}
