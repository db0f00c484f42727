import Foundation

/// How a user names a form on the command line: a numeric id (`42`) or `owner/name`
/// (`jdoe/Pump station 4`).
///
/// The text is split at the *first* `/`, so names may contain spaces, non-ASCII letters,
/// parentheses and even `/` (`jdoe/Valve 3/4` is owner `jdoe`, name `Valve 3/4`).
/// Owner and name are compared in Unicode NFC, as the store keeps them.
public enum FormReference: Sendable, Hashable, CustomStringConvertible {
    case id(Int64)
    case path(owner: String, name: String)

    /// Parses `42` or `owner/name`; anything else is an `.invalidInput` ``StoreError``.
    public init(parsing text: String) throws(StoreError) {
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let id = Int64(text), id > 0 else {
                throw StoreError(.invalidInput, "'\(text)' is not a valid form id.")
            }
            self = .id(id)
            return
        }
        guard let slash = text.firstIndex(of: "/") else {
            throw StoreError(.invalidInput, "'\(text)' is not a form reference: give a numeric id or owner/name.")
        }
        let owner = String(text[..<slash])
        let name = String(text[text.index(after: slash)...])
        guard !owner.isEmpty, !name.isEmpty else {
            throw StoreError(.invalidInput, "'\(text)' is not a form reference: both owner and name are needed in owner/name.")
        }
        self = .path(owner: owner.nfc, name: name.nfc)
    }

    public var description: String {
        switch self {
        case .id(let id): String(id)
        case .path(let owner, let name): "\(owner)/\(name)"
        }
    }
}

extension String {
    /// Unicode canonical composition (NFC): the one spelling the store keeps for names and uids,
    /// so `é` typed on macOS (often decomposed) finds `é` imported from a tablet. ASCII text is
    /// NFC already and comes back as it is: Foundation's composition bridges through NSString,
    /// and a crew's listing asked it for every row's owner (docs/benchmarks.md).
    public var nfc: String {
        utf8.allSatisfy { $0 < 0x80 } ? self : precomposedStringWithCanonicalMapping
    }
}
