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
        // German plurals and compounds, typed with and without umlauts, composed or not
        "comment 4 'Passwörter liegen im Schrank'",
        "comment 4 'PASSWÖRTER'",
        "comment 4 'PASSWO\u{308}RTER'",
        "comment 4 'Kennwörter getauscht'",
        "comment 4 'Kennwoerter getauscht'",
        "comment 4 'Passwoerter getauscht'",
        "comment 4 'Kennwort-Liste erneuert'",
        "comment 4 'Passwort-Reset beantragt'",
        "comment 4 'Kennwortliste'",
        "comment 4 'passphrase: correct horse'",
        "comment 4 'Passphrase correct horse'",
        "comment 4 'PIN'",
        "comment 4 'die PIN ist 4711'",
        // look-alikes: Cyrillic а, Greek ο, fullwidth letters, a combining grapheme joiner
        "comment 4 'p\u{430}ssword hunter2'",
        "comment 4 'passw\u{3BF}rd hunter2'",
        "comment 4 '\u{FF30}\u{FF21}\u{FF33}\u{FF33}\u{FF37}\u{FF2F}\u{FF32}\u{FF24} hunter2'",
        "comment 4 'Pass\u{34F}word hunter2'",
        "comment 4 'К\u{435}nnwort: abc'",
        "comment 4 'ｐｉｎ 4711'",
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
        "comment 4 'Passagier-Schieber geprüft'",
        "comment 4 'Насос проверен'",
        "comment 4 'Pinsel und Spinnrad'",
    ])
    func anOrdinaryLineIsRecorded(_ line: String) {
        #expect(HistoryFile.shouldRecord(line))
    }
}
