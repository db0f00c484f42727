import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// libpq through CPostgres against the real throwaway server (Scripts/pg-fixture): the transport
/// rules of `store.url`, typed errors for the failures users meet, and bound parameters.
@Suite("PostgreSQL connection (real server)", .tags(.postgres), .needsPostgres)
struct PostgresConnectionTests {
    let fixture = PostgresFixture.shared

    @Test func connectsWithVerifiedTLSAndBoundParameters() throws {
        let target = try PostgresTarget(uri: fixture.url)
        let connection = try PostgresConnection(target: target, password: fixture.password, conventions: .ignored)
        // The server's own view: this backend's connection is encrypted; the server is 15 or later.
        #expect(try connection.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").string(0, 0) == "t")
        #expect(try connection.execute("SHOW server_version_num").int64(0, 0).map { $0 >= 150000 } == true)
        let text = "O'Brien; DROP TABLE x; -- Zoë 泵站"
        let bytes: [UInt8] = [0, 1, 2, 255, 0x5c, 0x27]
        let result = try connection.execute("SELECT $1::text, $2::bytea, $3::bigint, $4::text IS NULL",
                                            [.text(text), .bytes(bytes), .int(-42), nil])
        #expect(result.rowCount == 1)
        #expect(result.string(0, 0) == text)
        #expect(result.bytes(0, 1) == bytes)
        #expect(result.int64(0, 2) == -42)
        #expect(result.string(0, 3) == "t")
    }

    @Test func uniqueViolationKeepsItsSQLState() throws {
        let connection = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try connection.execute("CREATE TEMP TABLE t (name text PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES ($1)", [.text("Pump")])
        #expect { try connection.execute("INSERT INTO t VALUES ($1)", [.text("Pump")]) } throws: { error in
            let error = error as! PostgresError
            return error.kind == .statement && error.sqlState == .uniqueViolation && !error.sqlState!.isRetryable
        }
        // The connection is still usable after a failed statement.
        #expect(try connection.execute("SELECT count(*) FROM t").int64(0, 0) == 1)
    }

    /// A pipeline answers each statement in order, with and without named statements; a failing
    /// statement is thrown with its SQLSTATE, those after it are not run, and the connection is
    /// usable afterwards (out of pipeline mode).
    @Test(arguments: [true, false]) func pipelineRunsInOrderAndStopsAtTheFirstFailure(named: Bool) throws {
        let connection = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        connection.namedStatements = named
        try connection.execute("CREATE TEMP TABLE p (id serial PRIMARY KEY, name text UNIQUE)")
        let insert = "INSERT INTO p (name) VALUES ($1) RETURNING id"
        let results = try connection.pipeline([.init(insert, [.text("a")]), .init(insert, [.text("b")]),
                                               .init("UPDATE p SET name = name || '!' WHERE name = $1", [.text("a")]),
                                               .init("SELECT name FROM p ORDER BY id")])
        #expect(results.map(\.rowCount) == [1, 1, 0, 2])
        #expect(results[1].int64(0, 0) == 2 && results[2].affectedRows == 1)
        #expect(results[3].string(0, 0) == "a!" && results[3].string(1, 0) == "b")
        // The same statements again (prepared by now when named), the second one failing.
        #expect { try connection.pipeline([.init(insert, [.text("c")]), .init(insert, [.text("b")]), .init(insert, [.text("d")])]) }
            throws: { ($0 as! PostgresError).sqlState == .uniqueViolation }
        #expect(!connection.lost)
        // Outside a transaction the statements up to the Sync form one implicit transaction:
        // "c" went with the failure.
        #expect(try connection.execute("SELECT string_agg(name, ',' ORDER BY id) FROM p").string(0, 0) == "a!,b")
        #expect(try connection.pipeline([.init(insert, [.text("e")])])[0].int64(0, 0) != nil)
    }

    /// Statements queued with sendWithNext go to the server with the next statement, in its
    /// round trip: one wait for both, and (outside a transaction) one implicit transaction, so a
    /// failing carrier takes the queued insert with it. A queued statement that fails fails its
    /// carrier with its own error; dropped ones never run.
    @Test(arguments: [true, false]) func queuedStatementsGoInTheNextRoundTrip(named: Bool) throws {
        let connection = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        connection.namedStatements = named
        try connection.execute("CREATE TEMP TABLE q (id serial PRIMARY KEY, name text UNIQUE)")
        let before = connection.roundTrips
        let inserted = connection.sendWithNext(.init("INSERT INTO q (name) VALUES ($1) RETURNING id", [.text("x")]))
        let counted = connection.sendWithNext(.init("SELECT count(*) FROM q"))
        #expect(connection.roundTrips == before)
        let names = try connection.executePrepared("SELECT string_agg(name, ',') FROM q")
        #expect(connection.roundTrips == before + 1)
        #expect(names.string(0, 0) == "x")
        #expect(try inserted.result().int64(0, 0) == 1 && counted.result().int64(0, 0) == 1)
        #expect(connection.roundTrips == before + 1)

        // One implicit transaction with its carrier: the carrier fails, the queued insert is gone.
        let lost = connection.sendWithNext(.init("INSERT INTO q (name) VALUES ($1)", [.text("y")]))
        #expect { try connection.execute("SELECT 1 / 0") } throws: { ($0 as! PostgresError).sqlState?.rawValue == "22012" }
        #expect(try lost.result().affectedRows == 1)  // it ran, and was rolled back with the carrier
        // A queued statement that fails: the carrier throws its error, so does its answer.
        let duplicate = connection.sendWithNext(.init("INSERT INTO q (name) VALUES ($1)", [.text("x")]))
        #expect { try connection.execute("SELECT 1") } throws: { ($0 as! PostgresError).sqlState == .uniqueViolation }
        #expect { try duplicate.result() } throws: { ($0 as! PostgresError).sqlState == .uniqueViolation }
        // Dropped unsent: never runs, its answer says so.
        let dropped = connection.sendWithNext(.init("INSERT INTO q (name) VALUES ($1)", [.text("z")]))
        connection.dropWaiting()
        #expect { try dropped.result() } throws: { ($0 as! PostgresError).message.contains("never sent") }
        #expect(try connection.execute("SELECT string_agg(name, ',') FROM q").string(0, 0) == "x")
        // Asked for before anything else is sent, a queued statement goes on its own.
        let alone = connection.sendWithNext(.init("SELECT 41 + 1"))
        let trips = connection.roundTrips
        #expect(try alone.result().int64(0, 0) == 42 && connection.roundTrips == trips + 1)
        #expect(!connection.lost)
    }

    @Test func wrongPasswordIsAnAuthenticationErrorWithoutThePassword() throws {
        let secret = "wrong-Secret-123"
        #expect { try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: secret) } throws: { error in
            let error = error as! PostgresError
            return error.kind == .authentication && !error.message.contains(secret)
                && error.message.contains("127.0.0.1:\(fixture["PG_PORT"])/mi")
        }
    }

    @Test func unrelatedCAIsATLSError() throws {
        let uri = fixture.url.replacingOccurrences(of: fixture["PG_CA"], with: fixture["PG_WRONG_CA"])
        #expect { try PostgresConnection(target: try PostgresTarget(uri: uri), password: fixture.password) } throws: {
            ($0 as! PostgresError).kind == .tls
        }
    }

    @Test func missingDatabaseAndDeadServerAreTellable() throws {
        let missing = fixture.url.replacingOccurrences(of: "/mi?", with: "/nosuchdb?")
        #expect { try PostgresConnection(target: try PostgresTarget(uri: missing), password: fixture.password) } throws: {
            // The server checks the password before the database: the role's own password gets this far.
            ($0 as! PostgresError).kind == .databaseMissing
        }
        // A port nobody listens on (the fixture's port minus one is below its range start only by chance).
        let dead = "postgresql://miadmin@127.0.0.1:1/mi?sslmode=verify-full&sslrootcert=\(fixture["PG_CA"])"
        #expect { try PostgresConnection(target: try PostgresTarget(uri: dead), password: "x") } throws: { error in
            let error = error as! PostgresError
            return error.kind == .unreachable && error.message.contains("127.0.0.1:1/mi")
        }
    }

    @Test func transportRulesOfTheURI() throws {
        // No sslmode named: verify-full.
        #expect(try PostgresTarget(uri: "postgresql://u@db.example/mi").options["sslmode"] == "verify-full")
        for mode in ["disable", "allow", "prefer", "require"] {
            #expect { try PostgresTarget(uri: "postgresql://u@db/mi?sslmode=\(mode)") } throws: { error in
                let error = error as! PostgresError
                return error.kind == .configuration && error.message.contains("store.allowCleartext")
            }
            #expect(try PostgresTarget(uri: "postgresql://u@db/mi?sslmode=\(mode)", allowCleartext: true)
                .options["sslmode"] == mode)
        }
        #expect { try PostgresTarget(uri: "postgresql://u:hunter2@db/mi") } throws: { error in
            let error = error as! PostgresError
            return error.kind == .configuration && !error.message.contains("hunter2")
        }
        #expect { try PostgresTarget(uri: "mysql://db/mi") } throws: { ($0 as! PostgresError).kind == .configuration }
        #expect { try PostgresTarget(uri: "postgresql://db/mi?nosuchoption=1") } throws: {
            ($0 as! PostgresError).kind == .configuration
        }
        // Failover lists keep every host in the description.
        let multi = try PostgresTarget(uri: "postgresql://u@db1:5432,db2:5433/mi?target_session_attrs=read-write")
        #expect(multi.description == "db1:5432,db2:5433/mi")
    }

    @Test func cleartextAllowedByConfigReallyConnectsWithoutTLS() throws {
        let plain = "postgresql://miadmin@127.0.0.1:\(fixture["PG_PORT"])/mi?sslmode=disable"
        let connection = try PostgresConnection(target: try PostgresTarget(uri: plain, allowCleartext: true),
                                                password: fixture.password)
        #expect(try connection.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").string(0, 0) == "f")
    }

    @Test func anInstalledConsoleNeedsAnExplicitCA() throws {
        let noCA = "postgresql://miadmin@127.0.0.1:\(fixture["PG_PORT"])/mi"
        #expect { try PostgresConnection(target: try PostgresTarget(uri: noCA), password: fixture.password,
                                         conventions: .ignored) } throws: { error in
            let error = error as! PostgresError
            return error.kind == .configuration && error.message.contains("sslrootcert")
        }
    }
}

extension PostgresResult {
    /// A cell read as a whole number (tests only: the store reads rows through PostgresDatabase).
    func int64(_ row: Int, _ column: Int) -> Int64? { string(row, column).flatMap { Int64($0) } }
}
