import Foundation
import MICommands
@testable import MIConsole

/// Runs a renderer into a temporary file and returns what it wrote (stdout, stderr).
func rendered(_ format: OutputFormat, csvRaw: Bool = false, _ body: (any RenderingSink) -> Void) throws -> (out: String, err: String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("miconsole-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let outPath = dir.appendingPathComponent("out").path, errPath = dir.appendingPathComponent("err").path
    let outFD = open(outPath, O_CREAT | O_WRONLY | O_TRUNC, 0o600), errFD = open(errPath, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
    defer { close(outFD); close(errFD) }
    var settings = DisplaySettings()
    settings.format = format
    settings.csvRaw = csvRaw
    let sink = settings.makeSink(stdout: OutputStream(fd: outFD), stderr: OutputStream(fd: errFD))
    body(sink)
    sink.finish()
    return (try String(contentsOfFile: outPath, encoding: .utf8), try String(contentsOfFile: errPath, encoding: .utf8))
}
