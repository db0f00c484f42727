import Foundation

/// Colour for the label of an error (`error:`, `FILE:LINE:`, `miadmin:`) and a warning
/// (`warning:`), so they stand out among results: only when stderr is a terminal, never in a
/// pipe or a file, and never when `NO_COLOR` is set to anything (https://no-color.org) or the
/// terminal says it draws no colour (`TERM=dumb`, or no `TERM` at all). Only the label is
/// coloured, with the escapes written here: text from outside stays escaped by TerminalText.
public struct ErrorStyle: Sendable, Equatable {
    public let colours: Bool

    public init(colours: Bool) {
        self.colours = colours
    }

    /// Whether to colour, for a stream that is (or is not) a terminal, in `environment`.
    public static func colours(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    /// For this process's stderr, decided once: a privileged run has scrubbed its environment
    /// by the time anything is reported (`NO_COLOR` and `TERM` are kept).
    public static let current = ErrorStyle(colours: colours(isTerminal: isatty(2) == 1,
                                                            environment: ProcessInfo.processInfo.environment))

    /// Bold red.
    public func error(_ label: String) -> String { styled(label, "1;31") }
    /// Bold yellow.
    public func warning(_ label: String) -> String { styled(label, "1;33") }

    private func styled(_ label: String, _ code: String) -> String {
        colours ? "\u{1B}[" + code + "m" + label + "\u{1B}[0m" : label
    }
}
