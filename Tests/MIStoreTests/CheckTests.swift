import Foundation
import GRDB
import Testing
@testable import MIStore

@Suite("Store check")
struct CheckTests {
    func findings(_ store: FormStore) throws -> [StoreFinding] {
        var result: [StoreFinding] = []
        try store.check { result.append($0) }
        return result
    }

    @Test(arguments: TestEngine.allCases) func aCleanStoreHasNoFindings(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try store.importTree(at: Samples.writeTree(at: dir.sub("Documents")).root, actor: "seed")
        #expect(try findings(store) == [])
    }

    @Test(arguments: TestEngine.allCases) func findsDeletedAndCorruptedMediaAndUnreadableForms(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try store.importTree(at: Samples.writeTree(at: dir.sub("Documents")).root, actor: "seed")
        let generator = try store.form(ref("jdoe/Generator monthly"))
        let valve = try store.form(ref("jdoe/Valve check – north"))
        let pump = try store.form(ref("asmith/Pump station 4"))
        try store.write { db in
            // The bytes are gone; flipped bytes of the same size; bad JSON.
            try db.execute(literal: "UPDATE media SET data = \(Data()) WHERE form_id = \(generator.id) AND file_name = 'Qid1(1).mp4'")
            try db.execute(literal: """
                UPDATE media SET data = \(Data("sampl3".utf8)) WHERE form_id = \(generator.id) AND file_name = 'Qid1(2).jpg'
                """)
            try db.execute(literal: "UPDATE forms SET questions = '[{\"type\": \"trueFalse\", ' WHERE id = \(pump.id)")
            // A rule broken: a single-answer question with two answers.
            let questions = try #require(try db.value(String.self, literal: "SELECT questions FROM forms WHERE id = \(valve.id)"))
            let broken = questions.replacingOccurrences(of: "\"answer\":[0]", with: "\"answer\":[0,1]")
            #expect(broken != questions)
            try db.execute(literal: "UPDATE forms SET questions = \(broken) WHERE id = \(valve.id)")
        }
        let found = try findings(store)
        #expect(found.map(\.kind) == [.media, .media, .unreadable, .rule])
        #expect(found[0].object == "form \(generator.id) jdoe/Generator monthly: Qid1(1).mp4")
        #expect(found[0].message == "media file Qid1(1).mp4 is damaged: 0 bytes stored, 12 recorded; SHA-256 does not match the one recorded")
        #expect(found[1].message == "media file Qid1(2).jpg is damaged: SHA-256 does not match the one recorded")
        #expect(found[2].formId == pump.id && found[2].message.hasPrefix("the stored form content cannot be read"))
        #expect(found[3].formId == valve.id && found[3].message.hasPrefix("tooManyAnswers: "))
    }

    @Test(arguments: TestEngine.allCases) func ownersOfFormsStillToBeWorkedOn(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try store.importTree(at: Samples.writeTree(at: dir.sub("Documents")).root, actor: "seed")
        _ = try store.submit(ref("jdoe/Generator monthly"), actor: "mkhan")
        var owners: [String] = []
        try store.forEachOwner { owners.append("\($0):\($1)") }
        #expect(owners == ["asmith:2", "jdoe:2"])
    }
}
