import Testing
@testable import MIConsole

/// What the history file leaves out: any line that may carry a secret.
@Suite("History file")
struct HistoryFileTests {
    @Test(arguments: [
        "comment 1 'my password is hunter2'",
        "store copy --to 'postgresql://mi:hunter2@db.example/mi'",
        "store copy --to postgresql://mi:s3cr3t@[::1]:5432/mi --yes",
        "comment 4 'Passwort: Sommer2026'",
        "comment 4 'neues KENNWORT vergeben'",
        "comment 4 'Geheimnis des Schranks'",
        "comment 4 'PIN 4711'",
        "comment 4 'pw: x'",
        "comment 4 'pass\u{AD}word hunter2'",
        "comment 4 'Pass\u{200B}wort Sommer'",
        "comment 4 'Kenn\u{2060}wort: abc'",
    ])
    func aLineThatMayCarryASecretIsNotRecorded(_ line: String) {
        #expect(!HistoryFile.shouldRecord(line))
    }

    @Test(arguments: [
        "forms --template 'Pump'",
        "comment 4 'the spinning wheel is loose'",
        "comment 4 'PWM board replaced'",
        "store copy --to postgresql://mi@db.example/mi?sslmode=verify-full",
        "show 'jdoe/Pump station 4' --format json",
        "comment 4 'see https://wiki.example/pumps:4@rev2'",
    ])
    func anOrdinaryLineIsRecorded(_ line: String) {
        #expect(HistoryFile.shouldRecord(line))
    }
}
