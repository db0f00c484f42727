import Foundation

/// The shell blocks of docs/install.md that tests run as written: each follows a
/// `<!-- tested: NAME -->` line. A test takes a block, puts its own prefix, group and account
/// names where the document has the defaults (as an admin under another prefix must), and
/// runs it, so the document and the scripts cannot drift apart.
public struct InstallGuide: Sendable {
    public let text: String

    public init() throws {
        text = try String(contentsOfFile: Paths.repoRoot + "/docs/install.md", encoding: .utf8)
    }

    /// The `sh` block after `<!-- tested: name -->`, its lines unindented as far as its fence is.
    public func block(_ name: String) throws -> String {
        let lines = text.components(separatedBy: "\n")
        guard let marker = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "<!-- tested: \(name) -->" }),
              let open = lines[marker...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```sh" }),
              let close = lines[(open + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```" }) else {
            throw ShellError(description: "docs/install.md has no tested block '\(name)'")
        }
        let indent = lines[open].prefix { $0 == " " }.count
        return lines[(open + 1)..<close].map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
            .joined(separator: "\n") + "\n"
    }

    /// `block(name)` with each `(documented, actual)` pair replaced, in order; fails when a
    /// documented text is not in the block (the document changed under the test).
    /// `paths`: replaced where they occur (the prefix's paths, of which a block names some).
    public func block(_ name: String, replacing pairs: [(String, String)] = [], paths: [(String, String)] = []) throws -> String {
        var script = try block(name)
        for (documented, actual) in paths { script = script.replacingOccurrences(of: documented, with: actual) }
        for (documented, actual) in pairs {
            guard script.contains(documented) else {
                throw ShellError(description: "the tested block '\(name)' no longer contains '\(documented)':\n\(script)")
            }
            script = script.replacingOccurrences(of: documented, with: actual)
        }
        return script
    }
}
