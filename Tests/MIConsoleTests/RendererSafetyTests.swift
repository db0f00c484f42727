import MICommands
import Testing
@testable import MIConsole

@Suite("Renderers: formulas and escaping")
struct RendererSafetyTests {
    let columns = [Column("id"), Column("name")]

    @Test func csvNeutralisesFormulasInTextCells() throws {
        let output = try rendered(.csv) { sink in
            sink.beginRows(columns)
            for name in ["=HYPERLINK(\"http://x\",\"y\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain", "a=b"] {
                sink.row([.int(1), .string(name)])
            }
            sink.row([.int(-3), .string("neg")])
            sink.endRows()
        }
        let lines = output.out.components(separatedBy: "\r\n")
        #expect(lines[0] == "id,name")
        #expect(lines[1] == "1,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"")
        #expect(lines[2] == "1,'+1")
        #expect(lines[3] == "1,'-2+3")
        #expect(lines[4] == "1,'@SUM(A1)")
        #expect(lines[5] == "1,'\\x09x")
        #expect(lines[6] == "1,'\\x0dx")
        #expect(lines[7] == "1,plain")
        #expect(lines[8] == "1,a=b")
        #expect(lines[9] == "-3,neg", "numbers are not formulas")
    }

    @Test func csvRawWritesCellsUnchanged() throws {
        let output = try rendered(.csv, csvRaw: true) { sink in
            sink.beginRows(columns)
            sink.row([.int(1), .string("=1+1")])
            sink.endRows()
        }
        #expect(output.out == "id,name\r\n1,=1+1\r\n")
    }

    @Test func tableEscapesEveryCell() throws {
        let output = try rendered(.table) { sink in
            sink.beginRows(columns)
            sink.row([.int(1), .string("evil\u{1b}]0;x\u{07}\u{202E}")])
            sink.endRows()
        }
        #expect(!output.out.contains("\u{1b}") && !output.out.contains("\u{202E}"))
        #expect(output.out.contains("evil\\x1b]0;x\\x07\\u{202e}"))
    }

    @Test func jsonEscapesWhatTheTerminalRuleEscapes() throws {
        let output = try rendered(.json) { sink in
            sink.record(columns, [.int(1), .string("a\u{202E}b\u{1b}c")])
        }
        #expect(output.out.contains(#""a\u202eb\u001bc""#))
    }

    @Test func warningsAreOneEscapedLine() throws {
        let output = try rendered(.table) { sink in sink.warning("form 'x\nerror: fake' \u{1b}[31m") }
        #expect(output.err == "warning: form 'x\\x0aerror: fake' \\x1b[31m\n")
    }
}
