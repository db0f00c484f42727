import MIStore

extension AppConfig {
    /// The documented bounds of `store.reconnectSeconds`: 0 fails at the first lost connection.
    public static let reconnectSecondsBounds: ClosedRange<Double> = 0...3_600

    /// `store.pooler` and `store.reconnectSeconds`, which only a PostgreSQL store (`store.url`) has.
    static func readPostgresOptions(into store: inout Store, reader: inout ConfigReader, file: String) throws {
        let pooler = try reader.choice("store.pooler", PostgresPooler.allCases.map(\.rawValue))
        let reconnect = try reader.number("store.reconnectSeconds", in: reconnectSecondsBounds, unit: "seconds")
        guard case .postgres = store.location else {
            if pooler != nil || reconnect != nil {
                throw ConfigError(file: file, message: "store.pooler and store.reconnectSeconds are for a PostgreSQL store (store.url)")
            }
            return
        }
        store.pooler = pooler.flatMap(PostgresPooler.init(rawValue:))
        store.reconnectSeconds = reconnect ?? 30
    }
}
