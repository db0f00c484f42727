import Foundation
import MITestSupport
import Testing

/// The libraries miadmin opens on first use (Scripts/lib/lazy-libraries) are reached only
/// through trampolines the binary defines itself (Sources/C*Lazy). The release build drops them
/// from the binary's needed libraries; a function called from Swift without a trampoline line
/// then stays unbound and the binary does not start. The debug build links those libraries, so
/// this test does what the release build does to a copy of it and starts that copy.
@Suite(.tags(.endToEnd),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/patchelf"), "needs patchelf (Scripts/install-deps)"))
struct LazyTrampolineTests {
    static func lazyLibraries() throws -> [String] {
        try String(contentsOfFile: Paths.repoRoot + "/Scripts/lib/lazy-libraries", encoding: .utf8)
            .split(separator: "\n").map(String.init)
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test func theBinaryStartsWithoutTheLibrariesItOpensOnFirstUse() throws {
        let libraries = try Self.lazyLibraries()
        #expect(libraries.contains("libpq.so.5"))
        let copy = try TempDir.make() + "/miadmin"
        // A child process copies it: a file this process held open for writing could be inherited
        // by a child another test forks meanwhile, and starting the copy would fail with "Text
        // file busy".
        let copied = try Shell.run("/bin/cp", [Paths.binary, copy])
        try #require(copied.status == 0, "\(copied.stderr)")
        let patch = try Shell.run("/usr/bin/patchelf", libraries.flatMap { ["--remove-needed", $0] } + [copy])
        try #require(patch.status == 0, "\(patch.stderr)")

        let needed = try Shell.run("/usr/bin/readelf", ["-d", copy]).stdout
        for library in libraries { #expect(!needed.contains("[\(library)]"), "\(library) is still needed") }

        // Bound at load, every symbol: one without a trampoline names itself here.
        let start = try Shell.run(copy, ["--version"], environment: ["LD_BIND_NOW": "1"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout.hasPrefix("miadmin "), "\(start.stdout)")
    }
}
