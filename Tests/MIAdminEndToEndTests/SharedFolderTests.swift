import Foundation
import MITestSupport
import Testing

/// A local user must not be able to turn **another person's** miadmin against that
/// person's files. The victim is the foreman account (directory user mkhan) running the
/// installed setgid miadmin; the attacker is the technician account, which plants links and runs
/// swap loops (`Tests/Fixtures/race/attacker.c`, `renameat2(RENAME_EXCHANGE)`) in a folder both
/// may write (0777, not sticky). After every trial the victim's files are byte-identical.
///
/// The race tests run `MIADMIN_RACE_TRIALS` trials per command (default 5, a few seconds);
/// `Scripts/race-test` runs 100. Needs root (accounts, setgid binary).
@Suite(.tags(.endToEnd, .ldap), .serialized, .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"))
struct SharedFolderTests {
    let install: Installation
    static let trials = Int(ProcessInfo.processInfo.environment["MIADMIN_RACE_TRIALS"] ?? "") ?? 5
    static let mediaForm = "jdoe/Valve check – north"

    init() throws {
        install = try Installation.shared.get()
    }

    // MARK: planted links

    /// Finding 1: `media --out` wrote through `.<file>.<pid>.tmp` and followed a link planted
    /// there for every pid, overwriting the foreman's `~/.profile` with a technician's JPEG.
    @Test func mediaFollowsNoLinkPlantedForItsTemporaryName() throws {
        let scene = try Scene(install)
        defer { scene.remove() }
        for _ in 0..<Self.trials {
            for name in ["Qid0(1).jpg", "Qid3(1).m4a"] {
                try scene.plantForNextPids(".\(name).%d.tmp", pointingAt: scene.victim.profile)
            }
            let run = try install.run(.foreman, ["-c", "media '\(Self.mediaForm)' --out \(scene.share)"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Scene.kind(scene.share + "/Qid0(1).jpg") == S_IFREG)
            try scene.victim.expectUnchanged()
        }
    }

    /// Finding 6: `store copy --to` followed a planted link (85 MB into another user's empty
    /// file). `store backup` gets the same rule. A file of the user's own works.
    @Test func storeCopyAndBackupRefuseALinkAtTheTarget() throws {
        let scene = try Scene(install)
        defer { scene.remove() }
        for (name, command) in [("copy.sqlite", "store copy --yes --to"), ("backup.sqlite", "store backup")] {
            try scene.attacker(["/bin/ln", "-s", scene.victim.emptyFile, scene.share + "/" + name])
            let run = try install.run(.foreman, ["-c", "\(command) \(scene.share)/\(name)"])
            #expect(run.status != 0 && run.stderr.contains("symbolic link"), "\(command): \(run.stderr)")
            try scene.victim.expectUnchanged()
            #expect(Scene.kind(scene.share + "/" + name) == S_IFLNK, "the planted link is left alone")
        }
        let own = install.home(.foreman) + "/own-copy-\(UUID().uuidString.prefix(6)).sqlite"
        let copy = try install.run(.foreman, ["-c", "store copy --yes --to \(own)", "-c", "store backup \(own).backup"])
        #expect(copy.status == 0, "\(copy.stderr)")
        for file in [own, own + ".backup"] {
            let forms = try Shell.run("/usr/bin/sqlite3", [file, "SELECT count(*) > 0 FROM forms"])
            #expect(forms.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(file): \(forms.stderr)")
        }
        // Nothing but the files themselves is left in the folder (no private folder, no -wal).
        let left = try FileManager.default.contentsOfDirectory(atPath: install.home(.foreman)).filter { $0.contains("own-copy") }
        #expect(left.count == 2, "\(left)")
        try? FileManager.default.removeItem(atPath: own)
        try? FileManager.default.removeItem(atPath: own + ".backup")
    }

    // MARK: swap loops

    /// Finding 2: `report --pdf` closed its `mkstemp` descriptor and cairo reopened the temporary
    /// file by path; a loop replacing `.r.pdf.*` with a link won at the first try. `--dir` too.
    @Test func reportsGoThroughTheirDescriptorWhileTemporaryNamesAreSwapped() throws {
        let scene = try Scene(install)
        defer { scene.remove() }
        let swaps = try scene.race(["swap-prefix", scene.share, ".r.pdf.", scene.victim.profile]) {
            for _ in 0..<Self.trials {
                // It may fail (its temporary file was swapped away); it must not write elsewhere.
                _ = try install.run(.foreman, ["-c", "report '\(Self.mediaForm)' --pdf \(scene.share)/r.pdf --force"])
                try scene.victim.expectUnchanged()
            }
        }
        let folder = scene.share + "/reports"
        try scene.attacker(["/bin/mkdir", "-m", "777", folder])
        let more = try scene.race(["swap-prefix", folder, ".jdoe - ", scene.victim.profile]) {
            for _ in 0..<Self.trials {
                _ = try install.run(.foreman, ["-c", "report --state completed --owner jdoe --dir \(folder) --force"])
                try scene.victim.expectUnchanged()
            }
        }
        Scene.record("report --pdf / --dir", trials: Self.trials, swaps: swaps + more)
    }

    /// `export`: the tree is built in a temporary folder beside the target; a loop exchanging it
    /// with a link to one of the victim's folders must not make the export write into it.
    @Test func exportWritesNothingElsewhereWhileItsFolderIsSwapped() throws {
        let scene = try Scene(install)
        defer { scene.remove() }
        let swaps = try scene.race(["swap-prefix", scene.share, ".export-", scene.victim.folder]) {
            for trial in 0..<Self.trials {
                let run = try install.run(.foreman, ["-c", "export \(scene.share)/export-\(trial)"])
                // Done, or refused because its folder was swapped: never a link in its place.
                #expect(run.status != 0 || Scene.kind("\(scene.share)/export-\(trial)") == S_IFDIR, "\(run.stderr)")
                try scene.victim.expectUnchanged()
            }
        }
        Scene.record("export", trials: Self.trials, swaps: swaps)
    }

    /// Finding 3: swapping a user folder of the tree for a link to the foreman's private folder
    /// during `import --yes` imported the foreman's `Secret form` as jdoe's. Walked by
    /// descriptors, the import can only skip or fail.
    @Test func importReadsNothingOutsideTheTreeWhileAFolderIsSwapped() throws {
        let scene = try Scene(install)
        defer { scene.remove() }
        let tree = scene.share + "/Documents"
        try scene.attacker(["/bin/mkdir", "-p", tree + "/jdoe"])
        for n in 0..<20 {
            try scene.attacker(["/bin/mkdir", "-p", "\(tree)/jdoe/Secret form \(n)"])
            try scene.attacker(["/bin/sh", "-c", "cat > \"$1\"", "sh", "\(tree)/jdoe/Secret form \(n)/form.json"],
                               input: Scene.form(name: "Secret form \(n)", template: "decoy"))
        }
        try scene.attacker(["/bin/ln", "-s", scene.victim.privateFolder, tree + "/.swap"])
        let swaps = try scene.race(["exchange", tree + "/jdoe", tree + "/.swap"]) {
            for _ in 0..<Self.trials {
                _ = try install.run(.foreman, ["--yes", "-c", "import \(tree)"])
                // Asked through the console (a root sqlite3 closing last would remove the -wal).
                let leaked = try install.run(.foreman, ["--format", "csv", "-c", "forms --template 'victim only'"])
                #expect(leaked.status == 0 && !leaked.stdout.contains("Secret form"), "\(leaked.stdout) \(leaked.stderr)")
                try scene.victim.expectUnchanged()
            }
        }
        #expect(swaps > 0, "the attacker's loop ran")
        Scene.record("import", trials: Self.trials, swaps: swaps)
    }

    // MARK: umask

    /// Finding 4: the group's `umask 007` was kept for the whole run, so a user with umask 077
    /// got 0660/0770 exports, media, reports, calendars and store copies.
    @Test func everythingWrittenForTheUserKeepsTheUsersUmask() throws {
        let home = install.home(.foreman), tag = UUID().uuidString.prefix(6)
        let dir = "\(home)/umask-\(tag)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try install.run(.foreman, ["--yes", "-c", "import \(try install.sampleTree(for: .foreman))"])
        let run = try install.run(.foreman, [
            "-c", "media '\(Self.mediaForm)' --out \(dir)/media",
            "-c", "report '\(Self.mediaForm)' --pdf \(dir)/r.pdf",
            "-c", "export \(dir)/export",
            "-c", "notifications --ics \(dir)/plan.ics",
            "-c", "store copy --yes --to \(dir)/copy.sqlite",
            "-c", "store backup \(dir)/backup.sqlite",
        ], umask: "077")
        #expect(run.status == 0, "\(run.stderr)")
        for folder in [dir, dir + "/media", dir + "/export", dir + "/export/jdoe"] {
            let mode = try install.stat(folder).mode
            #expect(mode == 0o700, "\(folder): \(String(mode, radix: 8))")
        }
        for file in ["media/Qid0(1).jpg", "r.pdf", "export/jdoe/Pump station 4/form.json", "plan.ics", "copy.sqlite",
                     "backup.sqlite"] {
            let mode = try install.stat(dir + "/" + file).mode
            #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))")
        }
        // The user's umask, not a fixed one: 022 gives 0644.
        let open = try install.run(.foreman, ["-c", "notifications --ics \(dir)/open.ics"], umask: "022")
        #expect(open.status == 0, "\(open.stderr)")
        #expect(try install.stat(dir + "/open.ics").mode == 0o644)
    }

    // MARK: the store's -wal and -shm

    /// Finding 5: the documented `sqlite3 … .backup`, run with no console open, deleted `-wal`
    /// and `-shm`, and every console then refused to start until root ran `--init-store`.
    /// `store backup` keeps them; a store whose files vanished is repaired by the next console.
    @Test func aStoreWhoseWalVanishedIsRepairedAndStoreBackupKeepsIt() throws {
        let second = try Installation.configured(tag: "w", groupOf: install)
        defer { second.remove() }
        #expect(try second.run(.foreman, ["--yes", "-c", "import \(try second.sampleTree(for: .foreman))"]).status == 0)
        let backup = try Shell.run("/usr/bin/sqlite3", [second.storePath, ".backup \(second.prefix)/by-sqlite3.sqlite"])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: second.storePath + "-wal"), "sqlite3 removed the -wal (the finding)")
        let console = try second.run(.technician, ["-c", "forms"])
        #expect(console.status == 0, "\(console.stderr)")
        let copy = install.home(.foreman) + "/backup-\(UUID().uuidString.prefix(6)).sqlite"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let ours = try second.run(.foreman, ["-c", "store backup \(copy)"])
        #expect(ours.status == 0, "\(ours.stderr)")
        for suffix in ["-wal", "-shm"] {
            let file = try second.stat(second.storePath + suffix)
            #expect(file.uid == 0 && file.gid == second.gid && file.mode == 0o660,
                    "\(suffix): \(file.uid):\(file.gid) \(String(file.mode, radix: 8))")
        }
        let forms = try Shell.run("/usr/bin/sqlite3", [copy, "SELECT count(*) FROM forms"])
        #expect(Int(forms.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0, "\(forms.stderr)")
        #expect(try second.run(.technician, ["-c", "forms"]).status == 0, "consoles keep working after store backup")
    }
}

/// One test's stage: a shared folder made by the attacker, the victim's files, the attacker's
/// program. Everything is removed by ``remove()``.
struct Scene {
    let install: Installation
    let share: String
    let victim: VictimFiles
    let attackerBinary: String
    private let scratch: String

    init(_ install: Installation) throws {
        self.install = install
        let id = UUID().uuidString.prefix(8).lowercased()
        share = "/tmp/mi-share-\(id)"
        scratch = "/tmp/mi-attacker-\(id)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        attackerBinary = scratch + "/attacker"
        let cc = try Shell.run("/usr/bin/cc", ["-O2", "-o", attackerBinary, Paths.repoRoot + "/Tests/Fixtures/race/attacker.c"])
        guard cc.status == 0 else { throw SceneError( "cc: \(cc.stderr)") }
        victim = try VictimFiles(install)
        // The forms the commands work on, imported by the victim (a foreman).
        let imported = try install.run(.foreman, ["--yes", "-c", "import \(try install.sampleTree(for: .foreman))"])
        guard imported.status == 0 else { throw SceneError( "import: \(imported.stderr)") }
        try attacker(["/bin/mkdir", "-m", "777", share])
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: share)
        try? FileManager.default.removeItem(atPath: scratch)
        victim.remove()
    }

    /// Runs a program as the attacker (the technician account).
    func attacker(_ argv: [String], input: String? = nil) throws {
        let result = input == nil ? try install.runAs(.technician, argv)
            : try install.runAs(.technician, ["/bin/sh", "-c", "printf '%s' \"$0\" | \"$@\"", input!] + argv)
        guard result.status == 0 else { throw SceneError( "\(argv): \(result.stderr)") }
    }

    /// Links `format` (with `%d` = a pid) -> `target` for the next 3,000 pids the kernel hands out.
    func plantForNextPids(_ format: String, pointingAt target: String) throws {
        let last = Int(try String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
        let max = Int(try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 32768
        try attacker([attackerBinary, "plant", share, format, target, "\(last + 1)", "\(min(last + 3000, max))"])
        if last + 3000 > max { try attacker([attackerBinary, "plant", share, format, target, "1", "\(last + 3000 - max)"]) }
    }

    /// Runs `body` while the attacker's `mode` loop runs; returns the swaps it made.
    func race(_ mode: [String], _ body: () throws -> Void) throws -> Int {
        // In the shared folder, where the attacker may write its count beside it.
        let stop = share + "/.stop-\(UUID().uuidString.prefix(6))"
        let pid = try install.startAs(.technician, [attackerBinary] + mode + [stop])
        defer {
            FileManager.default.createFile(atPath: stop, contents: nil)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try body()
        FileManager.default.createFile(atPath: stop, contents: nil)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return Int((try? String(contentsOfFile: stop + ".count", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }

    static func record(_ what: String, trials: Int, swaps: Int) {
        print("race \(what): \(trials) trial(s), \(swaps) swap(s) by the attacker")
    }

    static func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// A form.json of `name` from `template`. The victim's forms are modified later than the
    /// attacker's decoys of the same names, so a decoy imported by one trial does not keep a
    /// later trial from importing the victim's form over it: every trial is a fresh chance.
    static func form(name: String, template: String, modified: String = "2026-11-16T08:15:00Z") -> String {
        """
        {"name": "\(name)", "template": "\(template)", "templateId": "T-1", "created": "2026-11-16T08:15:00Z",
         "modified": "\(modified)", "questions": []}
        """
    }
}

/// The victim's files the attacks aim at (its `~/.profile`, an empty file it may write, a
/// folder it keeps empty, a private folder of forms), and their bytes before the attack.
struct VictimFiles {
    let install: Installation
    let profile: String
    let emptyFile: String
    let folder: String
    let privateFolder: String
    private let before: [String: Data]

    init(_ install: Installation) throws {
        self.install = install
        let home = install.home(.foreman), id = UUID().uuidString.prefix(6)
        profile = home + "/.profile"
        emptyFile = home + "/empty-\(id)"
        folder = home + "/kept-empty-\(id)"
        privateFolder = home + "/private-\(id)"
        if !FileManager.default.fileExists(atPath: profile) {
            try "# the victim's profile\n".write(toFile: profile, atomically: false, encoding: .utf8)
        }
        FileManager.default.createFile(atPath: emptyFile, contents: Data())
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for n in 0..<20 {
            let form = "\(privateFolder)/Secret form \(n)"
            try FileManager.default.createDirectory(atPath: form, withIntermediateDirectories: true)
            try Scene.form(name: "Secret form \(n)", template: "victim only", modified: "2026-11-20T08:15:00Z").write(toFile: form + "/form.json",
                                                                                    atomically: false, encoding: .utf8)
        }
        for path in [profile, emptyFile, folder, privateFolder] { try install.chown(path, to: .foreman) }
        chmod(emptyFile, 0o600)
        chmod(folder, 0o700)
        chmod(privateFolder, 0o700)
        var before: [String: Data] = [:]
        let forms = privateFolder
        for path in [profile, emptyFile] + (0..<20).map({ "\(forms)/Secret form \($0)/form.json" }) {
            before[path] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        self.before = before
    }

    /// Every file byte-identical, no link replaced it, and the kept-empty folder still empty.
    func expectUnchanged(sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (path, data) in before {
            #expect(Scene.kind(path) == S_IFREG, "\(path) is no longer a regular file", sourceLocation: sourceLocation)
            #expect(FileManager.default.contents(atPath: path) == data, "\(path) changed", sourceLocation: sourceLocation)
        }
        let inside = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(inside.isEmpty, "written into the victim's folder: \(inside)", sourceLocation: sourceLocation)
    }

    func remove() {
        for path in [emptyFile, folder, privateFolder] { try? FileManager.default.removeItem(atPath: path) }
    }
}

struct SceneError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
