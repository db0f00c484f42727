import Foundation
import MITestSupport
import Testing

/// `report --state completed --dir DIR` as a nightly job: the folder is made if missing, and
/// `--skip-existing` writes only the new reports, exit 0.
@Suite struct NightlyReportTests {
    let fixture = Fixture.shared

    @Test func theFolderIsMadeAndExistingReportsAreSkipped() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let dir = try TempDir.make() + "/reports"
        let first = try MIAdmin.as_("mkhan", config: config, format: "csv", ["report --state completed --dir \(shellQuote(dir))"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["jdoe - Generator monthly.pdf"])

        let again = try MIAdmin.as_("mkhan", config: config, ["report --state completed --dir \(shellQuote(dir))"])
        #expect(again.status == 1 && again.stderr.contains("exists; add --force to replace it"), "\(again.stderr)")

        let nightly = try MIAdmin.as_("mkhan", config: config, format: "csv",
                                      ["report --state completed --dir \(shellQuote(dir)) --skip-existing"])
        #expect(nightly.status == 0, "\(nightly.stderr)")
        #expect(nightly.stderr == "note: 1 of 1 report(s) existed and were left as they are (--skip-existing)\n", "\(nightly.stderr)")
        #expect(nightly.lines == ["id,owner,name,file,pages"], "nothing written: \(nightly.stdout)")

        let both = try MIAdmin.as_("mkhan", config: config, ["report --state completed --dir \(shellQuote(dir)) --skip-existing --force"])
        #expect(both.status == 1 && both.stderr.contains("give one"))
    }

    /// What another user planted at the report's name (a symbolic link, a file of theirs, a file
    /// that is not a PDF) is not the report written before: a warning, exit 1, left alone.
    @Test func somethingPlantedAtTheReportsNameIsNotCountedAsTheReport() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let dir = try TempDir.make() + "/reports"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        let report = dir + "/jdoe - Generator monthly.pdf"
        let elsewhere = try TempDir.make() + "/elsewhere.pdf"
        try "%PDF-1.5 not the report\n".write(toFile: elsewhere, atomically: false, encoding: .utf8)
        var planted: [(String, () throws -> Void)] = [
            ("a symbolic link", { #expect(symlink(elsewhere, report) == 0) }),
            ("not a regular file", { #expect(mkfifo(report, 0o666) == 0) }),
            ("other content", { try "plain text\n".write(toFile: report, atomically: false, encoding: .utf8) }),
        ]
        if getuid() == 0 {
            planted.append(("belongs to another user", {
                try "%PDF-1.5 planted\n".write(toFile: report, atomically: false, encoding: .utf8)
                #expect(chown(report, 65534, 65534) == 0)
            }))
        }
        for (why, plant) in planted {
            try plant()
            let nightly = try MIAdmin.as_("mkhan", config: config, format: "csv",
                                          ["report --state completed --dir \(shellQuote(dir)) --skip-existing"])
            #expect(nightly.status == 1, "\(why): \(nightly.stderr)")
            #expect(nightly.stderr.contains("jdoe/Generator monthly: not written, and not counted as written before"), "\(nightly.stderr)")
            #expect(nightly.stderr.contains(why), "\(nightly.stderr)")
            #expect(!nightly.stderr.contains("existed and were left"), "\(why): \(nightly.stderr)")
            #expect(try String(contentsOfFile: elsewhere, encoding: .utf8) == "%PDF-1.5 not the report\n")
            #expect(unlink(report) == 0)
        }
    }
}
