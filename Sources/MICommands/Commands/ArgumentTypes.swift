import ArgumentParser
import Foundation
import MIStore

/// `FORM` as typed: a numeric id or `owner/name`, checked while the line is parsed.
extension FormReference: ExpressibleByArgument {
    public init?(argument: String) {
        guard let reference = try? FormReference(parsing: argument) else { return nil }
        self = reference
    }
}
