import Foundation
import MITestSupport
import Testing

/// psql's own regression script cases (src/test/regress/sql/psql.sql), ported to miadmin's
/// commands in Tests/Fixtures/psql-corpus/psql.mi, run through the built binary and compared
/// with the recorded output beside it (as psql's expected/psql.out): stdout and stderr in the
/// order written, and the exit status. Where the output differs from psql's on purpose,
/// docs/user-guide.md ("Coming from psql") lists it.
@Suite(.tags(.endToEnd, .ldap)) struct PsqlCorpusTests {
    let fixture = Fixture.shared
    let folder = Paths.repoRoot + "/Tests/Fixtures/psql-corpus"

    @Test func psqlScriptCasesGiveTheRecordedOutput() throws {
        // From the corpus folder, so messages name `psql.mi:LINE`; stderr joins stdout, so
        // an error stands where it happened, as in psql's expected output.
        let result = try Shell.run("/bin/sh", [
            "-c", "cd \"$1\" && shift && exec \"$0\" \"$@\" 2>&1", Paths.binary, folder,
            "--config", fixture.configPath, "--user", "mkhan", "--on-error", "continue", "-f", "psql.mi",
        ], environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")])
        // A missing file is an empty one: the output is saved for review all the same.
        let expected = (try? String(contentsOfFile: folder + "/expected/psql.out", encoding: .utf8)) ?? ""
        if result.stdout != expected {
            // Outside the test's own folders, which go when the run ends: kept to be read.
            let actual = NSTemporaryDirectory() + "psql-corpus-\(getpid()).out"
            try result.stdout.write(toFile: actual, atomically: true, encoding: .utf8)
            Issue.record("the output differs from expected/psql.out; it is in \(actual) (diff them)")
        }
        // Lines failed and the run went on: psql's regression run does the same.
        #expect(result.status == 3, "\(result.stdout)")
    }
}
