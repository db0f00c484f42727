import CPostgres
import Foundation

extension PostgresConnection {
    /// One statement of a ``pipeline(_:)``.
    public struct PipelinedStatement: Sendable {
        public let sql: String
        public let parameters: [PostgresValue?]
        /// Whether it is prepared by name where ``namedStatements`` allows: false for statements
        /// sent once (`BEGIN`, `DECLARE ... CURSOR`), which would only fill the connection's list.
        public let named: Bool
        public init(_ sql: String, _ parameters: [PostgresValue?] = [], named: Bool = true) {
            self.sql = sql
            self.parameters = parameters
            self.named = named
        }
    }

    /// The answer to a statement queued by ``sendWithNext(_:)``, there once the round trip that
    /// carried it is over; or to one ``sendNow(_:)`` sent, there once it is read.
    public final class Ahead {
        fileprivate var outcome: Result<PostgresResult, PostgresError>?
        private unowned let connection: PostgresConnection

        fileprivate init(_ connection: PostgresConnection) { self.connection = connection }

        /// The statement's result, or the error it (or the statement before it) failed with.
        /// Asked before anything else was sent, it goes to the server on its own.
        public func result() throws -> PostgresResult {
            if outcome == nil { _ = try connection.pipeline([]) }
            guard let outcome else {
                // Dropped unsent: the connection was opened again (``reset()``) or a rollback came first.
                throw PostgresError(.unreachable, "Lost the PostgreSQL store at \(connection.target): "
                                    + "a statement queued for it was never sent")
            }
            return try outcome.get()
        }
    }

    /// Queues `statement` to go to the server with the next statement sent (``execute(_:_:)``,
    /// ``executePrepared(_:_:)``, ``pipeline(_:)``, ``executeScript(_:)``), in the same round trip
    /// and ahead of it. For what needs no answer before then: the engine's `BEGIN` and what goes
    /// with it, a cursor's `DECLARE`, a read whose rows are wanted later in the transaction.
    ///
    /// A queued statement that fails makes the statement that carried it fail with its error
    /// (the server skips everything after a failure up to the pipeline's end).
    @discardableResult
    public func sendWithNext(_ statement: PipelinedStatement) -> Ahead {
        let ahead = Ahead(self)
        waiting.append((statement, ahead))
        return ahead
    }

    /// Queues `statements` just ahead of the waiting statement whose answer is `next`, so they
    /// go in the same round trip before it; nil (nothing queued) when that statement is no
    /// longer waiting (sent, or dropped). For what must run before a queued `BEGIN`.
    public func sendWithNext(_ statements: [PipelinedStatement], before next: Ahead) -> [Ahead]? {
        guard let position = waiting.firstIndex(where: { $0.ahead === next }) else { return nil }
        let queued = statements.map { ($0, Ahead(self)) }
        waiting.insert(contentsOf: queued, at: position)
        return queued.map(\.1)
    }

    /// Sends `statement` at once and returns while the server works on it; its answer is read
    /// when asked for (``Ahead/result()``) or before anything else is sent on the connection,
    /// whichever comes first. For a listing's next `FETCH`: the server reads the next rows while
    /// the caller handles the rows it has, instead of after.
    ///
    /// With statements queued by ``sendWithNext(_:)`` waiting, it is queued behind them instead
    /// (they must go first), and goes with the next statement sent.
    @discardableResult
    public func sendNow(_ statement: PipelinedStatement) -> Ahead {
        settleInFlight()
        guard waiting.isEmpty else { return sendWithNext(statement) }
        let ahead = Ahead(self)
        let sent = (try? PostgresValue.withBound(statement.parameters) { count, types, values, lengths, formats in
            PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 0)
        }) ?? 0
        guard sent == 1 else {
            ahead.outcome = .failure(abandon("could not send a statement"))
            return ahead
        }
        roundTrips += 1
        inFlight = ahead
        return ahead
    }

    /// Reads the answer of the statement ``sendNow(_:)`` sent, if any, into its ``Ahead``.
    func settleInFlight() {
        guard let ahead = inFlight else { return }
        inFlight = nil
        var outcome: Result<PostgresResult, PostgresError>?
        // A statement's answer is one result, then a null (a failure too).
        while let raw = PQgetResult(handle) {
            guard outcome == nil else { PQclear(raw); continue }
            do { outcome = .success(try check(raw)) } catch {
                outcome = .failure(error as? PostgresError ?? PostgresError(.statement, "PostgreSQL store at \(target): \(error)"))
            }
        }
        ahead.outcome = outcome ?? .failure(abandon("the server's answer ended early"))
    }

    /// The connection is opened again with a statement's answer unread: it is lost with it.
    func abandonInFlight() {
        inFlight?.outcome = .failure(PostgresError(.unreachable, "Lost the PostgreSQL store at \(target): "
                                                   + "the connection was opened again before a statement's answer came"))
        inFlight = nil
    }

    /// Forgets the queued statements unsent (before a `ROLLBACK`, or a connection opened again):
    /// their ``Ahead`` answers throw.
    public func dropWaiting() { waiting = [] }

    /// Runs `statements` in order in one round trip (libpq's pipeline mode: all of them sent, then
    /// one Sync), and returns each one's result. The server skips the statements after a failing
    /// one; that first failure is thrown, as ``execute(_:_:)`` would have thrown it.
    ///
    /// For a write whose statements do not need each other's results (a move's update, notices and
    /// audit row): one wait for the server instead of one per statement, which through a pooler
    /// is also one hop fewer each. Statements are prepared as ``executePrepared(_:_:)`` prepares
    /// them (inside the same pipeline on first use) unless ``namedStatements`` is off.
    ///
    /// Statements queued by ``sendWithNext(_:)`` go first, in the same round trip; their answers
    /// go to their ``Ahead``s, and only `statements`' results are returned.
    public func pipeline(_ statements: [PipelinedStatement]) throws -> [PostgresResult] {
        settleInFlight()
        let queued = waiting
        waiting = []
        if queued.isEmpty && statements.isEmpty { return [] }
        let all = queued.map(\.statement) + statements
        let results: [PostgresResult?]
        let firstFailure: PostgresError?
        do {
            (results, firstFailure) = try send(all)
        } catch let error as PostgresError {
            for (_, ahead) in queued { ahead.outcome = .failure(error) }
            throw error
        }
        for (index, (_, ahead)) in queued.enumerated() {
            ahead.outcome = results[index].map { .success($0) }
                ?? .failure(firstFailure ?? PostgresError(.statement, "PostgreSQL store at \(target): skipped"))
        }
        if let firstFailure { throw firstFailure }
        return results.dropFirst(queued.count).map { $0! }
    }

    /// Sends `statements` as one pipeline and reads every answer: each statement's result (nil
    /// for a failed or skipped one) and the first failure. Throws only for a lost connection.
    private func send(_ statements: [PipelinedStatement]) throws -> (results: [PostgresResult?], firstFailure: PostgresError?) {
        guard PQenterPipelineMode(handle) == 1 else { throw failure("could not start a pipeline") }
        // What each result read back belongs to: a statement (its index) or a preparation.
        var expected: [(index: Int?, preparing: (sql: String, name: String)?)] = []
        var preparing: [String: String] = [:]
        for (index, statement) in statements.enumerated() {
            let sent: Int32
            if namedStatements && statement.named {
                let name: String
                if let known = prepared[statement.sql] ?? preparing[statement.sql] {
                    name = known
                } else {
                    name = nextStatementName()
                    var types = statement.parameters.map { $0?.typeOid ?? 0 }
                    guard PQsendPrepare(handle, name, statement.sql, Int32(types.count), &types) == 1 else {
                        throw abandon("could not send a statement")
                    }
                    preparing[statement.sql] = name
                    expected.append((nil, (statement.sql, name)))
                }
                sent = try PostgresValue.withBound(statement.parameters) { count, _, values, lengths, formats in
                    PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0)
                }
            } else {
                sent = try PostgresValue.withBound(statement.parameters) { count, types, values, lengths, formats in
                    PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 0)
                }
            }
            guard sent == 1 else { throw abandon("could not send a statement") }
            expected.append((index, nil))
        }
        guard PQpipelineSync(handle) == 1 else { throw abandon("could not send the pipeline") }
        roundTrips += 1

        var results: [PostgresResult?] = Array(repeating: nil, count: statements.count)
        var firstFailure: PostgresError?
        for item in expected {
            guard let raw = PQgetResult(handle) else { throw abandon("the server's answer ended early") }
            if PQresultStatus(raw) == PGRES_PIPELINE_ABORTED {
                PQclear(raw)  // skipped after the failure already kept
            } else {
                do {
                    let result = try check(raw)
                    if let (sql, name) = item.preparing { prepared[sql] = name }
                    if let index = item.index { results[index] = result }
                } catch let error as PostgresError where error.kind != .unreachable {
                    if firstFailure == nil { firstFailure = error }
                }  // a lost connection: check(_:) marked it, and it is thrown on
            }
            // Each statement's results end with a null.
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        guard let sync = PQgetResult(handle) else { throw abandon("the server's answer ended early") }
        let syncStatus = PQresultStatus(sync)
        PQclear(sync)
        guard syncStatus == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
            throw abandon("the pipeline did not end as sent")
        }
        return (results, firstFailure)
    }

    private func failure(_ what: String) -> PostgresError {
        let detail = Self.firstLine(String(cString: PQerrorMessage(handle)))
        return PostgresError(isConnected ? .statement : .unreachable,
                             "PostgreSQL store at \(target): \(what): \(detail)")
    }

    /// A pipeline that cannot be finished leaves the connection unusable: it counts as lost, so
    /// the engine connects again (which ends pipeline mode) and runs the transaction again.
    private func abandon(_ what: String) -> PostgresError {
        markLost()
        return PostgresError(.unreachable, "Lost the PostgreSQL store at \(target): \(what): "
                             + Self.firstLine(String(cString: PQerrorMessage(handle))))
    }
}
