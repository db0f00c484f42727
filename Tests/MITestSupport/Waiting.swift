import Foundation

/// Polls `condition` until it holds, for at most `deadline` seconds, then throws naming `what`
/// never happened: a test that waits for a server or a thread fails instead of hanging the run.
/// It bounds a wait; it never asserts how fast anything was.
public func waitUntil(_ what: String, deadline: TimeInterval = 60, every interval: TimeInterval = 0.05,
                      _ condition: () throws -> Bool) throws {
    let end = Date().addingTimeInterval(deadline)
    while try !condition() {
        guard Date() < end else { throw ShellError(description: "waited \(Int(deadline)) s, but never: \(what)") }
        Thread.sleep(forTimeInterval: interval)
    }
}
