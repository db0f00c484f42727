import Foundation
import MITestSupport
import Testing

/// The fixtures signal only their own servers. A pid file outlives its process, and on a busy
/// machine the kernel soon hands the number to another process (pids wrap at
/// /proc/sys/kernel/pid_max): a test's `runuser`, gdb's inferior, another build. A stop that
/// signalled whatever the file names could end any of them.
@Suite struct FixtureStopTests {
    /// A process that is no server, for a stale pid file to name.
    func bystander() throws -> pid_t { try Shell.start("/bin/sleep", ["120"], environment: [:]) }

    /// Not exited: neither reaped nor a zombie.
    func running(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    func end(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    @Test func outboundFixtureStopLeavesAProcessThatIsNotItsReceiver() throws {
        let dir = try TempDir.make()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pid = try bystander()
        defer { end(pid) }
        try "\(pid)\n".write(toFile: dir + "/receiver.pid", atomically: true, encoding: .utf8)
        let stop = try Shell.run(Paths.repoRoot + "/Scripts/outbound-fixture", ["stop", dir], deadline: 60)
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(running(pid), "outbound-fixture stop signalled pid \(pid), which is not its receiver")
        #expect(!FileManager.default.fileExists(atPath: dir + "/receiver.pid"))
    }

    @Test(.enabled(if: getuid() == 0, "needs root: writes a pid file under /run/dirsrv"))
    func ds389StandInNeitherStopsNorCountsAProcessThatIsNotItsServer() throws {
        let name = "mistale\(getpid())"
        let pidFile = "/run/dirsrv/slapd-\(name).pid"
        try FileManager.default.createDirectory(atPath: "/run/dirsrv", withIntermediateDirectories: true)
        let pid = try bystander()
        defer {
            end(pid)
            try? FileManager.default.removeItem(atPath: pidFile)
        }
        try "\(pid)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
        let systemctl = Paths.repoRoot + "/Scripts/lib/ds389-systemctl"
        let active = try Shell.run(systemctl, ["is-active", "dirsrv@\(name)"], deadline: 60)
        #expect(active.status != 0, "pid \(pid), a sleep, counted as a running ns-slapd")
        let stop = try Shell.run(systemctl, ["stop", "dirsrv@\(name)"], deadline: 60)
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(running(pid), "the stand-in's stop signalled pid \(pid), which is not its server")
    }
}
