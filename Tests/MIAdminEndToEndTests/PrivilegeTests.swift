import Foundation
import MITestSupport
import Testing

/// The installed, setgid miadmin against real Unix accounts: Scripts/install into a
/// temporary prefix with a group of its own, accounts made with useradd, every command run as
/// them through `runuser` with a clean environment. Needs root (CI runs as root); without it the
/// suite is skipped, and says so.
@Suite(.tags(.endToEnd, .ldap), .serialized, .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"))
struct PrivilegeTests {
    let install: Installation

    init() throws { install = try Installation.shared.get() }

    // MARK: what the install leaves

    @Test func installLeavesASetgidBinaryAndAClosedStore() throws {
        let binary = try install.stat(install.binary)
        #expect(binary.mode == 0o2755 && binary.uid == 0 && binary.gid == install.gid)
        let state = try install.stat(install.stateDir)
        #expect(state.mode == 0o2770 && state.uid == 0 && state.gid == install.gid)
        // The install made all three store files, root's, 0660, group-shared; consoles (which
        // write, and close last) neither remove nor remake them, so no user ever owns one.
        for account in [Account.technician, .foreman, .technician] {
            let run = try install.run(account, ["-c", "forms", "-c", "notices"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try install.run(.foreman, ["-c", "policy set expiry-days 9", "-c", "policy set expiry-days 7"]).status == 0)
        for suffix in ["", "-wal", "-shm"] {
            let file = try install.stat(install.storePath + suffix)
            #expect(file.mode == 0o660 && file.gid == install.gid && file.uid == 0,
                    "store\(suffix): \(file.uid):\(file.gid) \(String(file.mode, radix: 8))")
        }
        // --init-store is root's: an account cannot create or repair the store.
        let create = try install.runAs(.technician, [install.binary, "--init-store"])
        #expect(create.status == 1 && create.stderr.contains("is for root"), "\(create.stderr)")
        for page in ["share/man/man1/miadmin.1", "share/bash-completion/completions/miadmin",
                     "share/zsh/site-functions/_miadmin", "share/fish/vendor_completions.d/miadmin.fish"] {
            #expect(FileManager.default.fileExists(atPath: install.prefix + "/" + page), "\(page)")
        }
        let man = try String(contentsOfFile: install.prefix + "/share/man/man1/miadmin.1", encoding: .utf8)
        #expect(man.hasPrefix(".TH MIADMIN 1") && man.contains(".SS policy set") && man.contains("ROLES: foreman"))
    }

    @Test func reinstallUpgradesTheBinaryAndKeepsConfigAndStore() throws {
        let configBefore = try Data(contentsOf: URL(fileURLWithPath: install.configPath))
        let marker = try install.run(.foreman, ["-c", "notices"])
        #expect(marker.status == 0, "\(marker.stderr)")
        let storeBefore = try install.stat(install.storePath)
        let again = try install.runInstall([])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: install.configPath)) == configBefore)
        let storeAfter = try install.stat(install.storePath)
        #expect(storeAfter.inode == storeBefore.inode && storeAfter.mode == 0o660)
    }

    /// The binary is installed stripped; its debug information and symbols sit in
    /// bin/.debug/miadmin.debug, where gdb finds them by the binary's .gnu_debuglink: a backtrace
    /// names the Swift functions and their source lines. The same binary without that file
    /// has neither. Installing the installed binary again keeps the file, still matching.
    @Test func theBinaryIsInstalledStrippedAndItsDebugFileSymbolisesABacktrace() throws {
        let debugFile = install.prefix + "/bin/.debug/miadmin.debug"
        func sections(_ file: String) throws -> String { try Shell.run("/usr/bin/readelf", ["-S", "--wide", file]).stdout }
        let installed = try sections(install.binary)
        #expect(installed.contains(" .gnu_debuglink ") && !installed.contains(" .debug_info ") && !installed.contains(" .symtab "))
        #expect(try sections(debugFile).contains(" .debug_info "))
        let file = try install.stat(debugFile)
        #expect(file.uid == 0 && file.mode == 0o644)

        // A breakpoint on write(2) while the binary prints its version, then every thread's
        // backtrace: the main thread's frames are the binary's own whichever thread writes
        // first. The program is started without a shell (one process fewer to start under
        // ptrace). gdb reports a failed start on stderr and stops there: shown with stdout.
        func backtrace(_ binary: String) throws -> ProcessResult {
            try Shell.run("/usr/bin/gdb", ["-batch", "-nx", "-ex", "set debuginfod enabled off", "-ex", "set breakpoint pending on",
                                           "-ex", "set startup-with-shell off", "-ex", "break write",
                                           "-ex", "run --version", "-ex", "thread apply all bt", binary], deadline: 300)
        }
        let symbolised = try backtrace(install.binary)
        #expect(symbolised.stdout.contains("main.swift:"), "stdout:\n\(symbolised.stdout)\nstderr:\n\(symbolised.stderr)")
        let alone = try TempDir.make()
        defer { try? FileManager.default.removeItem(atPath: alone) }
        // Copied by a child process, as LazyTrampolineTests copies: no write descriptor of this
        // process for a concurrent fork to inherit ("Text file busy").
        #expect(try Shell.run("/bin/cp", [install.binary, alone + "/miadmin"]).status == 0)
        let bare = try backtrace(alone + "/miadmin")
        #expect(bare.stdout.contains("__libc_start_main") && !bare.stdout.contains(".swift:"),
                "stdout:\n\(bare.stdout)\nstderr:\n\(bare.stderr)")

        #expect(try install.runInstall(["--binary", install.binary]).status == 0)
        #expect(try sections(debugFile).contains(" .debug_info "))
        let again = try backtrace(install.binary)
        #expect(again.stdout.contains("main.swift:"), "stdout:\n\(again.stdout)\nstderr:\n\(again.stderr)")
    }

    // MARK: a technician cannot become a foreman

    @Test func aConfigOfTheirOwnIsRefusedBeforeLogin() throws {
        // The attack of the issue: a config naming the technicians group as foreman.
        let mine = install.home(.technician) + "/mine.json"
        var object = try install.configObject()
        setKey(&object, "ldap.groups.foreman", object.value(at: "ldap.groups.technician"))
        try install.write(object, to: mine, owner: .technician)
        let byFlag = try install.run(.technician, ["--config", mine, "-c", "whoami", "-c", "policy set expiry-days 3"])
        #expect(byFlag.status == 1)
        #expect(byFlag.stderr.contains("--config is not allowed"), "\(byFlag.stderr)")
        #expect(!byFlag.stdout.contains("foreman"))
        for (name, value) in [("MIADMIN_CONFIG", mine), ("MIADMIN_NOW", "2030-01-01T00:00:00Z"),
                              ("LDAPURI", "ldap://127.0.0.1:1"), ("LDAPCONF", mine)] {
            let byEnv = try install.run(.technician, ["-c", "whoami"], environment: [name: value])
            #expect(byEnv.status == 1, "\(name)")
            #expect(byEnv.stderr.contains("unset \(name)"), "\(name): \(byEnv.stderr)")
        }
        // ~/.config/miadmin/config.json is not even read: the system config wins.
        try FileManager.default.createDirectory(atPath: install.home(.technician) + "/.config/miadmin",
                                                withIntermediateDirectories: true)
        try install.write(object, to: install.home(.technician) + "/.config/miadmin/config.json", owner: .technician)
        let whoami = try install.run(.technician, ["--format", "json", "-c", "whoami"])
        #expect(whoami.status == 0, "\(whoami.stderr)")
        #expect(whoami.stdout.contains("\"technician\"") && !whoami.stdout.contains("\"foreman\""), "\(whoami.stdout)")
        let policy = try install.run(.technician, ["-c", "policy set expiry-days 3"])
        #expect(policy.status == 1 && policy.stderr.contains("needs the foreman role"), "\(policy.stderr)")
    }

    @Test func noAccountCanOpenTheStoreDirectly() throws {
        for account in [Account.technician, .foreman] {
            let sqlite = try install.runAs(account, ["/usr/bin/sqlite3", install.storePath, "select 1"])
            #expect(sqlite.status != 0 && !sqlite.stdout.contains("1"), "\(account): \(sqlite.stdout)")
            let write = try install.runAs(account, ["/usr/bin/sqlite3", install.storePath,
                                                    "update forms set owner = 'x'"])
            #expect(write.status != 0)
            let cat = try install.runAs(account, ["/bin/cat", install.bindPasswordPath])
            #expect(cat.status != 0 && cat.stdout.isEmpty)
        }
    }

    @Test func pathsTheUserNamesAreOpenedWithTheUsersRights() throws {
        let secret = try String(contentsOfFile: install.bindPasswordPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let attempts: [(Account, [String])] = [
            (.technician, ["-f", install.storePath]),
            (.technician, ["-f", install.bindPasswordPath]),
            (.technician, ["-c", "source \(install.bindPasswordPath)"]),
            (.foreman, ["--yes", "-c", "import \(install.stateDir)"]),
            (.foreman, ["-c", "export \(install.stateDir)/escape"]),
            (.foreman, ["-c", "notifications --ics \(install.stateDir)/plan.ics"]),
        ]
        for (account, arguments) in attempts {
            let result = try install.run(account, arguments)
            #expect(result.status != 0, "\(arguments) succeeded: \(result.stdout)")
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        }
        let pw = try install.runAs(.technician, [install.binary, "--user", "jdoe", "--password-file",
                                                 install.bindPasswordPath, "-c", "whoami"], password: nil)
        #expect(pw.status == 1 && pw.stderr.contains("Permission denied"), "\(pw.stderr)")
        #expect(!FileManager.default.fileExists(atPath: install.stateDir + "/escape"))

        // The store's descriptors stay open after the drop; reopening them through /proc is
        // checked against the files' owner and mode with the user's rights, so it fails too.
        let home = install.home(.technician)
        let fifo = home + "/fds-\(UUID().uuidString.prefix(6)).fifo", errors = fifo + ".err"
        #expect(mkfifo(fifo, 0o600) == 0)
        try install.chown(fifo, to: .technician)
        let pid = try install.start(.technician, ["--on-error", "continue", "-f", fifo], stderr: errors)
        let writer = open(fifo, O_WRONLY)
        let console = try #require(Self.descendant(of: pid) { Self.holds($0, fifo) })
        let storeFDs = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(console)/fd")) ?? []).filter { entry in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(console)/fd/\(entry)")) ?? ""
            return [install.storePath, install.storePath + "-wal", install.storePath + "-shm"].contains(target)
        }
        #expect(storeFDs.count >= 3, "the console keeps the store's files open")
        _ = (storeFDs.map { "source /proc/self/fd/\($0)\n" }.joined() + "quit\n").withCString { write(writer, $0, strlen($0)) }
        close(writer)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let reported = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        for fd in storeFDs {
            #expect(reported.contains("cannot read '/proc/self/fd/\(fd)'"), "\(reported)")
        }
        #expect(!reported.contains("unknown command") && !reported.contains("SQLite format"), "\(reported)")
        #expect(!FileManager.default.fileExists(atPath: install.stateDir + "/plan.ics"))
    }

    @Test func noDescriptorReachesAProgramTheConsoleStarts() throws {
        // The console reads its script from a FIFO: once the test's open for writing returns,
        // the console has opened the store, dropped the group, logged in and is waiting for
        // the first line. Every descriptor it holds then, besides 0, 1 and 2, must be
        // close-on-exec, so the pager ($PAGER, the user's program) inherits none of the store's.
        let fifo = install.home(.foreman) + "/script-\(UUID().uuidString.prefix(6)).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        try install.chown(fifo, to: .foreman)
        let pid = try install.start(.foreman, ["-f", fifo])
        let writer = open(fifo, O_WRONLY)
        #expect(writer >= 0)
        // runuser's child (env, then miadmin) holds the FIFO: find the console among pid's descendants.
        let console = try #require(Self.descendant(of: pid) { Self.holds($0, fifo) })
        // What runuser itself holds came from the test runner (posix_spawn passes it on): not ours.
        let inherited = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).map { entry in
            entry + " " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)")) ?? "")
        })
        var checked = 0
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(console)/fdinfo") {
            guard let fd = Int(entry), fd > 2 else { continue }
            let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(console)/fd/\(entry)")) ?? ""
            guard !inherited.contains(entry + " " + link) else { continue }
            let info = (try? String(contentsOfFile: "/proc/\(console)/fdinfo/\(entry)", encoding: .utf8)) ?? ""
            guard let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
                  let flags = Int(flagsLine.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) else { continue }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(console)/fd/\(entry)")) ?? "?"
            #expect(flags & Int(O_CLOEXEC) != 0, "fd \(fd) (\(target)) is inherited by programs the console starts")
            checked += 1
        }
        #expect(checked >= 6, "the store's connections, the directory's socket and the script are open")
        _ = "quit\n".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0)
    }

    /// The first process below `pid` (children, then theirs) for which `matches` holds.
    static func descendant(of pid: pid_t, _ matches: (pid_t) -> Bool) -> pid_t? {
        var queue = [pid]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            if matches(next) { return next }
            let children = (try? String(contentsOfFile: "/proc/\(next)/task/\(next)/children", encoding: .utf8)) ?? ""
            queue += children.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        return nil
    }

    static func holds(_ pid: pid_t, _ path: String) -> Bool {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path }
    }

    // MARK: a foreman works, and what they write is theirs

    @Test func foremanImportsMovesCommentsAndOwnsWhatTheyWrite() throws {
        let home = install.home(.foreman)
        let tree = try install.sampleTree(for: .foreman)
        let imported = try install.run(.foreman, ["--yes", "-c", "import '\(tree)'"])
        #expect(imported.status == 0 || imported.stderr.contains("collision") || imported.stderr.contains("already"),
                "\(imported.stderr)")
        let moved = try install.run(.foreman, ["--format", "json", "-c", "move 'jdoe/Pump station 4' asmith --note relay"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let commented = try install.run(.foreman, ["-c", "comment 'jdoe/Generator monthly' 'seen by the foreman'"])
        #expect(commented.status == 0, "\(commented.stderr)")
        let shown = try install.run(.technician, ["--format", "json", "-c", "show 'jdoe/Generator monthly'"])
        #expect(shown.status == 0 && shown.stdout.contains("seen by the foreman"), "\(shown.stderr)")

        let export = home + "/export-\(UUID().uuidString.prefix(6))"
        let exported = try install.run(.foreman, ["-c", "export '\(export)'"])
        #expect(exported.status == 0, "\(exported.stderr)")
        let ics = home + "/plan.ics"
        let calendar = try install.run(.foreman, ["-c", "notifications --ics '\(ics)'"])
        #expect(calendar.status == 0, "\(calendar.stderr)")
        let uid = try install.uid(.foreman)
        for path in [export, export + "/asmith", ics] {
            let info = try install.stat(path)
            #expect(info.uid == uid && info.gid != install.gid, "\(path) belongs to \(info.uid):\(info.gid)")
        }
        let enumerator = FileManager.default.enumerator(atPath: export)
        while let relative = enumerator?.nextObject() as? String {
            let info = try install.stat(export + "/" + relative)
            #expect(info.uid == uid && info.gid != install.gid, "\(relative)")
        }
    }

    /// The crew rule holds in the installed binary: the north foreman's console, run
    /// by a real Unix account, lists his crew's forms only and is refused another crew's, and the
    /// store (which only the installation's group may open) is as it was.
    @Test func theInstalledBinaryHoldsTheCrewRule() throws {
        let crews = CrewDirectory.fixture
        // The whole sample tree goes in before the site keeps crews (a foreman's import with
        // crews would take his crew's folders only), then root turns crews on.
        let second = try Installation.configured(tag: "crews", groupOf: install, fixture: crews)
        defer { second.remove() }
        let imported = try second.run(.foreman, ["--yes", "-c", "import '\(second.sampleTree(for: .foreman))'"])
        #expect(imported.status == 0, "\(imported.stderr)")
        try FileManager.default.removeItem(atPath: second.configPath)
        try FileManager.default.removeItem(atPath: second.bindPasswordPath)
        try FileManager.default.removeItem(atPath: second.configDir + "/ca.pem")
        try second.writeConfig(fixture: crews) { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", CrewDirectory.base(crews))
        }
        let forms = try second.run(.foreman, ["--format", "csv", "-c", "forms"])
        #expect(forms.status == 0, "\(forms.stderr)")
        let owners = Set(forms.lines.dropFirst().map { String($0.split(separator: ",")[2]) })
        #expect(owners == ["jdoe"], "\(forms.stdout)")
        let dump = { try sqlite(second.storePath, ".dump") }
        let before = try dump()
        let refused = try second.run(.foreman, ["-c", "move 'jdoe/Pump station 4' asmith"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("asmith is not in your crews (Kolonne Nord)"), "\(refused.stderr)")
        let hidden = try second.run(.foreman, ["-c", "show 'asmith/Pump station 4'"])
        #expect(hidden.status == 1 && hidden.stderr.contains("not in your crews"), "\(hidden.stderr)")
        #expect(try dump() == before)
    }

    @Test func technicianAskingForAnothersFormGetsTheMissingFormAnswer() throws {
        _ = try install.run(.foreman, ["--yes", "-c", "import '\(install.sampleTree(for: .foreman))'"])
        let ids = try install.run(.foreman, ["--format", "csv", "-c", "forms --owner asmith"])
        let id = try #require(ids.lines.dropFirst().first?.split(separator: ",").first.map(String.init))
        let other = try install.run(.technician, ["-c", "show \(id)"])
        let missing = try install.run(.technician, ["-c", "show 999999"])
        #expect(other.status == missing.status && other.status != 0)
        #expect(other.stderr.replacingOccurrences(of: id, with: "N") == missing.stderr.replacingOccurrences(of: "999999", with: "N"),
                "\(other.stderr) vs \(missing.stderr)")
    }

    // MARK: the store works after the group is dropped, for several consoles at once

    @Test func concurrentConsolesReadAndWriteAfterTheDrop() throws {
        _ = try install.run(.foreman, ["--yes", "-c", "import '\(install.sampleTree(for: .foreman))'"])
        var script = ""
        for round in 1...15 {
            script += "comment 'jdoe/Generator monthly' 'round \(round)'\nforms\nshow 'jdoe/Generator monthly'\nnotices --all\n"
        }
        let path = install.home(.foreman) + "/rounds.mi"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        try install.chown(path, to: .foreman)
        let readers = install.home(.technician) + "/reads.mi"
        try String(repeating: "forms\nnotifications\nnotices --all\n", count: 20).write(toFile: readers, atomically: true, encoding: .utf8)
        try install.chown(readers, to: .technician)

        let pids = try [
            install.start(.foreman, ["-f", path]),
            install.start(.foreman, ["-f", path]),
            install.start(.technician, ["-f", readers]),
        ]
        for pid in pids {
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            #expect(status == 0, "a console exited with wait status \(status)")
        }
        let count = try install.run(.foreman, ["--format", "json", "-c", "show 'jdoe/Generator monthly'"])
        #expect(count.status == 0)
        #expect(count.stdout.components(separatedBy: "round 15").count - 1 >= 2, "both consoles' last comments are there")
    }

    /// A script of many changes goes on checkpointing after the drop: the checkpointer's
    /// connection is opened with the readers, before the group is given up. Without
    /// checkpoints, 1,200 moves would leave a `-wal` file of about 80 MB.
    @Test func aLongScriptKeepsCheckpointingAfterTheDrop() throws {
        // The sample forms, unless an earlier test imported them (and changed one since: the
        // import then keeps the store's copy and says so).
        _ = try install.run(.foreman, ["--yes", "-c", "import '\(try install.sampleTree(for: .foreman))'"])
        let before = try install.run(.foreman, ["--format", "json", "-c", "show 'jdoe/Valve check – north'"])
        try #require(before.status == 0, "\(before.stderr)")
        let path = install.home(.foreman) + "/moves.mi"
        try String(repeating: "move 'jdoe/Valve check – north' asmith\nmove 'asmith/Valve check – north' jdoe\n", count: 600)
            .write(toFile: path, atomically: true, encoding: .utf8)
        try install.chown(path, to: .foreman)
        let moved = try install.run(.foreman, ["-f", path])
        #expect(moved.status == 0, "\(moved.stderr)")
        let wal = try #require(walSize(install.storePath))
        #expect(wal <= 9 << 20, "the -wal file is \(wal) bytes after 1,200 moves")
        let shown = try install.run(.foreman, ["--format", "json", "-c", "show 'jdoe/Valve check – north'"])
        #expect(shown.status == 0, "the form is back with jdoe: \(shown.stderr)")
    }

    // MARK: a second install: missing store, creation by the install, uninstall

    @Test func missingStoreIsRefusedUntilTheInstallCreatesItAndUninstallKeepsData() throws {
        let second = try Installation(tag: "b", groupOf: install)
        defer { second.remove() }
        let first = try second.runInstall([])
        #expect(first.status == 0 && first.stdout.contains("Next: write"), "\(first.stdout)")
        try second.writeConfig()
        let refused = try second.run(.technician, ["-c", "whoami"])
        #expect(refused.status == 1 && refused.stderr.contains("there is no store"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: second.storePath))
        let again = try second.runInstall([])
        #expect(again.status == 0, "\(again.stderr)")
        let works = try second.run(.technician, ["-c", "whoami"])
        #expect(works.status == 0, "\(works.stderr)")
        // A -wal that a user owns (an older install, a hand restore) is refused, and root's
        // --init-store (run by the install) gives it back to root.
        Glibc.chown(second.storePath + "-wal", try second.uid(.technician), second.gid)
        let owned = try second.run(.technician, ["-c", "whoami"])
        #expect(owned.status == 1 && owned.stderr.contains("not root"), "\(owned.stderr)")
        #expect(try second.runInstall([]).status == 0)
        #expect(try second.stat(second.storePath + "-wal").uid == 0)
        #expect(try second.run(.technician, ["-c", "whoami"]).status == 0)
        let removed = try second.runInstall(["--uninstall"])
        #expect(removed.status == 0)
        #expect(!FileManager.default.fileExists(atPath: second.binary))
        #expect(!FileManager.default.fileExists(atPath: second.prefix + "/bin/.debug/miadmin.debug"))
        #expect(FileManager.default.fileExists(atPath: second.storePath))
        #expect(FileManager.default.fileExists(atPath: second.configPath))
    }

    @Test func aConfigOrStoreFolderOthersCouldChangeIsRefused() throws {
        let second = try Installation.configured(tag: "c", groupOf: install)
        defer { second.remove() }
        chmod(second.configPath, 0o666)
        let loose = try second.run(.technician, ["-c", "whoami"])
        #expect(loose.status == 1 && loose.stderr.contains("cannot be trusted"), "\(loose.stderr)")
        chmod(second.configPath, 0o644)
        chmod(second.bindPasswordPath, 0o644)
        let readable = try second.run(.technician, ["-c", "whoami"])
        #expect(readable.status == 1 && readable.stderr.contains("readable by other users"), "\(readable.stderr)")
        chmod(second.bindPasswordPath, 0o640)
        chmod(second.stateDir, 0o2777)
        let openFolder = try second.run(.technician, ["-c", "whoami"])
        #expect(openFolder.status == 1 && openFolder.stderr.contains("other users cannot enter"), "\(openFolder.stderr)")
    }
}
