import CPostgres
import Foundation

/// Whether a freshly opened connection really writes to a primary, asked of the server behind
/// it when the URL wants one (`target_session_attrs=read-write` or `primary`).
///
/// libpq decides that from the parameters the start-up reported (`in_hot_standby`,
/// `default_transaction_read_only`); a pooler such as PgBouncer reports the ones it cached from
/// its first server connection, so a pooler in front of a server that is now a standby, or gone,
/// passes as read-write, and its queries then wait for a server (PgBouncer's
/// `query_wait_timeout`). So the console asks `pg_is_in_recovery()` itself and waits for the
/// answer no later than its deadline.
enum PostgresPrimaryCheck {
    enum Answer: Equatable {
        case primary
        case standby
        /// No answer in time, or the connection ended: libpq's message or the console's own.
        case failed(String)
    }

    /// Whether the URL's options ask for a server that accepts writes.
    static func wanted(_ options: [String: String]) -> Bool {
        ["read-write", "primary"].contains(options["target_session_attrs"] ?? "")
    }

    /// Sends `SELECT pg_is_in_recovery()` on `connection` and reads the answer, waiting at most
    /// until `deadline`. The connection is left idle when the answer is `.primary`.
    static func ask(_ connection: OpaquePointer, deadline: Date) -> Answer {
        guard PQsendQuery(connection, "SELECT pg_is_in_recovery()") == 1 else {
            return .failed(PostgresConnection.endingReason(connection))
        }
        var answer: Answer?
        while true {
            while PQisBusy(connection) == 1 {
                let late = "no answer to pg_is_in_recovery() in time (a pooler whose server is down?)"
                guard deadline.timeIntervalSinceNow > 0 else { return .failed(late) }
                if let failure = PostgresStartup.wait(connection, for: PGRES_POLLING_READING, deadline: deadline) {
                    return .failed(deadline.timeIntervalSinceNow > 0 ? failure.message : late)
                }
                if PQconsumeInput(connection) == 0 { return .failed(PostgresConnection.endingReason(connection)) }
            }
            guard let result = PQgetResult(connection) else { break }
            defer { PQclear(result) }
            if answer == nil {
                if PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1 {
                    answer = String(cString: PQgetvalue(result, 0, 0)) == "f" ? .primary : .standby
                } else if PQstatus(connection) == CONNECTION_BAD {
                    answer = .failed(PostgresConnection.endingReason(connection))
                } else {
                    let text = PostgresConnection.firstLine(String(cString: PQresultErrorMessage(result)))
                    answer = .failed(text.isEmpty ? "no answer to pg_is_in_recovery()" : text)
                }
            }
        }
        return answer ?? .failed("no answer to pg_is_in_recovery()")
    }
}
