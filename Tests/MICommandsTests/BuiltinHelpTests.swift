import MICommands
import Testing

/// `help WORD` for a console word: its one line, whether the backslash came through the
/// tokenizer (`\watch`) or not (`watch`, as `help \watch` arrives), aliases too.
@Suite struct BuiltinHelpTests {
    @Test func consoleWordsHaveTheirLineOfHelp() {
        #expect(CommandRegistry.builtinHelp("watch")?.hasPrefix("\\watch: \\watch [SECONDS] [COUNT]") == true)
        #expect(CommandRegistry.builtinHelp("\\watch") == CommandRegistry.builtinHelp("watch"))
        #expect(CommandRegistry.builtinHelp("exit")?.hasPrefix("quit (also exit, \\q): ") == true)
        #expect(CommandRegistry.builtinHelp("source")?.contains("script file") == true)
        #expect(CommandRegistry.builtinHelp("nonsense") == nil)
    }
}
