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
}
