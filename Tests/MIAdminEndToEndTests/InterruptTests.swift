import Foundation
import MITestSupport
import Testing

/// Ctrl-C while a command runs (a report over hundreds of forms must not run on to the end): the
/// command stops at its next safe point, the prompt comes back; a script ends with exit 130
/// and an --atomic one saves nothing. In a real terminal (tmux), through the built binary.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct InterruptTests {
    let fixture = Fixture.shared

    /// Opens the write end of `fifo` once the console has opened it for reading (bounded by a
    /// deadline: a console that died must fail the test, not hang it), writes `text`, closes.
    func feed(_ fifo: String, _ text: String) throws {
        let fd = Shell.openWriter(of: fifo, within: 20)
        try #require(fd >= 0, "nobody opened \(fifo) for reading")
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// The pager here never reads: the listing fills the pipe and waits in a write. Ctrl-C ends
    /// the pager (same terminal, same signal) and asks the listing to stop; it stops at the next
    /// row, says so, and the prompt works again.
    @Test func ctrlCAtThePromptStopsAListing() throws {
        let tree = try DocumentsTree()
        for number in 1...600 { try tree.form("jdoe", "Form \(number)") }
        let config = try fixture.store(importing: tree.root)
        let term = try TerminalSession(uid: "mkhan", config: config,
                                       environment: ["PAGER": "echo PAGER WAITS; sleep 600"])
        let prompt = "mkhan@foreman> "
        try term.waitFor(prompt)
        try term.enter("set format csv")
        try term.enter("audit")
        try term.waitFor("PAGER WAITS")
        try term.press("C-c")
        let screen = try term.waitFor("interrupted: the listing stopped early; the rows above are not all")
        #expect(!screen.contains("[exited"), "the console is still there")
        try term.enter("whoami")
        try term.waitFor("mkhan,")
    }

    /// A script waiting for its next line (a `source`d fifo here) gets Ctrl-C: it stops before
    /// running another line, exit 130, and the --atomic run's move is rolled back.
    @Test func ctrlCEndsAScriptWithExit130AndSavesNothingOfAnAtomicRun() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let dir = try TempDir.make()
        let fifo = dir + "/more.mi"
        #expect(mkfifo(fifo, 0o600) == 0)
        let script = dir + "/handover.mi"
        try "move 'jdoe/Pump station 4' asmith\nsource \(shellQuote(fifo))\nwhoami\n"
            .write(toFile: script, atomically: true, encoding: .utf8)
        let term = try TerminalSession(uid: "mkhan", config: config, arguments: ["--atomic", "-f", script])
        try term.waitFor("Pump station 4")  // the move's record; the script now waits on the fifo
        try term.press("C-c")
        try feed(fifo, "forms\n")
        let screen = try term.waitFor("[exited ")
        #expect(screen.contains("[exited 130]"), "\(screen)")
        #expect(screen.contains("more.mi:1: interrupted (Ctrl-C): the script stopped here"), "\(screen)")
        #expect(screen.contains("atomic run: interrupted, so nothing was saved"), "\(screen)")
        #expect(!screen.contains("mkhan,"), "whoami never ran")
        let forms = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --owner jdoe"])
        #expect(forms.stdout.contains("Pump station 4"), "the move was rolled back: \(forms.stdout)")
    }
}
