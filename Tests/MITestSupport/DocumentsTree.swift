import Foundation

/// Builds a field app `Documents/` tree for import tests, from the sample form.json with the
/// name, state and creation time each test needs.
public struct DocumentsTree {
    public let root: String

    public init() throws {
        root = try TempDir.make() + "/Documents"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    private static func template() throws -> [String: Any] {
        let path = Paths.sampleTree + "/jdoe/Pump station 4/form.json"
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    /// Adds a form of `owner` named `name` (incomplete, or completed under `Completed MIs`).
    public func form(_ owner: String, _ name: String, completed: Bool = false,
                     created: String = "2026-11-16T08:15:00Z", media: [String: String] = [:]) throws {
        var json = try Self.template()
        json["name"] = name
        json["created"] = created
        json["modified"] = created
        if completed {
            // A completed form answers (or comments) every question.
            json["questions"] = (json["questions"] as! [[String: Any]]).map { question -> [String: Any] in
                var q = question
                q["comment"] = "checked"
                return q
            }
        }
        let folder = root + (completed ? "/Completed MIs/" : "/") + owner + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: folder + "/form.json"))
        for (file, content) in media {
            try content.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)
        }
    }

    /// Writes raw text as a form's form.json (for broken-file tests).
    public func rawForm(_ owner: String, _ name: String, json: String) throws {
        let folder = root + "/" + owner + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try json.write(toFile: folder + "/form.json", atomically: true, encoding: .utf8)
    }
}

extension Fixture {
    /// A config with its own empty store, filled by importing `tree` as mkhan.
    public func store(importing tree: String) throws -> String {
        let config = try config()
        let result = try MIAdmin.as_("mkhan", config: config, ["import --yes " + shellQuote(tree)], fixture: self)
        guard result.status == 0 else { throw ShellError(description: "import failed: \(result.stderr)") }
        return config
    }

    /// The store file a config points at.
    public func storePath(_ config: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as! [String: Any]
        return (object["store"] as! [String: Any])["path"] as! String
    }
}

/// Quotes a word for a console command line.
public func shellQuote(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// The size in bytes of a SQLite store's `-wal` file; nil when there is none.
public func walSize(_ store: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: store + "-wal"))?[.size] as? Int
}

/// Runs SQL on a store with the sqlite3 shell (for checks the console does not offer).
public func sqlite(_ path: String, _ sql: String) throws -> String {
    let result = try Shell.run("/usr/bin/sqlite3", [path, sql])
    guard result.status == 0 else { throw ShellError(description: "sqlite3: \(result.stderr)") }
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}
