import Foundation
import MIStore

/// The `form` part of a delivery: the review as `show --format json` gives it (times in UTC),
/// plus a `delivery` object naming the outbox row, the form version and the idempotency key.
enum FormPayload {
    static func json(_ review: FormReview, delivery: Delivery) -> [UInt8] {
        let (columns, values) = ShowCommand.record(review)
        var object = JSONObject(zip(columns, values).map { ($0.key, $1.jsonValue) })
        object["delivery"] = .object(JSONObject([
            ("id", .integer(Int(delivery.id))), ("formVersion", .integer(delivery.formVersion)),
            ("idempotencyKey", .string(delivery.idempotencyKey)),
            ("queuedAt", .string(delivery.queuedAt.formatted(.iso8601))),
        ]))
        return Array(JSONWriter.compact(.object(object)).utf8)
    }
}

extension Value {
    /// The same JSON value the console's JSON output gives, with times in UTC (ISO 8601).
    var jsonValue: JSONValue {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .number(String(number))
        case .double(let number): number.isFinite ? .number(text) : .null
        case .number(let literal): .number(literal)
        case .bool(let flag): .bool(flag)
        case .time(let date): .string(date.formatted(.iso8601))
        case .list(let items): .array(items.map(\.jsonValue))
        case .object(let fields): .object(JSONObject(fields.map { ($0.key, $0.value.jsonValue) }))
        case .null: .null
        case .grid(let table):
            .object(JSONObject([
                ("columns", .array(table.columns.map(JSONValue.string))),
                ("rows", .array(table.rows.map(JSONValue.string))),
                ("cells", .array(table.cells.map { row in .array(row.map { $0.map(JSONValue.string) ?? .null }) })),
                ("noCells", .array(table.noCells.map { .array([.integer($0.row), .integer($0.column)]) })),
            ]))
        }
    }
}
