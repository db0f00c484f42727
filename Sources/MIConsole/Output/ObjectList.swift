import MICommands

extension Value {
    /// The fields of each element when this is a non-empty list of objects (a form's questions),
    /// which tables draw as a table of their own and CSV spreads over rows; nil for any other value.
    var objectList: [[Value.Field]]? {
        guard case .list(let items) = self, !items.isEmpty else { return nil }
        var result: [[Value.Field]] = []
        for item in items {
            guard case .object(let fields) = item else { return nil }
            result.append(fields)
        }
        return result
    }
}
