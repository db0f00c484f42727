import Foundation
import MITestSupport
import Testing

/// A comment (or any value typed on a command line) is bounded by `limits.commentBytes`
/// (64 KiB by default): a longer one is refused with the setting's name, and nothing is stored.
@Suite struct FreeTextLimitTests {
    let fixture = Fixture.shared

    @Test func aCommentLongerThanTheLimitIsRefusedAndNothingIsStored() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let long = String(repeating: "Lager heiß. ", count: 6_000)  // 78,000 bytes
        let refused = try MIAdmin.as_("mkhan", config: config, ["comment 'jdoe/Generator monthly' '\(long)' --yes"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: comment: a value of 78000 bytes is longer than the 65536 bytes allowed "
                + "(limits.commentBytes in the config); nothing was changed\n", "\(refused.stderr.prefix(300))")
        let audit = try MIAdmin.as_("mkhan", config: config, format: "csv", ["audit --command comment"])
        #expect(audit.status == 0 && audit.lines.count <= 1, "no comment was stored: \(audit.stdout)")

        let note = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith --note '\(long)'"])
        #expect(note.status == 1 && note.stderr.contains("move: a value of 78000 bytes"), "\(note.stderr.prefix(200))")
    }

    @Test func theSiteMayAllowLongerComments() throws {
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            try fixture.store(importing: Paths.copyOfSampleTree())))) as! [String: Any]
        setKey(&object, "limits.commentBytes", 131_072)
        let dir = try TempDir.make()
        let config = dir + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let long = String(repeating: "Lager heiß. ", count: 6_000)
        let accepted = try MIAdmin.as_("mkhan", config: config, ["comment 'jdoe/Generator monthly' '\(long)'"])
        #expect(accepted.status == 0, "\(accepted.stderr.prefix(300))")

        setKey(&object, "limits.commentBytes", 12)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
        let bad = try MIAdmin.as_("mkhan", config: config, ["whoami"])
        #expect(bad.status == 1 && bad.stderr.contains("limits.commentBytes must be a whole number of bytes from 1024"), "\(bad.stderr)")
    }
}
