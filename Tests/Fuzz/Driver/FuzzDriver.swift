import Foundation
import MIFuzzTargets
#if FUZZING
import CLibFuzzer
#endif

/// `miadmin-fuzz TARGET [libFuzzer options] [CORPUS...]`
///
/// Built by `Scripts/fuzz` with `-sanitize=fuzzer,address -DFUZZING`, it hands the remaining
/// arguments to libFuzzer's driver with the named target. Built normally (as `swift build`
/// does), it replays the files and folders it is given through the target, for reproducing a
/// crash input without the sanitizers.
@main
struct FuzzDriver {
    nonisolated(unsafe) static var target: FuzzTarget!

    static func main() {
        var arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget.named(arguments[1]) else {
            var usage = "usage: miadmin-fuzz TARGET [libFuzzer options] [CORPUS...]\ntargets:\n"
            for target in FuzzTarget.all { usage += "  \(target.name)\t\(target.summary)\n" }
            FileHandle.standardError.write(Data(usage.utf8))
            exit(2)
        }
        Self.target = target
        arguments.remove(at: 1)
        #if FUZZING
        exit(runLibFuzzer(arguments))
        #else
        exit(replay(arguments.dropFirst().filter { !$0.hasPrefix("-") }))
        #endif
    }

    #if FUZZING
    static func runLibFuzzer(_ arguments: [String]) -> Int32 {
        var argc = Int32(arguments.count)
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                let input = size == 0 ? Data() : Data(bytes: data!, count: size)
                do {
                    try FuzzDriver.target.body(input)
                } catch {
                    fatalError("finding in target \(FuzzDriver.target.name): \(error)")
                }
                return 0
            }
        }
    }
    #endif

    /// Runs every file (or every file in every folder) through the target; 1 when one fails.
    static func replay(_ paths: [String]) -> Int32 {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        var failed: Int32 = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            do {
                try target.body(data)
            } catch {
                print("\(file): \(error)")
                failed = 1
            }
        }
        print("replayed \(files.count) input(s) through \(target.name)")
        return failed
    }
}
