import Foundation
import MITestSupport
import Testing

/// `\o >>FILE` through the built binary adds only to a file of the user's own: a file another
/// user planted in a shared sticky folder gets no listing, as `store copy --append` refuses it.
@Suite struct PlantedOutputFileTests {
    let fixture = Fixture.shared

    @Test(.enabled(if: getuid() == 0, "needs root to make a file of another user"))
    func appendingToAnotherUsersFileIsRefused() throws {
        let shared = try TempDir.make() + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o1777) == 0)
        let planted = shared + "/listing.txt"
        try "planted\n".write(toFile: planted, atomically: false, encoding: .utf8)
        #expect(chmod(planted, 0o666) == 0)
        #expect(chown(planted, 65534, 65534) == 0)
        let result = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan", "-c", "\\o >>\(planted)", "-c", "users jdoe"],
                                     password: fixture.password("mkhan"))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("belongs to another user: not appended to"), "\(result.stderr)")
        #expect(try String(contentsOfFile: planted, encoding: .utf8) == "planted\n", "nothing reached the planted file")
    }
}
