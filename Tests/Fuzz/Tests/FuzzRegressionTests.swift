import Foundation
import MIFuzzTargets
import Testing

/// Replays, through each fuzz target, every input the fuzzer ever failed on
/// (`Tests/Fuzz/regressions/TARGET/`) and the seed corpus (`Tests/Fuzz/corpus/TARGET/`):
/// a fixed bug stays fixed, and the targets' own checks hold on the seeds.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let fuzzRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func inputs(_ folder: String, _ target: String) -> [URL] {
        let dir = fuzzRoot.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func seedsAndRegressionsPass(target name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let files = Self.inputs("corpus", name) + Self.inputs("regressions", name)
        #expect(!Self.inputs("corpus", name).isEmpty, "target \(name) has no seed corpus")
        for file in files {
            let data = try Data(contentsOf: file)
            do {
                try target.body(data)
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test func everyTargetHasACorpusFolderAndScriptsFuzzKnowsIt() throws {
        let script = try String(contentsOf: Self.fuzzRoot.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/fuzz"), encoding: .utf8)
        for target in FuzzTarget.all {
            #expect(script.contains(" \(target.name) ") || script.contains("(\(target.name) ") || script.contains(" \(target.name))"),
                    "Scripts/fuzz does not list \(target.name)")
        }
    }
}
