import Foundation
import MICommands
import MIDirectory
import Testing
@testable import MILaunch

@Suite("Directory connection started before the command line is parsed")
struct EarlyConnectionTests {
    /// The guess agrees with the one parser of the command line (argument-parser's, through
    /// MIAdminCommand) on ordinary command lines.
    @Test func theConfigGuessAgreesWithTheParserOnOrdinaryCommandLines() throws {
        for arguments in [["--user", "mkhan", "--config", "/a.json"], ["--config=/b.json", "-c", "whoami"],
                          ["-c", "whoami"], ["--format", "csv", "--config", "/c.json", "-f", "x.mi"]] {
            let parsed = try #require(try MIAdminCommand.parseAsRoot(arguments) as? MIAdminCommand)
            #expect(EarlyDirectoryConnection.configArgument(arguments) == parsed.config, "\(arguments)")
        }
        #expect(EarlyDirectoryConnection.configArgument(["--", "--config", "/d.json"]) == nil)
        #expect(EarlyDirectoryConnection.configArgument(["--config"]) == nil)
    }

    /// Where the guess reads a command line otherwise than the parser would (an option whose
    /// value is the word `--config`), the parser refuses the command line, so the run never
    /// reaches the guess; and a guess for another file than the parsed one is dropped.
    @Test func aGuessTheParserContradictsIsNeverUsed() throws {
        for arguments in [["-c", "--config", "/c.json"], ["--user", "--config", "/c.json"]] {
            #expect(EarlyDirectoryConnection.configArgument(arguments) == "/c.json")
            #expect(throws: (any Error).self, "\(arguments)") { try MIAdminCommand.parseAsRoot(arguments) }
        }
        let dir = try Self.writeConfig()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.json"
        let started = EarlyDirectoryConnection.start(arguments: { ["--config", path] })
        let guess = try #require(started)
        #expect(guess.config(ifLoadedFrom: dir + "/other.json") == nil)
        #expect(guess.config(ifLoadedFrom: path) != nil)
    }

    @Test func runsThatDoNotLogInStartNoConnection() {
        #expect(EarlyDirectoryConnection.logsIn(["--user", "mkhan", "-c", "whoami"]))
        for arguments in [["--help"], ["-h"], ["--version"], ["--init-store", "--config", "/a.json"],
                          ["--generate-completion-script", "bash"], ["--generate-manual"]] {
            #expect(!EarlyDirectoryConnection.logsIn(arguments), "\(arguments)")
        }
    }

    /// A run guessed not to log in gets neither a config nor a connection, and asking for them
    /// does not wait forever; a run that names a config gets that one.
    @Test func theGuessFollowsTheCommandLineItReads() throws {
        let helpGuess = EarlyDirectoryConnection.start(arguments: { ["--help"] })
        let help = try #require(helpGuess)
        #expect(help.config(ifLoadedFrom: "/etc/miadmin/config.json") == nil)
        let dir = try Self.writeConfig()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.json"
        let namedGuess = EarlyDirectoryConnection.start(arguments: { ["--config", path, "-c", "whoami"] })
        let named = try #require(namedGuess)
        #expect(named.config(ifLoadedFrom: path)?.ldap.uri == "ldap://127.0.0.1:1")
        let settings = try #require(named.config(ifLoadedFrom: path)).directorySettings()
        #expect(help.connection(for: settings) == nil)
        #expect(named.connection(for: settings) != nil)
    }

    /// The guess reads only the variables it needs, with the values Foundation gives.
    @Test func theGuessReadsOnlyItsOwnVariables() {
        let environment = EarlyDirectoryConnection.guessEnvironment()
        let names: Set = ["MIADMIN_CONFIG", "HOME", "XDG_CONFIG_HOME", "MIADMIN_LOG_LEVEL"]
        #expect(Set(environment.keys).isSubset(of: names))
        for name in names {
            #expect(environment[name] == ProcessInfo.processInfo.environment[name], "\(name)")
        }
    }

    /// A new temporary folder holding `config.json`, a config whose directory is port 1 on the
    /// loopback (nothing listens, so a connect fails at once); returns the folder.
    static func writeConfig() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("early-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try configJSON(dir: dir).write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        return dir
    }

    static func configJSON(dir: String) -> String {
        """
        {"ldap": {"uri": "ldap://127.0.0.1:1", "startTLS": true, "baseDN": "dc=example,dc=com",
                  "userBase": "ou=people,dc=example,dc=com", "timeoutSeconds": 2,
                  "groups": {"foreman": "cn=f,dc=example,dc=com", "technician": "cn=t,dc=example,dc=com",
                             "support": "cn=s,dc=example,dc=com"}},
         "store": {"path": "\(dir)/store.sqlite"}}
        """
    }

    /// The guess is used only for the file it was made for and the settings read from it; a
    /// connection that failed hands its error to the login.
    @Test func aGuessIsUsedOnlyForItsOwnConfigAndKeepsItsError() throws {
        let dir = try Self.writeConfig()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.json"
        let guess = EarlyDirectoryConnection.start(arguments: { ["--config", path, "--user", "mkhan"] })
        let early = try #require(guess)

        #expect(early.config(ifLoadedFrom: dir + "/other.json") == nil)
        let config = try #require(early.config(ifLoadedFrom: path))
        #expect(config.ldap.uri == "ldap://127.0.0.1:1")

        let settings = try config.directorySettings()
        var other = settings
        other.connection.uri = "ldap://127.0.0.1:2"
        #expect(early.connection(for: other) == nil)
        other = settings
        other.bindDN = "cn=someone-else,dc=example,dc=com"
        #expect(early.connection(for: other) == nil)

        let opening = try #require(early.connection(for: settings))
        #expect {
            _ = try opening()
        } throws: { error in
            (error as? DirectoryError)?.kind == .unreachable
        }
    }
}
