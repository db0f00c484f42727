import Foundation
import MITestSupport
import Testing

/// psql's script habits that a psql user writes without thinking, through the built binary:
/// the echo commands, `\unset` of several, `\i`/`\ir`, `:"x"`, boolean prefixes, `-v NAME`,
/// the built-in variables nobody may set, and `ON_ERROR_STOP`.
@Suite(.tags(.endToEnd, .ldap)) struct PsqlHabitTests {
    let fixture = Fixture.shared

    func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"] + arguments,
                        password: fixture.password("mkhan"), input: input)
    }

    func write(_ text: String, _ path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func echoQechoAndWarnWithAndWithoutNewline() throws {
        let dir = try TempDir.make()
        let result = try run([], input: """
            \\echo -n one
            \\echo two
            \\warn -n three
            \\warn four
            \\o \(dir)/out.txt
            \\echo to stdout
            \\qecho -n 'to the '
            \\qecho file
            \\o

            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "onetwo\nto stdout\n", "\(result.stdout)")
        #expect(result.stderr == "threefour\n", "\(result.stderr)")
        #expect(try String(contentsOfFile: dir + "/out.txt", encoding: .utf8) == "to the file\n")
    }

    @Test func unsetTakesSeveralNamesAndWarnsAboutOnesNotSet() throws {
        let result = try run(["-v", "a=1", "-v", "b=2"], input: "\\unset a nope b\n\\echo :{?a} :{?b}\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "false false\n", "\(result.stdout)")
        #expect(result.stderr.contains("\\unset: variable 'nope' was not set"), "\(result.stderr)")
    }

    /// `\ir` finds its file beside the running script, wherever the console was started;
    /// `\i` is `source`.
    @Test func iAndIrSourceAFileIrBesideTheScript() throws {
        let dir = try TempDir.make()
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false)
        try write("\\echo inner ran\n", dir + "/sub/inner.mi")
        try write("\\ir inner.mi\n\\i \(dir)/sub/inner.mi\n\\ir sub/missing.mi\n", dir + "/sub/main.mi")
        let result = try run(["-f", dir + "/sub/main.mi"])
        #expect(result.stdout == "inner ran\ninner ran\n", "\(result.stdout)")
        #expect(result.status == 3)
        #expect(result.stderr.contains("cannot read '\(dir)/sub/sub/missing.mi': no such file"), "\(result.stderr)")
    }

    /// `:"x"` is the value as one double-quoted word, never the literal text `:x`.
    @Test func doubleQuotedReferenceIsOneWordOrAnErrorNamingIt() throws {
        let result = try run(["-v", #"name=Pump "4" \ a"#], input: "\\echo [:\"name\"]\n\\set w 'John Doe'\nusers :\"w\"\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(#"[Pump "4" \ a]"#), "\(result.stdout)")
        #expect(result.stdout.contains("jdoe"), "users 'John Doe' matched by name: \(result.stdout)")
        let unset = try run(["-c", "forms --owner :\"form\""])
        #expect(unset.status == 1)
        #expect(unset.stderr.contains("variable 'form' is not set"), "\(unset.stderr)")
    }

    @Test func booleanWordsTakeUniquePrefixes() throws {
        let result = try run([], input: """
            \\if t
            \\echo t is true
            \\endif
            \\if of
            \\echo never
            \\elif Y
            \\echo Y is true
            \\endif
            \\if o
            \\endif

            """)
        #expect(result.stdout == "t is true\nY is true\n", "\(result.stdout)")
        #expect(result.status == 3)
        #expect(result.stderr.contains("'o' is not a boolean"), "\(result.stderr)")
    }

    /// `:USER` is always who is logged in: neither `-v` nor `\set` nor `\unset` reaches the
    /// six built-ins.
    @Test func builtInVariablesAreRefused() throws {
        let spoofed = try run(["-v", "USER=lchen", "-c", "\\echo :USER"])
        #expect(spoofed.status == 1)
        #expect(spoofed.stderr.contains("USER is set by the console"), "\(spoofed.stderr)")
        #expect(!spoofed.stdout.contains("lchen"))
        for line in ["\\set USER lchen", "\\set ROW_COUNT 9", "\\unset ERROR", "\\set CREWS x", "\\set ROLE support",
                     "\\set LAST_EXIT 0"] {
            let result = try run(["--on-error", "continue"], input: line + "\n\\echo :USER :ROW_COUNT :ERROR\n")
            #expect(result.status == 3, "\(line)")
            #expect(result.stderr.contains("is set by the console"), "\(line): \(result.stderr)")
            #expect(result.stdout == "mkhan 0 false\n", "\(line): \(result.stdout)")
        }
    }

    @Test func vWithoutValueUnsets() throws {
        let result = try run(["-v", "x=1", "-v", "x", "-c", "\\echo :{?x}"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "false\n")
    }

    /// `ON_ERROR_STOP` is psql's name for `--on-error`: off goes on past a failure, on stops.
    @Test func onErrorStopChoosesWhetherAFailureStops() throws {
        let goesOn = try run([], input: "\\set ON_ERROR_STOP off\nfrobnicate\n\\echo after\n")
        #expect(goesOn.stdout == "after\n", "\(goesOn.stderr)")
        #expect(goesOn.status == 3, "a line failed")
        let stops = try run(["--on-error", "continue", "-v", "ON_ERROR_STOP=1"], input: "frobnicate\n\\echo after\n")
        #expect(stops.stdout.isEmpty)
        #expect(stops.status == 3)
        let bad = try run(["-c", "\\set ON_ERROR_STOP sometimes"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("'sometimes' is not a boolean"), "\(bad.stderr)")
    }

    /// `\if` compares in pgbench's syntax; `\let` evaluates while `\set` still joins words; a
    /// variable is one operand whatever it holds.
    @Test func ifComparesAndLetEvaluates() throws {
        let result = try run(["-v", "state=held", "-v", "odd=a=b OR 1)"], input: """
            whoami
            \\if :ROW_COUNT > 0 AND NOT :ERROR
            \\echo one row
            \\endif
            \\let n :ROW_COUNT * 2 + 1
            \\set joined 1 + 1
            \\echo n is :n, joined is :joined
            \\if :n = 3 AND :'state' = 'held'
            \\echo three and held
            \\endif
            \\if :n >= 10 OR (:'state' <> 'held')
            \\echo never
            \\elif :'odd' = 'a=b OR 1)'
            \\echo odd is one operand
            \\endif
            \\if :n != 3
            \\echo never
            \\else
            \\echo not unequal
            \\endif

            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("one row\nn is 3, joined is 1+1\nthree and held\nodd is one operand\nnot unequal\n"),
                "\(result.stdout)")
        let zero = try run(["-c", "\\let x 7 / 0"])
        #expect(zero.status == 1)
        #expect(zero.stderr.contains("\\let: division by zero"), "\(zero.stderr)")
        let short = try run(["-v", "n=1", "-c", "\\if :n >", "-c", "\\endif"])
        #expect(short.status == 1)
        #expect(short.stderr.contains("\\if: the expression ends too soon"), "\(short.stderr)")
    }

    /// `\o /dev/null` (a character device) is written as it is; a fifo is still refused.
    @Test func oTakesACharacterDeviceButNotAFifo() throws {
        let null = try run(["--format", "json", "-c", "\\o /dev/null", "-c", "whoami", "-c", "\\o", "-c", "\\echo back"])
        #expect(null.status == 0, "\(null.stderr)")
        #expect(null.stdout.hasPrefix("back\n"), "\(null.stdout)")
        #expect(!null.stdout.contains("mkhan"))
        let dir = try TempDir.make()
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        let fifo = try run(["-c", "\\o \(dir)/fifo"])
        #expect(fifo.status == 1)
        #expect(fifo.stderr.contains("not a regular file or a character device"), "\(fifo.stderr)")
    }

    /// psql's `\\` runs several commands from one line; a quoted `\\` is text.
    @Test func backslashBackslashSeparatesCommands() throws {
        let result = try run([], input: "whoami \\gset p_ \\\\ \\echo :p_uid\n\\echo 'a \\\\ b' \\\\ \\echo c\n"
                             + "\\set x 1 \\\\ frobnicate \\\\ \\echo never\n")
        #expect(result.stdout == "mkhan\na \\\\ b\nc\n", "\(result.stdout)")
        #expect(result.status == 3)
        #expect(result.stderr.contains("<stdin>:3: unknown command 'frobnicate'"), "\(result.stderr)")
    }
}
