import Foundation
import MITestSupport
import Testing

/// psql's way in scripts: `-v`, `\set`, `:NAME`, `\if`, `\gset`, through the built binary.
@Suite struct ScriptVariableTests {
    let fixture = Fixture.shared

    func script(_ text: String) throws -> String {
        let path = try TempDir.make() + "/script.mi"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"] + arguments,
                        password: fixture.password("mkhan"), input: input)
    }

    @Test func dashVAndSetAreSubstitutedQuotedOrAsTheyAre() throws {
        let path = try script("""
            users :tech
            \\set who "O'Brien, Se*"
            users :'who'
            \\echo :tech and :'who' :{?tech} :{?nobody}
            \\unset tech
            \\echo :{?tech}
            """)
        let result = try run(["-v", "tech=jdoe", "--format", "csv", "-f", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jdoe,John Doe"))
        #expect(result.stdout.contains("sobrien,"), "a name with a quote, comma and space stays one argument")
        // \echo's words are tokenized like any line's: the quoted value comes back as it was set.
        #expect(result.stdout.contains("jdoe and O'Brien, Se* true false\n"))
        #expect(result.stdout.hasSuffix("false\n"))
    }

    @Test func substitutionAppliesToDashCAndPipes() throws {
        let dashC = try run(["--set", "tech=asmith", "--format", "csv", "-c", "users :tech"])
        #expect(dashC.status == 0, "\(dashC.stderr)")
        #expect(dashC.stdout.contains("asmith,Anna Smith"))
        let pipe = try run(["-v", "tech=asmith", "--format", "csv"], input: "\\set other nbody\nusers :other\n")
        #expect(pipe.status == 0, "\(pipe.stderr)")
        #expect(pipe.stdout.contains("nbody,Nora Body"))
    }

    @Test func anUnsetVariableIsAnErrorNamingItAndRunsNothing() throws {
        let result = try run(["-f", try script("whoami\nusers :tehc\nusers nbody\n")])
        #expect(result.status == 3)
        #expect(result.stderr.contains(":2: variable 'tehc' is not set"), "\(result.stderr)")
        #expect(!result.stdout.contains("Nora Body"))
    }

    @Test func aBadDashVIsAUsageError() throws {
        let result = try run(["-v", "no-equals", "-c", "whoami"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("-v takes NAME=VALUE"))
        #expect(result.stdout.isEmpty)
    }

    /// Text written before variables existed means what it meant: quoted colons, times,
    /// `host:port`, a backslash before a colon.
    @Test func aScriptWithoutVariablesRunsAsBefore() throws {
        let result = try run(["--format", "csv", "-f", try script("""
            users 'x:y' --role technician
            audit --since 2026-01-01T10:00:00Z --last 1
            users \\:nobody
            """)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func builtInsFollowEachCommand() throws {
        let path = try script("""
            \\echo :USER :ROLE :ERROR :LAST_EXIT
            users --role technician 'j*'
            \\echo rows :ROW_COUNT error :ERROR
            users 'u0000?'
            \\echo listed :ROW_COUNT
            users --role nosuchrole
            \\echo rows :ROW_COUNT error :ERROR exit :LAST_EXIT
            \\echo still :ERROR after a backslash command
            """)
        let result = try run(["--on-error", "continue", "-f", path])
        #expect(result.status == 3)
        #expect(result.stdout.contains("mkhan foreman false 0\n"))
        #expect(result.stdout.contains("rows 1 error false\n"))
        #expect(result.stdout.contains("listed 9\n"))
        #expect(result.stdout.contains("rows 0 error true exit 1\n"))
        #expect(result.stdout.contains("still true after a backslash command\n"))
    }

    /// `CREWS`: the crews the user may see, as `teams` lists them.
    @Test func crewsNamesTheCrewsOfTheSession() throws {
        let crews = CrewDirectory.fixture
        let config = try CrewDirectory.groupsConfig()
        let foreman = try MIAdmin.as_("mkhan", config: config, ["\\echo :CREWS"], fixture: crews)
        #expect(foreman.stdout == "Kolonne Nord\n", "\(foreman.stderr)")
        let noCrews = try run(["-c", "\\echo [:CREWS]"])
        #expect(noCrews.stdout == "[]\n", "a site without crews: \(noCrews.stderr)")
    }

    @Test func conditionalsNestAndSkipFalseBranchesUnread() throws {
        let path = try script("""
            \\if :{?tech}
              \\echo tech is :tech
              \\if false
                \\echo never :unset_variable
              \\elif on
                \\echo nested elif
              \\else
                \\echo never
              \\endif
            \\elif false
              \\echo never
            \\else
              users :not_set_either
            \\endif
            \\if OFF
              \\if nonsense
              \\endif
            \\else
              \\echo done
            \\endif
            """)
        let result = try run(["-v", "tech=jdoe", "-f", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "tech is jdoe\nnested elif\ndone\n")
        let without = try run(["-f", path])
        #expect(without.status == 3)
        #expect(without.stderr.contains(":13: variable 'not_set_either' is not set"), "\(without.stderr)")
    }

    @Test func aBadBooleanNamesTheValueAndAnUnclosedIfIsAnError() throws {
        let bad = try run(["-v", "flag=maybe", "-f", try script("\\if :flag\nwhoami\n\\endif\n")])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains(":1: \\if: 'maybe' is not a boolean"), "\(bad.stderr)")
        let unclosed = try run(["-f", try script("\\if true\nwhoami\n")])
        #expect(unclosed.status == 3)
        #expect(unclosed.stderr.contains("\\if without \\endif"), "\(unclosed.stderr)")
        #expect(unclosed.stdout.contains("mkhan"))
        let spelled = try run(["-v", "cond=\\if true", "-c", ":cond"])
        #expect(spelled.status == 1)
        #expect(spelled.stderr.contains("\\if must be written at the start of its line"), "\(spelled.stderr)")
        let stray = try run(["-f", try script("\\endif\n")])
        #expect(stray.status == 3)
        #expect(stray.stderr.contains(":1: \\endif without a matching \\if"))
    }

    /// `--on-error continue` with `\if :ERROR`: the script sees the failure and recovers.
    @Test func onErrorContinueWithIfErrorRecovers() throws {
        let path = try script("""
            users --role nosuchrole
            \\if :ERROR
              \\warn the listing failed (exit :LAST_EXIT); listing technicians instead
              users --role technician jdoe
            \\endif
            """)
        let result = try run(["--on-error", "continue", "--format", "csv", "-f", path])
        #expect(result.status == 3, "a failure is still reported at the end")
        #expect(result.stderr.contains("the listing failed (exit 1); listing technicians instead"))
        #expect(result.stdout.contains("jdoe,John Doe"))
    }

    @Test func gsetSetsOneVariablePerColumnOfOneRow() throws {
        let path = try script("""
            whoami \\gset me_
            users --role technician zangstrom \\gset
            \\echo :me_uid is :me_name; :uid is :name
            """)
        let result = try run(["--format", "json", "-f", path])
        #expect(result.status == 0, "\(result.stderr)")
        // \gset prints nothing itself: the run's only output is the echo (and JSON's empty array).
        #expect(result.stdout.contains("mkhan is Mariam Khan; zangstrom is Zoë Ångström\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("\"uid\""))
    }

    @Test func gsetOfNoneOrSeveralRowsIsAnErrorNamingTheCount() throws {
        let none = try run(["-c", "users nosuchuser \\gset"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("returned 0 rows"), "\(none.stderr)")
        let several = try run(["-c", "users --role technician 'u0000*' \\gset"])
        #expect(several.status == 1)
        #expect(several.stderr.contains("\\gset needs a result of exactly one row"))
        #expect(several.stdout.isEmpty)
        let builtin = try run(["-c", "\\echo hi \\gset"])
        #expect(builtin.status == 1)
        #expect(builtin.stderr.contains("\\gset captures a command's result; \\echo has none"), "\(builtin.stderr)")
        let quoted = try run(["--format", "csv", "-c", "users '\\gset'"])
        #expect(quoted.status == 0, "a quoted \\gset is a word: \(quoted.stderr)")
    }
}
