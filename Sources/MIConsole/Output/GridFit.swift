import MICommands

/// Which columns a table's grid shows, and how wide, on a screen narrower than the grid: the
/// columns' own priority (``Column/Fit``) decides. First the `leftOut` columns go, the rightmost
/// first, as long as the grid is still too wide; then the `cut` columns are shortened, the widest
/// first, but never below ``minimumCut`` columns or their title. Nil when even that does not fit:
/// the renderer then draws blocks (`expanded auto`) or the grid as it is.
struct GridFit: Equatable {
    /// Indexes into the candidate columns, in order, of those the grid shows.
    var shown: [Int]
    /// The width of each shown column (cut columns narrower than their longest cell).
    var widths: [Int]

    /// A cut column keeps at least this many columns (with its `…`), or its title's width.
    static let minimumCut = 12

    /// The width of a grid of columns this wide: ` | ` between columns.
    static func width(_ widths: [Int]) -> Int {
        widths.reduce(0, +) + 3 * max(0, widths.count - 1)
    }

    /// `natural`: each candidate column's widest cell or title; `titles`: its title's width;
    /// `fits`: its priority. Returns every column at its natural width when the grid fits.
    static func fitting(natural: [Int], titles: [Int], fits: [Column.Fit], screen: Int) -> GridFit? {
        var shown = Array(natural.indices)
        if width(natural) <= screen { return GridFit(shown: shown, widths: natural) }
        // Left out, the rightmost first, while the grid is still too wide.
        for index in natural.indices.reversed() where fits[index] == .leftOut {
            shown.removeAll { $0 == index }
            if width(shown.map { natural[$0] }) <= screen { return GridFit(shown: shown, widths: shown.map { natural[$0] }) }
        }
        var widths = shown.map { natural[$0] }
        var excess = width(widths) - screen
        let floors = shown.map { max(minimumCut, titles[$0]) }
        while excess > 0 {
            // The widest cut column that can still give a column.
            let candidates = shown.indices.filter { fits[shown[$0]] == .cut && widths[$0] > floors[$0] }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { return nil }
            let others = candidates.filter { $0 != widest }.map { widths[$0] }.max() ?? floors[widest]
            // Down to the next widest (so the cut spreads evenly), at least one column at a time.
            let step = min(excess, max(1, widths[widest] - max(others, floors[widest])))
            widths[widest] -= step
            excess -= step
        }
        return GridFit(shown: shown, widths: widths)
    }

    /// `text` cut to `width` columns, ending with `…` when it had to be cut.
    static func cut(_ text: String, to width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let columns = DisplayWidth.of(String(character))
            if used + columns > width - 1 { break }
            kept.append(character)
            used += columns
        }
        while kept.last == " " { kept.removeLast() }
        return kept + "…"
    }
}
