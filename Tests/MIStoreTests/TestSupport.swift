import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// A fresh directory under the system temp dir, removed when the value goes away.
final class TempDir: Sendable {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mistore-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func sub(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// A clock the test sets; nothing ever sleeps.
final class TestClock: StoreClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ date: Date = Date(timeIntervalSince1970: 1_795_000_000)) { current = date }  // 2026-11-18

    func now() -> Date { lock.withLock { current } }
    func advance(days: Double) { lock.withLock { current += days * 86_400 } }
}

/// The two store engines; the store suites run each test on both (`@Test(arguments:
/// TestEngine.allCases)`), PostgreSQL on the throwaway server of ``PostgresFixture``.
enum TestEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A store on a new file in a new temp dir (SQLite), or in a new schema of the test server's
/// database named after that file (PostgreSQL): opening the same `dir` and `file` again reaches
/// the same store on either engine. Keep `dir` alive as long as the store.
func makeStore(_ dir: TempDir, engine: TestEngine = .sqlite, clock: TestClock = TestClock(), busyTimeout: TimeInterval = 5,
               file: String = "store.sqlite") throws -> FormStore {
    switch engine {
    case .sqlite:
        return try FormStore(path: dir.path + "/" + file, busyTimeout: busyTimeout, clock: clock)
    case .postgres:
        // No server in this run (Scripts/test --unit, PostgreSQL not installed): this case is
        // skipped, the reason said as a warning (a cancelled case of a parameterized test is
        // otherwise reported as passed); the SQLite case runs.
        if let why = PostgresFixture.unavailable {
            Issue.record(Comment(rawValue: "PostgreSQL case skipped: \(why)"), severity: .warning)
            try Test.cancel(Comment(rawValue: why))
        }
        let fixture = PostgresFixture.shared
        let schema = "t_" + stableHash(dir.path + "/" + file)
        let target = try PostgresTarget(uri: fixture.url + "&options=-csearch_path%3D\(schema)")
        // The schema first (the store account owns the database), then the store in it.
        let setup = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try setup.execute("CREATE SCHEMA IF NOT EXISTS \(schema)")
        return try FormStore(postgres: target, password: fixture.password, busyTimeout: busyTimeout, clock: clock)
    }
}

/// FNV-1a of `text`, 16 hex digits: a schema name per test store.
private func stableHash(_ text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return String(hash, radix: 16)
}

func ref(_ text: String) throws -> FormReference { try FormReference(parsing: text) }

/// Writes files into a tree: `tree.write("jdoe/Pump/form.json", json)`.
struct TreeBuilder {
    let root: URL

    init(_ root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> URL { try write(relative, Data(text.utf8)) }

    @discardableResult
    func write(_ relative: String, _ data: Data) throws -> URL {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }

    /// A form folder with a form.json from ``Samples/formJSON``; `folder` is relative to the root
    /// (`jdoe/Pump` or `Completed MIs/jdoe/Pump`).
    func form(_ folder: String, name: String? = nil, created: String = "2026-11-10T07:00:00Z",
              modified: String? = nil, answered: Bool = false, media: [String: String] = [:]) throws {
        let formName = name ?? String(folder.split(separator: "/").last!)
        try write(folder + "/form.json", Samples.formJSON(name: formName, created: created, modified: modified ?? created,
                                                         answered: answered))
        for (file, content) in media { try write(folder + "/" + file, content) }
    }
}

/// The sample tree of `spec/device-layout.md` (`samples/Documents/`), rebuilt in code so the tests
/// run from a clean clone.
enum Samples {
    /// A copy of shared/samples/Documents kept in the repo (Tests/Fixtures), so a clean clone has it.
    static let sharedSampleTree: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Fixtures/Documents").path
    }()

    static func formJSON(name: String, created: String, modified: String, answered: Bool) -> String {
        let a = answered
        return """
        {
          "name": \(quoted(name)),
          "template": "Monthly pump inspection",
          "templateId": "T-17",
          "created": "\(created)",
          "modified": "\(modified)",
          "questions": [
            {
              "type": "multipleChoice",
              "text": "Pump condition",
              "options": ["Good", "Worn", "Damaged", "Missing", "Replaced", "Not inspected"],
              "Max-answers": 1,
              "answer": \(a ? "[0]" : "null"),
              "comment": ""
            },
            {
              "type": "trueFalse",
              "text": "Pressure relief valve tested?",
              "answer": \(a ? "true" : "null"),
              "help": "Open the valve until water flows, then close it."
            },
            { "type": "shortAnswer", "text": "Serial number", "answer": \(a ? "\"PX-2231-B\"" : "null") },
            {
              "type": "numeric",
              "text": "Outlet pressure (bar)",
              "answer": \(a ? "4.5" : "null"),
              "comment": \(a ? "\"\"" : "\"gauge recalibrated\"")
            },
            {
              "type": "table",
              "text": "Bearing temperatures (C)",
              "rows": ["Motor", "Pump"],
              "columns": ["Drive end", "Non-drive end"],
              "noCells": [[1, 1]],
              "answer": \(a ? "[[\"41\", \"39\"], [\"44\", null]]" : "null")
            },
            {
              "type": "multipleChoice",
              "text": "Hazards present",
              "options": ["Noise", "Confined space", "Electrical", "Chemical"],
              "Max-answers": 0,
              "answer": \(a ? "[0, 2]" : "null")
            }
          ]
        }
        """
    }

    static func quoted(_ text: String) -> String { JSONWriter.compact(.string(text)) }

    /// Writes the sample tree: 4 incomplete forms (2 of jdoe, 2 of asmith), 1 completed form of
    /// jdoe, 4 media files, and one Error file line for asmith.
    static func writeTree(at root: URL) throws -> TreeBuilder {
        let tree = try TreeBuilder(root)
        try tree.form("jdoe/Valve check – north", created: "2026-11-19T13:40:00+01:00", answered: true,
                      media: ["Qid3(1).m4a": "sample-audio", "Qid0(1).jpg": "\u{FF}sample-jpeg"])
        try tree.form("jdoe/Pump station 4", created: "2026-11-16T08:15:00Z")
        try tree.form("asmith/Pump station 4 (2)", created: "2026-11-20T07:00:00Z")
        try tree.form("asmith/Pump station 4", created: "2026-11-10T07:00:00Z")
        try tree.form("Completed MIs/jdoe/Generator monthly", created: "2026-11-12T09:00:00Z", answered: true,
                      media: ["Qid1(2).jpg": "sample", "Qid1(1).mp4": "sample-movie"])
        try tree.write("Error/asmith", "Form 'Boiler room' was reassigned to jdoe by foreman mkhan.\n")
        return tree
    }

    /// Copies a read-only tree into `target` (files become writable copies).
    static func copyTree(_ source: String, to target: URL) throws {
        try FileManager.default.copyItem(atPath: source, toPath: target.path)
        let enumerator = FileManager.default.enumerator(atPath: target.path)
        while let relative = enumerator?.nextObject() as? String {
            let path = target.path + "/" + relative
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            try FileManager.default.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o755 : 0o644], ofItemAtPath: path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: target.path)
    }
}

extension FormStore {
    /// All summaries matching `filter`, for assertions.
    func summaries(_ filter: FormFilter = FormFilter()) throws -> [FormSummary] {
        var result: [FormSummary] = []
        try forEachForm(filter) { result.append($0) }
        return result
    }

    func names(of owner: String) throws -> [String] {
        try summaries(FormFilter(owner: owner)).map(\.name)
    }

    func auditEntries(_ filter: AuditFilter = AuditFilter()) throws -> [AuditEntry] {
        var result: [AuditEntry] = []
        try forEachAuditEntry(filter) { result.append($0) }
        return result
    }
}
