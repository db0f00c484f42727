import Foundation
import MITestSupport
import Testing

/// Scripts/outbound-fixture `--ports HTTPS,MTLS,WRONG,SMTP`: the fixture listens where it is
/// told (a config or a firewall written beforehand), and refuses a port in use or a short list.
@Suite struct OutboundFixturePortsTests {
    func fixture(_ arguments: [String]) throws -> ProcessResult {
        try Shell.run(Paths.repoRoot + "/Scripts/outbound-fixture", arguments, deadline: 60)
    }

    /// Four ports nobody listens on, from the kernel (bound to port 0, then closed).
    func freePorts() throws -> [Int] {
        var sockets: [Int32] = [], ports: [Int] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<4 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            sockets.append(fd)
            var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0,
                                      sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            try withUnsafeMutablePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    guard bind(fd, $0, length) == 0, getsockname(fd, $0, &length) == 0 else {
                        throw POSIXError(.init(rawValue: errno) ?? .EIO)
                    }
                }
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    @Test func theFixtureListensOnThePortsItIsGiven() throws {
        let dir = try TempDir.make() + "/outbound"
        let ports = try freePorts()
        let list = ports.map(String.init).joined(separator: ",")
        let started = try fixture(["start", dir, "--ports", list])
        defer { _ = try? fixture(["stop", dir]) }
        #expect(started.status == 0, "\(started.stderr)")
        let env = try EnvFile.read(dir + "/fixture.env")
        #expect(env["HTTPS_URL"] == "https://127.0.0.1:\(ports[0])")
        #expect(env["MTLS_URL"] == "https://127.0.0.1:\(ports[1])")
        #expect(env["WRONG_CA_URL"] == "https://127.0.0.1:\(ports[2])")
        #expect(env["SMTP_URL"] == "smtp://127.0.0.1:\(ports[3])")
        let curl = try Shell.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", env["CA_FILE"]!,
                                                   "https://127.0.0.1:\(ports[0])/"])
        #expect(curl.status == 0 && !curl.stdout.isEmpty && curl.stdout != "000", "\(curl.stdout) \(curl.stderr)")

        // The same ports again: in use now, refused before anything starts.
        let second = try TempDir.make() + "/outbound"
        let busy = try fixture(["start", second, "--ports", list])
        #expect(busy.status == 1 && busy.stderr.contains("--ports: port \(ports[0]) is in use"), "\(busy.stderr)")
        #expect(!FileManager.default.fileExists(atPath: second + "/receiver.pid"))
        let short = try fixture(["start", second, "--ports", "\(ports[0]),\(ports[1])"])
        #expect(short.status == 1 && short.stderr.contains("--ports takes four ports"), "\(short.stderr)")
    }
}
