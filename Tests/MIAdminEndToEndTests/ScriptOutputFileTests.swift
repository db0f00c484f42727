import Foundation
import MITestSupport
import Testing

/// `\o`, `\echo`, `\warn` and `-q` through the built binary.
@Suite struct ScriptOutputFileTests {
    let fixture = Fixture.shared

    func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"] + arguments,
                        password: fixture.password("mkhan"), input: input)
    }

    @Test func oSendsResultsToAFileUntilOAloneAndEchoGoesWithThem() throws {
        let dir = try TempDir.make()
        let result = try run(["--format", "csv"], input: """
            users jdoe
            \\o \(dir)/report.csv
            \\qecho '# technicians'
            users asmith
            \\o
            users nbody
            \\warn done
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jdoe,John Doe"))
        #expect(result.stdout.contains("nbody,Nora Body"))
        #expect(!result.stdout.contains("asmith"))
        #expect(!result.stdout.contains("# technicians"))
        let file = try String(contentsOfFile: dir + "/report.csv", encoding: .utf8)
        // CSV lines end in CRLF (RFC 4180), the echo in a plain newline.
        #expect(file == "# technicians\nuid,name,mail,roles\r\nasmith,Anna Smith,asmith@example.com,technician\r\n", "\(file)")
        #expect(result.stderr == "done\n")
    }

    /// Each target holds one JSON document: stdout's carries on around the file's.
    @Test func inJSONTheFileAndStdoutAreEachOneDocument() throws {
        let dir = try TempDir.make()
        let result = try run(["--format", "json", "-c", "users jdoe", "-c", "\\o \(dir)/out.json", "-c", "users asmith",
                              "-c", "whoami", "-c", "\\o", "-c", "users nbody"])
        #expect(result.status == 0, "\(result.stderr)")
        let stdout = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any]
        #expect(stdout?.count == 2, "\(result.stdout)")
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json"))) as? [Any]
        #expect(file?.count == 2)
    }

    @Test func oReplacesAFileAndAppendsWithTwoAngles() throws {
        let dir = try TempDir.make()
        try "old\n".write(toFile: dir + "/r.txt", atomically: false, encoding: .utf8)
        let replace = try run(["-c", "\\o \(dir)/r.txt", "-c", "\\qecho first"])
        #expect(replace.status == 0, "\(replace.stderr)")
        #expect(try String(contentsOfFile: dir + "/r.txt", encoding: .utf8) == "first\n")
        let append = try run(["-c", "\\o >>\(dir)/r.txt", "-c", "\\qecho second", "-c", "\\o >> \(dir)/r.txt", "-c", "\\qecho third"])
        #expect(append.status == 0, "\(append.stderr)")
        #expect(try String(contentsOfFile: dir + "/r.txt", encoding: .utf8) == "first\nsecond\nthird\n")
    }

    /// A link planted at the name is neither followed nor replaced, and the line fails.
    @Test func aLinkAtTheNameIsRefused() throws {
        let dir = try TempDir.make()
        try "secret\n".write(toFile: dir + "/victim", atomically: false, encoding: .utf8)
        symlink(dir + "/victim", dir + "/link")
        for target in ["\(dir)/link", ">>\(dir)/link"] {
            let result = try run(["-c", "\\o \(target)", "-c", "\\qecho planted"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("link"), "\(result.stderr)")
        }
        #expect(try String(contentsOfFile: dir + "/victim", encoding: .utf8) == "secret\n")
        let missing = try run(["-c", "\\o /nonexistent-folder/x.txt"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent-folder"))
    }

    @Test func quietLeavesOutRowCountsAndNotes() throws {
        let loud = try run(["-c", "set expanded off", "-c", "users jdoe"])
        #expect(loud.stdout.contains("(1 row)"))
        #expect(loud.stderr.contains("note: expanded is off"))
        let quiet = try run(["-q", "-c", "set expanded off", "-c", "users jdoe"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.contains("jdoe | John Doe"))
        #expect(!quiet.stdout.contains("(1 row)"))
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        let errors = try run(["--quiet", "-c", "users --role nosuchrole"])
        #expect(errors.status == 1)
        #expect(!errors.stderr.isEmpty, "errors are still said")
    }
}
