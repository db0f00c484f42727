import Foundation
import MITestSupport
import Testing

/// `~` and `~/` in every option that names a file or a folder mean `$HOME`, as in a shell,
/// and what the command says it wrote names the expanded path.
@Suite struct HomePathTests {
    let fixture = Fixture.shared

    @Test func aTildeIsTheUsersHomeInEveryFileOption() throws {
        let config = try fixture.config()
        let home = try TempDir.make()
        try FileManager.default.moveItem(atPath: try Paths.copyOfSampleTree(), toPath: home + "/Documents")
        try "whoami\n".write(toFile: home + "/script.mi", atomically: true, encoding: .utf8)
        var arguments = ["--config", config, "--user", "mkhan", "--yes"]
        for command in ["import ~/Documents",
                        "report 'jdoe/Pump station 4' --pdf ~/r.pdf",
                        "notifications --ics ~/plan.ics",
                        "\\o ~/out.txt", "whoami", "\\o",
                        "source ~/script.mi",
                        "store backup ~/backup.sqlite",
                        "store copy --to ~/copy.sqlite",
                        "export ~/exported"] {
            arguments += ["-c", command]
        }
        let result = try MIAdmin.run(arguments, password: fixture.password("mkhan"), environment: ["HOME": home])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["r.pdf", "plan.ics", "out.txt", "backup.sqlite", "copy.sqlite", "exported"] {
            #expect(FileManager.default.fileExists(atPath: home + "/" + name), "\(name) not in $HOME: \(result.stdout) \(result.stderr)")
        }
        #expect(result.stdout.contains("mkhan"), "the sourced script ran: \(result.stdout)")
        #expect((try? String(contentsOfFile: home + "/out.txt", encoding: .utf8))?.contains("mkhan") == true)
        #expect((result.stdout + result.stderr).contains(home + "/r.pdf"), "the echo names the expanded path: \(result.stdout)")
        #expect(!(result.stdout + result.stderr).contains("~/"), "\(result.stdout) \(result.stderr)")
    }
}
