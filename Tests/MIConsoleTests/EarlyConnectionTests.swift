import Foundation
import Logging
import MICommands
import MIDirectory
import Testing
@testable import MIConsole

@Suite("Directory connection started before the command line is parsed")
struct EarlyConnectionTests {
    @Test func theConfigGuessReadsTheCommandLineAsArgumentParserDoes() {
        #expect(EarlyDirectoryConnection.configArgument(["--user", "mkhan", "--config", "/a.json"]) == "/a.json")
        #expect(EarlyDirectoryConnection.configArgument(["--config=/b.json", "-c", "whoami"]) == "/b.json")
        #expect(EarlyDirectoryConnection.configArgument(["-c", "whoami"]) == nil)
        // A value that looks like the option is a value, and `--` ends the options.
        #expect(EarlyDirectoryConnection.configArgument(["-c", "--config", "--config", "/c.json"]) == "/c.json")
        #expect(EarlyDirectoryConnection.configArgument(["--", "--config", "/d.json"]) == nil)
        #expect(EarlyDirectoryConnection.configArgument(["--config"]) == nil)
    }

    @Test func runsThatDoNotLogInStartNoConnection() {
        #expect(EarlyDirectoryConnection.logsIn(["--user", "mkhan", "-c", "whoami"]))
        for arguments in [["--help"], ["-h"], ["--version"], ["--init-store", "--config", "/a.json"],
                          ["--generate-completion-script", "bash"], ["--generate-manual"]] {
            #expect(!EarlyDirectoryConnection.logsIn(arguments), "\(arguments)")
        }
    }

    /// The guess is used only for the file it was made for and the settings read from it; a
    /// connection that failed hands its error to the login.
    @Test func aGuessIsUsedOnlyForItsOwnConfigAndKeepsItsError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("early-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.json"
        // Port 1 on the loopback: nothing listens, so the connect fails at once.
        let json = """
            {"ldap": {"uri": "ldap://127.0.0.1:1", "startTLS": true, "baseDN": "dc=example,dc=com",
                      "userBase": "ou=people,dc=example,dc=com", "timeoutSeconds": 2,
                      "groups": {"foreman": "cn=f,dc=example,dc=com", "technician": "cn=t,dc=example,dc=com",
                                 "support": "cn=s,dc=example,dc=com"}},
             "store": {"path": "\(dir)/store.sqlite"}}
            """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        let early = EarlyDirectoryConnection(configPath: path, logger: Logger(label: "test"))

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
