import MIPostgres
import MIStore

extension AppConfig {
    /// The documented bounds of `store.reconnectSeconds` (0 fails at the first lost connection)
    /// and `store.maxLagSeconds`.
    public static let reconnectSecondsBounds: ClosedRange<Double> = 0...3_600
    public static let maxLagSecondsBounds: ClosedRange<Double> = 0...86_400

    /// `store.pooler`, `store.reconnectSeconds`, `store.readUrl` and `store.maxLagSeconds`,
    /// which only a PostgreSQL store (`store.url`) has.
    static func readPostgresOptions(into store: inout Store, reader: inout ConfigReader, file: String) throws {
        let pooler = try reader.choice("store.pooler", PostgresPooler.allCases.map(\.rawValue))
        let reconnect = try reader.number("store.reconnectSeconds", in: reconnectSecondsBounds, unit: "seconds")
        let readURL = try reader.string("store.readUrl").flatMap { $0.isEmpty ? nil : $0 }
        let maxLag = try reader.number("store.maxLagSeconds", in: maxLagSecondsBounds, unit: "seconds")
        guard case .postgres = store.location else {
            if pooler != nil || reconnect != nil || readURL != nil || maxLag != nil {
                throw ConfigError(file: file, message: "store.pooler, store.reconnectSeconds, store.readUrl and "
                                  + "store.maxLagSeconds are for a PostgreSQL store (store.url)")
            }
            return
        }
        store.pooler = pooler.flatMap(PostgresPooler.init(rawValue:))
        store.reconnectSeconds = reconnect ?? 30
        store.maxLagSeconds = maxLag ?? 30
        if let readURL {
            do {
                store.readTarget = try PostgresTarget(uri: readURL, allowCleartext: store.allowCleartext)
            } catch let error as PostgresError {
                throw ConfigError(file: file, message: "store.readUrl: " + error.description)
            }
        }
    }
}
