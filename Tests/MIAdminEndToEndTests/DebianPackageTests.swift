import Foundation
import MITestSupport
import Testing

/// The Debian package (Scripts/package) on this machine: built from the release binary, checked
/// by lintian, installed with apt-get, upgraded, removed and purged, and what each step leaves.
/// Needs root and dpkg; leaves the machine as it found it: a config or store folder already in
/// /etc/miadmin or /var/lib/miadmin is moved aside and put back, a group the test made is
/// removed, and a binary Scripts/install put in /usr/local/bin is not touched.
/// Whether dpkg knows a miadmin package here (installed, or removed with its config kept).
private func packageIsInstalled() -> Bool {
    let query = try? Shell.run("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Status}", "miadmin"])
    return query?.status == 0 && query?.stdout != "not-installed"
}

@Suite(.tags(.endToEnd), .serialized,
       .enabled(if: getuid() == 0, "needs root: installs and purges a package"),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get")
                    && FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian"),
                "needs apt-get and lintian (Scripts/install-deps)"),
       .enabled(if: !packageIsInstalled(), "a miadmin package is installed here; not replaced by a test"))
struct DebianPackageTests {

    struct PackageError: Error, CustomStringConvertible { let description: String }

    static func root(_ program: String, _ arguments: [String], deadline: TimeInterval = 600) throws -> ProcessResult {
        try Shell.run(program, arguments, environment: ["DEBIAN_FRONTEND": "noninteractive",
                                                        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], deadline: deadline)
    }

    /// Whether dpkg has the package `name` installed now.
    static func installed(_ name: String) throws -> Bool {
        let query = try Shell.run("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Status}", name])
        return query.status == 0 && query.stdout == "installed"
    }

    static func apt(_ arguments: [String]) throws -> ProcessResult {
        try root("/usr/bin/apt-get", ["-o", "DPkg::Lock::Timeout=300", "-y", "--no-install-recommends"] + arguments)
    }

    struct Mode: Equatable, CustomStringConvertible {
        let mode: mode_t, uid: uid_t, gid: gid_t, inode: ino_t
        var description: String { "\(uid):\(gid) \(String(mode, radix: 8))" }
        init?(_ path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            mode = info.st_mode & 0o7777
            uid = info.st_uid
            gid = info.st_gid
            inode = info.st_ino
        }
    }

    static func group(_ name: String) -> gid_t? { getgrnam(name)?.pointee.gr_gid }

    /// The package built once: Scripts/package with the release build when one exists (it
    /// builds one otherwise, minutes).
    static func build() throws -> (deb: String, ddeb: String, stderr: String) {
        let out = try TempDir.make()
        var arguments = ["--out", out]
        let release = Paths.repoRoot + "/.build-static/release/miadmin"
        if FileManager.default.isExecutableFile(atPath: release) { arguments += ["--binary", release] }
        let run = try Shell.run(Paths.repoRoot + "/Scripts/package", arguments, deadline: 3_600)
        guard run.status == 0 else { throw PackageError(description: "Scripts/package failed: \(run.stderr)") }
        let deb = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let ddeb = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasSuffix(".ddeb") })
        return (deb, out + "/" + ddeb, run.stderr)
    }

    /// A copy of `deb` with another version: what the next release's package looks like to dpkg.
    static func repacked(_ deb: String, version: String) throws -> String {
        let dir = try TempDir.make()
        #expect(try root("/usr/bin/dpkg-deb", ["-R", deb, dir + "/tree"]).status == 0)
        let control = dir + "/tree/DEBIAN/control"
        let text = try String(contentsOfFile: control, encoding: .utf8)
            .replacingOccurrences(of: #"(?m)^Version: .*$"#, with: "Version: \(version)", options: .regularExpression)
        try text.write(toFile: control, atomically: true, encoding: .utf8)
        let out = dir + "/miadmin_\(version)_next.deb"
        #expect(try root("/usr/bin/dpkg-deb", ["--root-owner-group", "--build", dir + "/tree", out]).status == 0)
        return out
    }

    @Test func buildLintInstallUpgradeRemovePurge() throws {
        let package = try Self.build()

        // lintian: no errors, at most two warnings (each other finding is overridden with a reason).
        let lint = try Self.root("/usr/bin/lintian", [package.deb, package.ddeb])
        let findings = lint.stdout.split(separator: "\n").map(String.init)
        #expect(!findings.contains { $0.hasPrefix("E: ") }, "\(lint.stdout)")
        #expect(findings.filter { $0.hasPrefix("W: ") }.count <= 2, "\(lint.stdout)")

        // The binary's relocations are DT_RELR, which glibc applies from 2.36 on; dpkg-shlibdeps
        // alone asks for 2.35.
        let depends = try Shell.run("/usr/bin/dpkg-deb", ["-f", package.deb, "Depends"])
        #expect(depends.stdout.contains("libc6 (>= 2.36)"), "\(depends.stdout)")

        // The machine as found, put back whatever happens below.
        let aside = try TempDir.make()
        let moved = ["/etc/miadmin", "/var/lib/miadmin"].filter { FileManager.default.fileExists(atPath: $0) }
        for path in moved { try FileManager.default.moveItem(atPath: path, toPath: aside + "/" + URL(fileURLWithPath: path).lastPathComponent) }
        let groupBefore = Self.group("miadmin")
        let personal = Mode("/usr/local/bin/miadmin")
        defer {
            _ = try? Self.apt(["purge", "miadmin", "miadmin-dbgsym"])
            try? FileManager.default.removeItem(atPath: "/var/lib/miadmin")
            try? FileManager.default.removeItem(atPath: "/etc/miadmin")
            for path in moved { try? FileManager.default.moveItem(atPath: aside + "/" + URL(fileURLWithPath: path).lastPathComponent, toPath: path) }
            if groupBefore == nil, Self.group("miadmin") != nil { _ = try? Self.root("/usr/sbin/groupdel", ["miadmin"]) }
        }

        let install = try Self.apt(["install", package.deb, package.ddeb])
        try #require(install.status == 0, "\(install.stdout)\n\(install.stderr)")
        let gid = try #require(Self.group("miadmin"), "the postinst made the group")
        #expect(Mode("/usr/bin/miadmin").map { ($0.mode, $0.uid, $0.gid) == (0o2755, 0, gid) } == true,
                "\(String(describing: Mode("/usr/bin/miadmin")))")
        #expect(Mode("/var/lib/miadmin").map { ($0.mode, $0.uid, $0.gid) == (0o2770, 0, gid) } == true,
                "\(String(describing: Mode("/var/lib/miadmin")))")
        let overrides = try Self.root("/usr/bin/dpkg-statoverride", ["--list"]).stdout
        #expect(overrides.contains("root miadmin 2755 /usr/bin/miadmin") && overrides.contains("root miadmin 2770 /var/lib/miadmin"),
                "\(overrides)")
        // The installed binary knows it is the installed one: no config of the caller's, and the
        // store folder is closed to everybody else.
        let nobody = try Self.root("/usr/sbin/runuser", ["-u", "nobody", "--", "/usr/bin/miadmin", "--config", "/tmp/mine.json", "-c", "whoami"])
        #expect(nobody.status == 1 && nobody.stderr.contains("--config is not allowed"), "\(nobody.stderr)")
        #expect(try Self.root("/usr/sbin/runuser", ["-u", "nobody", "--", "/usr/bin/test", "-r", "/var/lib/miadmin"]).status != 0)
        // The timers' units name the packaged binary; none is enabled or started by the install.
        let unit = try String(contentsOfFile: "/lib/systemd/system/miadmin-expire.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/miadmin --user svc-mi"), "\(unit)")
        #expect(!FileManager.default.fileExists(atPath: "/etc/systemd/system/timers.target.wants/miadmin-expire.timer"))
        for file in ["/usr/share/man/man1/miadmin.1.gz", "/usr/share/bash-completion/completions/miadmin",
                     "/usr/share/zsh/vendor-completions/_miadmin", "/usr/share/fish/vendor_completions.d/miadmin.fish",
                     "/usr/share/doc/miadmin/copyright", "/usr/share/doc/miadmin/changelog.gz", "/etc/miadmin/config.json.example"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        }
        // The debug package: gdb finds the debug file by the binary's build ID.
        let buildID = try Shell.run("/usr/bin/readelf", ["-n", "/usr/bin/miadmin"]).stdout
            .split(separator: "\n").first { $0.contains("Build ID:") }?.split(separator: " ").last.map(String.init)
        let id = try #require(buildID)
        #expect(FileManager.default.fileExists(atPath: "/usr/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug"))

        // A config and a store, as an admin makes them.
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "/etc/miadmin/config.json.example"))) as! [String: Any]
        setKey(&config, "store.path", "/var/lib/miadmin/store.sqlite")
        setKey(&config, "ldap.bindDN", nil)
        setKey(&config, "ldap.bindPasswordFile", nil)
        let configData = try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys])
        try configData.write(to: URL(fileURLWithPath: "/etc/miadmin/config.json"))
        let initStore = try Self.root("/usr/bin/miadmin", ["--init-store"])
        try #require(initStore.status == 0, "\(initStore.stderr)")
        let store = try #require(Mode("/var/lib/miadmin/store.sqlite"))

        // An upgrade keeps the config, the store and the statoverrides.
        let upgrade = try Self.apt(["install", try Self.repacked(package.deb, version: "99.0.0")])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "/etc/miadmin/config.json")) == configData)
        #expect(Mode("/var/lib/miadmin/store.sqlite")?.inode == store.inode)
        #expect(Mode("/usr/bin/miadmin").map { ($0.mode, $0.gid) == (0o2755, gid) } == true)

        // The debug package depends on its own version of miadmin, so the upgrade of miadmin
        // alone took it out, as apt does with any dbgsym left behind.
        #expect(!(try Self.installed("miadmin-dbgsym")))

        // remove: the binary goes; the config and the store stay.
        let remove = try Self.apt(["remove", "miadmin"])
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/miadmin"))
        #expect(!FileManager.default.fileExists(atPath: "/lib/systemd/system/miadmin-expire.service"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "/etc/miadmin/config.json")) == configData)
        #expect(FileManager.default.fileExists(atPath: "/etc/miadmin/config.json.example"))
        #expect(Mode("/var/lib/miadmin/store.sqlite")?.inode == store.inode)

        // purge: the config folder and the statoverrides go; the store stays, and it says so.
        let purge = try Self.apt(["purge", "miadmin"])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect((purge.stdout + purge.stderr).contains("the store folder /var/lib/miadmin is kept"), "\(purge.stdout)\n\(purge.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/etc/miadmin"))
        let after = try Self.root("/usr/bin/dpkg-statoverride", ["--list"]).stdout
        #expect(!after.contains("/usr/bin/miadmin") && !after.contains("/var/lib/miadmin"), "\(after)")
        #expect(Mode("/var/lib/miadmin/store.sqlite")?.inode == store.inode)

        // A personal install in /usr/local/bin was never touched.
        #expect(Mode("/usr/local/bin/miadmin") == personal)
    }
}
