/// Checks of caller-supplied names before they reach the store.
enum Validate {
    /// A directory uid: non-empty, no `/`, no control characters (it becomes a folder name on export).
    static func uid(_ text: String, what: String = "uid") throws -> String {
        let value = try name(text, what: what)
        guard !value.contains("/"), value != ".", value != "..", value != "Error", value != "Completed MIs" else {
            throw StoreError(.invalidInput, "'\(text)' cannot be a \(what): it would not fit the device folder layout.")
        }
        return value
    }

    /// A non-empty single-line name (actor, author), in NFC.
    static func name(_ text: String, what: String) throws -> String {
        guard !text.isEmpty, !text.allSatisfy(\.isWhitespace) else {
            throw StoreError(.invalidInput, "The \(what) must not be empty.")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw StoreError(.invalidInput, "The \(what) must not contain line breaks or control characters.")
        }
        return text.nfc
    }
}
