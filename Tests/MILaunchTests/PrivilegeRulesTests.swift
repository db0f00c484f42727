import Foundation
import MICommands
import MITestSupport
import Testing
@testable import MILaunch

/// The pure rules behind a privileged run, on real files where files are involved: which
/// variables are refused or kept, where the system config is, which configs are trusted, and
/// how password files are read.
@Suite("Privilege rules")
struct PrivilegeRulesTests {
    @Test func refusedAndKeptEnvironment() {
        let environment = ["MIADMIN_CONFIG": "/x", "MIADMIN_NOW": "2030-01-01T00:00:00Z", "LDAPURI": "ldap://evil",
                           "LDAPTLS_CACERT": "/x", "HOME": "/home/u", "MIADMIN_PASSWORD": "p", "LC_ALL": "C",
                           "LD_PRELOAD": "/x.so", "SQLITE_TMPDIR": "/x", "TERM": "xterm"]
        #expect(Privilege.refused(in: environment) == ["LDAPTLS_CACERT", "LDAPURI", "MIADMIN_CONFIG", "MIADMIN_NOW"])
        #expect(Set(Privilege.scrubbed(environment).keys) == ["HOME", "MIADMIN_PASSWORD", "LC_ALL", "TERM"])
        #expect(Privilege.refused(in: ["MIADMIN_USER": "jdoe", "PATH": "/bin"]) == [])
    }

    @Test func systemConfigFollowsTheInstallPrefix() {
        #expect(InstallLayout.systemConfigPath(executable: "/usr/local/bin/miadmin") == "/etc/miadmin/config.json")
        #expect(InstallLayout.systemConfigPath(executable: "/usr/bin/miadmin") == "/etc/miadmin/config.json")
        #expect(InstallLayout.systemConfigPath(executable: "/opt/mi/bin/miadmin") == "/opt/mi/etc/miadmin/config.json")
        #expect(InstallLayout.systemConfigPath(executable: "/src/.build/debug/miadmin") == "/etc/miadmin/config.json")
        #expect(InstallLayout.systemConfigPath(executable: nil) == "/etc/miadmin/config.json")
    }

    @Test func onlyRootOwnedConfigsNobodyElseMayWriteAreTrusted() throws {
        let dir = try TempDir.make()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        chmod(dir, 0o755)
        let file = dir + "/config.json"
        try "{}".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o640)
        if getuid() == 0 {
            #expect(InstallLayout.untrustedReason(file) == nil)
            chown(file, 1, 0)
            #expect(InstallLayout.untrustedReason(file)?.contains("does not belong to root") == true)
            chown(file, 0, 0)
        }
        chmod(file, 0o664)
        #expect(InstallLayout.untrustedReason(file) != nil)
        chmod(file, 0o644)
        chmod(dir, 0o777)
        #expect(InstallLayout.untrustedReason(file)?.contains(dir) == true)
        chmod(dir, 0o1777)  // sticky, like /tmp: others cannot replace root's entries
        if getuid() == 0 { #expect(InstallLayout.untrustedReason(file) == nil) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: file)
        #expect(InstallLayout.untrustedReason(dir + "/link.json")?.contains("symbolic link") == true)
    }

    @Test func passwordFilesGiveTheirFirstLineAndReportLooseModes() throws {
        let dir = try TempDir.make()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/pw"
        try "s3cret\r\nsecond line\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        var secret = try SecretFile.read(path)
        #expect(secret.bytes == Array("s3cret".utf8))
        #expect(secret.loosePermissionsWarning == nil)
        secret.wipe()
        #expect(secret.bytes.isEmpty)
        chmod(path, 0o644)
        let loose = try SecretFile.read(path)
        #expect(loose.readableByOthers && loose.loosePermissionsWarning?.contains("chmod 600") == true)
        #expect(loose.loosePermissionsWarning?.contains("s3cret") == false)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: path)
        #expect { try SecretFile.read(dir + "/link") } throws: { "\($0)".contains("symbolic link") }
        #expect { try SecretFile.read(dir) } throws: { "\($0)".contains("not a regular file") }
        var buffer: [UInt8] = Array("zero me".utf8)
        SecretFile.wipe(&buffer)
        #expect(buffer == [UInt8](repeating: 0, count: 7))
    }
}
