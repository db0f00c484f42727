import Foundation
import MITestSupport
import Testing

/// The rc file (`~/.miadminrc`, else `$XDG_CONFIG_HOME/miadmin/rc`), psql's `~/.psqlrc`: read
/// before `-c`, `-f`, a pipe and the prompt, skipped with `-X`, refused when it is not the
/// user's own or others can write it; its errors name `FILE:LINE`.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct RcFileTests {
    /// A home folder holding `rc` at `name` (mode `mode`).
    func home(rc: String, name: String = ".miadminrc", mode: mode_t = 0o600) throws -> String {
        let home = try TempDir.make()
        let path = home + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try rc.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
        return home
    }

    func run(home: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try MIAdmin.run(["--config", Fixture.shared.configPath, "--user", "mkhan"] + arguments,
                        password: Fixture.shared.password("mkhan"),
                        environment: environment.merging(["HOME": home]) { $1 })
    }

    let settingsRc = "# display settings for every run\n\\set crew 'Kolonne Nord'\nset format csv\n\\timing on\n"

    @Test func anRcFileSetsVariablesAndDisplaySettingsForMinusC() throws {
        let home = try home(rc: settingsRc)
        let result = try run(home: home, ["-c", "whoami", "-c", "\\echo :crew"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("uid,dn,name,"), "set format csv from the rc file: \(result.stdout)")
        #expect(result.stdout.contains("Kolonne Nord\n"), "\(result.stdout)")
        #expect(result.stderr.contains("Time: "), "\\timing on, on stderr beside CSV: \(result.stderr)")
        #expect(!result.stderr.contains("note: format is csv"), "the rc file's own notes are not shown: \(result.stderr)")

        // -X (--no-rc) skips it, as psql's -X skips ~/.psqlrc.
        for flag in ["-X", "--no-rc"] {
            let skipped = try run(home: home, [flag, "-c", "whoami", "-c", "\\echo :{?crew}"])
            #expect(skipped.status == 0, "\(skipped.stderr)")
            #expect(skipped.stdout.hasPrefix("uid ") || skipped.stdout.hasPrefix("uid  "), "a table again: \(skipped.stdout)")
            #expect(skipped.stdout.hasSuffix("false\n") && !skipped.stderr.contains("Time: "), "\(skipped.stdout)")
        }
    }

    @Test func aScriptAndAPipeReadItToo() throws {
        let home = try home(rc: settingsRc)
        let script = home + "/run.mi"
        try "\\echo :crew\n".write(toFile: script, atomically: false, encoding: .utf8)
        let fromFile = try run(home: home, ["-f", script])
        #expect(fromFile.status == 0 && fromFile.stdout == "Kolonne Nord\n", "\(fromFile.stdout)\(fromFile.stderr)")
        let piped = try MIAdmin.run(["--config", Fixture.shared.configPath, "--user", "mkhan"],
                                    password: Fixture.shared.password("mkhan"), environment: ["HOME": home],
                                    input: "\\echo :crew\n")
        #expect(piped.status == 0 && piped.stdout == "Kolonne Nord\n", "\(piped.stdout)\(piped.stderr)")
    }

    @Test func theXDGPlaceIsReadWhenThereIsNoDotFile() throws {
        let home = try home(rc: "\\set where xdg\n", name: "conf/miadmin/rc")
        let result = try run(home: home, ["-c", "\\echo :where"], environment: ["XDG_CONFIG_HOME": home + "/conf"])
        #expect(result.status == 0 && result.stdout == "xdg\n", "\(result.stdout)\(result.stderr)")
        // Without XDG_CONFIG_HOME: ~/.config/miadmin/rc.
        let dotConfig = try self.home(rc: "\\set where dotconfig\n", name: ".config/miadmin/rc")
        let fallback = try run(home: dotConfig, ["-c", "\\echo :where"])
        #expect(fallback.stdout == "dotconfig\n", "\(fallback.stdout)\(fallback.stderr)")
    }

    @Test func errorsInItNameFileAndLineAndTheRunGoesOn() throws {
        let home = try home(rc: "\\set ok yes\nforms\n\\bogus\nset format yaml\n")
        let result = try run(home: home, ["-c", "\\echo :ok"])
        let rc = home + "/.miadminrc"
        #expect(result.status == 0, "the command line still runs: \(result.stderr)")
        #expect(result.stdout == "yes\n", "\(result.stdout)")
        #expect(result.stderr.contains("\(rc):2: an rc file holds backslash commands and 'set' (display settings), not 'forms'"),
                "\(result.stderr)")
        #expect(result.stderr.contains("\(rc):3: "), "\(result.stderr)")
        #expect(result.stderr.contains("\(rc):4: ") && result.stderr.contains("yaml"), "\(result.stderr)")
    }

    @Test func anRcFileOthersCanWriteIsRefused() throws {
        for mode: mode_t in [0o666, 0o620] {
            let home = try home(rc: settingsRc, mode: mode)
            let result = try run(home: home, ["-c", "whoami"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("warning: \(home)/.miadminrc is not read: others can write it ('chmod go-w' makes it yours alone)"),
                    "\(result.stderr)")
            #expect(!result.stdout.hasPrefix("uid,"), "nothing of it was run: \(result.stdout)")
        }
    }

    @Test func anRcFilePlantedByAnotherUserIsRefused() throws {
        // Planting a file that belongs to someone else takes root (the tests' usual user here).
        guard getuid() == 0 else { return }
        let home = try home(rc: settingsRc)
        #expect(chown(home + "/.miadminrc", 65534, 65534) == 0)
        let result = try run(home: home, ["-c", "whoami"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(home)/.miadminrc is not read: it belongs to another user"), "\(result.stderr)")
        #expect(!result.stdout.hasPrefix("uid,"), "\(result.stdout)")
    }

    @Test func thePromptReadsItAtStart() throws {
        let home = try home(rc: "\\x on\n\\set greeting 'hello from the rc file'\n")
        let term = try TerminalSession(uid: "mkhan", home: home, size: (80, 24))
        try term.waitFor("mkhan@foreman> ")
        try term.enter("users nbody")
        let screen = try term.waitFor("-[ RECORD 1 ]")
        #expect(!screen.contains("note: expanded is on"), "\(screen)")
        try term.enter("\\echo :greeting")
        try term.waitFor("hello from the rc file")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }
}
