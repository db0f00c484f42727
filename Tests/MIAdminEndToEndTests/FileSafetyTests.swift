import Foundation
import MITestSupport
import Testing

/// Files the user names, through the built binary: `--ics` never replaces what is not a regular
/// file, password files give their first line and warn when others can read them, a missing
/// store is created only on purpose.
@Suite(.tags(.endToEnd, .ldap)) struct FileSafetyTests {
    let fixture = Fixture.shared

    @Test func icsRefusesAFolderOrALinkAndReplacesAFileInOneStep() throws {
        let config = try fixture.config()
        let dir = try TempDir.make()
        try FileManager.default.createDirectory(atPath: dir + "/plan.ics", withIntermediateDirectories: false)
        try "keep".write(toFile: dir + "/plan.ics/inside", atomically: true, encoding: .utf8)
        let folder = try MIAdmin.as_("mkhan", config: config, ["notifications --ics \(dir)/plan.ics"])
        #expect(folder.status == 1 && folder.stderr.contains("is a folder"), "\(folder.stderr)")
        #expect(try String(contentsOfFile: dir + "/plan.ics/inside", encoding: .utf8) == "keep")

        try "target".write(toFile: dir + "/elsewhere", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.ics", withDestinationPath: dir + "/elsewhere")
        let link = try MIAdmin.as_("mkhan", config: config, ["notifications --ics \(dir)/link.ics"])
        #expect(link.status == 1 && link.stderr.contains("symbolic link"), "\(link.stderr)")
        #expect(try String(contentsOfFile: dir + "/elsewhere", encoding: .utf8) == "target")

        try "old calendar".write(toFile: dir + "/week.ics", atomically: true, encoding: .utf8)
        let file = try MIAdmin.as_("mkhan", config: config, ["notifications --ics \(dir)/week.ics"])
        #expect(file.status == 0, "\(file.stderr)")
        #expect(try String(contentsOfFile: dir + "/week.ics", encoding: .utf8).hasPrefix("BEGIN:VCALENDAR"))
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(left == ["elsewhere", "link.ics", "plan.ics", "week.ics"], "no temporary file left behind")
    }

    @Test func passwordFileFirstLineOnlyAndAWarningWhenOthersCanRead() throws {
        let dir = try TempDir.make()
        let path = dir + "/pw"
        try (fixture.password("lchen") + "\r\nnot part of the password\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        let quiet = try MIAdmin.run(["--config", fixture.configPath, "--user", "lchen", "--password-file", path, "-c", "whoami"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("warning"))
        chmod(path, 0o644)
        let loose = try MIAdmin.run(["--config", fixture.configPath, "--user", "lchen", "--password-file", path, "-c", "whoami"])
        #expect(loose.status == 0)
        #expect(loose.stderr.contains("warning: the password file '\(path)' is readable by other users"), "\(loose.stderr)")
        #expect(!loose.stderr.contains(fixture.password("lchen")))
    }

    @Test func initStoreCreatesTheStoreOnPurposeOnly() throws {
        let config = try fixture.config()
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as! [String: Any]
        let store = try #require((object["store"] as? [String: Any])?["path"] as? String)
        let created = try MIAdmin.run(["--config", config, "--init-store"])
        #expect(created.status == 0 && created.stdout.contains("is ready"), "\(created.stderr)")
        var info = stat()
        #expect(stat(store, &info) == 0 && info.st_mode & 0o777 == 0o660)
        let again = try MIAdmin.run(["--config", config, "--init-store"])
        #expect(again.status == 0, "an existing store is left as it is")
    }
}
