import Foundation
import MIStore

enum JSONTargets {
    /// Any bytes: the reader accepts or refuses them without crashing, within its caps; what it
    /// accepts, written back and read again, is the same value.
    static func json(_ data: Data) throws(FuzzFinding) {
        guard let value = try? JSONValue.parse(data) else { return }
        let written = JSONWriter.write(value)
        let again: JSONValue
        do { again = try JSONValue.parse(Data(written.utf8)) } catch {
            throw FuzzFinding("the writer's output does not read back: \(error)")
        }
        try check(again == value, "write/read round trip changed the value")
        try check(JSONWriter.compact(again) == JSONWriter.compact(value), "compact output differs after a round trip")
    }

    /// Any bytes as a form.json: decoded or refused with a message; a decoded form written out
    /// (as export does) decodes to the same form.
    static func form(_ data: Data) throws(FuzzFinding) {
        let document: FormDocument
        do { document = try FormDocument(jsonData: data) } catch {
            try check(!error.message.isEmpty, "a refused form.json came without a reason")
            return
        }
        let again: FormDocument
        do { again = try FormDocument(jsonData: document.jsonData()) } catch {
            throw FuzzFinding("an exported form.json does not import: \(error)")
        }
        try check(again == document, "export/import round trip changed the form")
    }
}
