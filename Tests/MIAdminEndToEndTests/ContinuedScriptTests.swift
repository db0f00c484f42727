import Foundation
import MITestSupport
import Testing

/// `--on-error continue`: a run whose only failures were transient (the office unreachable)
/// exits 2, so a timer can tell "try later" from a script to fix (3).
@Suite struct ContinuedScriptTests {
    let fixture = Fixture.shared

    @Test func transientFailuresOnlyExit2() throws {
        let config = try fixture.config { object in
            // Nothing listens on port 1: the office is unreachable.
            setKey(&object, "delivery.url", "https://127.0.0.1:1/ok")
            setKey(&object, "delivery.timeoutSeconds", 2)
        }
        let imported = try MIAdmin.as_("mkhan", config: config, ["import --yes " + shellQuote(Paths.copyOfSampleTree()),
                                                                  "submit 'jdoe/Generator monthly' --yes"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let dir = try TempDir.make()
        try "whoami\ndeliver\nwhoami\n".write(toFile: dir + "/transient.mi", atomically: true, encoding: .utf8)
        let transient = try MIAdmin.as_("mkhan", config: config, [], extra: ["--on-error", "continue", "-f", dir + "/transient.mi"])
        #expect(transient.status == 2, "\(transient.stderr)")
        #expect(transient.stderr.contains("transient.mi:2: "), "\(transient.stderr)")

        try "deliver\nfrobnicate\n".write(toFile: dir + "/mixed.mi", atomically: true, encoding: .utf8)
        let mixed = try MIAdmin.as_("mkhan", config: config, [], extra: ["--on-error", "continue", "-f", dir + "/mixed.mi"])
        #expect(mixed.status == 3, "\(mixed.stderr)")
    }
}
