import Foundation
import MITestSupport
import Testing

/// A user id the directory does not know is an error with the nearest id, in every command
/// that lists for one user id, not an empty table ("lchen changed nothing").
@Suite(.tags(.endToEnd, .ldap)) struct UnknownUserTests {
    let fixture = Fixture.shared

    @Test(arguments: [("audit --user lchn", "lchn", "lchen"), ("notices jdeo", "jdeo", "jdoe"),
                      ("trash --owner jdo", "jdo", "jdoe"), ("workload --owner jdo", "jdo", "jdoe"),
                      ("notifications --user jdeo", "jdeo", "jdoe")])
    func mistypedUserIdSuggestsTheNearest(_ line: String, _ typed: String, _ meant: String) throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let result = try MIAdmin.as_("lchen", config: config, format: "csv", [line])
        #expect(result.status == 1, "\(line): \(result.stdout)")
        #expect(result.stderr.contains("no user '\(typed)' in the directory; did you mean '\(meant)'?"), "\(line): \(result.stderr)")
        // The id meant, even with nothing to list, is no error.
        let known = try MIAdmin.as_("lchen", config: config, format: "csv", [line.replacingOccurrences(of: typed, with: meant)])
        #expect(known.status == 0, "\(known.stderr)")
    }

    @Test func unknownIdWithNothingNearSaysSo() throws {
        let result = try MIAdmin.as_("lchen", format: "csv", ["trash --owner qqqqqqqq"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no user 'qqqqqqqq' in the directory") && !result.stderr.contains("did you mean"),
                "\(result.stderr)")
    }
}
