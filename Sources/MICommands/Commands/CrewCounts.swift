import MIDirectory
import MIStore

/// `forms --count-by team[,state]`: the store's counts by owner, summed per crew the
/// user may see. A technician in two crews counts in both; forms of owners in none of them are
/// counted under `(no crew)`. Every visible crew gets a row, 0 included.
enum CrewCounts {
    static let noCrew = "(no crew)"

    static func show(_ byOwner: [FormCount], fields: FormFieldList, session: Session, output: OutputSink) throws {
        guard session.directory.crewSettings != nil else {
            throw CommandError.failed("this site keeps no crews (no teams object in \(session.config.file)); --count-by team needs them")
        }
        let ownerIndex = fields.fields.firstIndex(of: .owner)!
        var crewsOf: [String: [String]] = [:]
        var crews: [String] = []
        try session.forEachVisibleCrew { crew in
            crews.append(crew.name)
            for uid in try session.directory.memberIDs(of: crew) { crewsOf[uid.lowercased(), default: []].append(crew.name) }
        }
        var counts: [[String]: Int] = [:]
        for group in byOwner {
            for crew in crewsOf[group.values[ownerIndex].lowercased()] ?? [noCrew] {
                var key = group.values
                key[ownerIndex] = crew
                counts[key, default: 0] += group.count
            }
        }
        var rows = counts.map { FormCount(values: $0.key, count: $0.value) }.sorted(by: FormCount.mostFirst)
        if fields.fields.count == 1 {
            rows += crews.filter { counts[[$0]] == nil }.map { FormCount(values: [$0], count: 0) }
        }
        output.beginRows(fields.names.map { Column($0) } + [Column("count")])
        for row in rows { output.row(row.values.map(Value.string) + [.int(Int64(row.count))]) }
        output.endRows()
    }
}
