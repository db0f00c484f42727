import Foundation
import MITestSupport
import Testing

/// `users` through the built binary against the real directory.
@Suite(.tags(.endToEnd, .ldap)) struct UsersCommandTests {
    let fixture = Fixture.shared

    @Test func csvListsEveryUserPastTheSizeLimit() throws {
        let result = try MIAdmin.as_("mkhan", format: "csv", ["users"])
        #expect(result.status == 0, "\(result.stderr)")
        let bulk = Int(fixture["BULK_USERS"]) ?? 0
        #expect(bulk > 500)
        #expect(result.lines.first == "uid,name,mail,roles")
        #expect(result.lines.count == 1 + bulk + 8)
    }

    @Test func tableListingLongerThanItsSizingRowsKeepsEveryRow() throws {
        // The table renderer sizes columns from the first 1,000 rows, then streams the rest.
        let result = try MIAdmin.as_("mkhan", ["users"])
        #expect(result.status == 0)
        let total = (Int(fixture["BULK_USERS"]) ?? 0) + 8
        #expect(total > 1_000)
        #expect(result.lines.count == total + 3, "header, rule, rows, footer")
        #expect(result.lines.last == "(\(total) rows)")
        #expect(result.lines.contains { $0.hasPrefix("u03000 ") })
    }

    @Test func nonASCIINamesRoundTripInJSON() throws {
        let result = try MIAdmin.as_("mkhan", format: "json", ["users --role technician '*(night shift)'", "users zangstrom"])
        #expect(result.status == 0, "\(result.stderr)")
        // Two commands: one JSON document holding their two arrays.
        let values = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any], "\(result.stdout)")
        #expect(values.count == 2)
        let first = values[0] as? [[String: Any]]
        #expect(first?.count == 1)
        #expect(first?.first?["name"] as? String == "O'Brien, Seán (night shift)")
        #expect(first?.first?["roles"] as? [String] == ["technician"])
        let second = values[1] as? [[String: Any]]
        #expect(second?.first?["name"] as? String == "Zoë Ångström")
    }

    @Test func nonASCIINamesRoundTripInCSVAndTable() throws {
        let csv = try MIAdmin.as_("mkhan", format: "csv", ["users sobrien", "users zangstrom"])
        #expect(csv.status == 0)
        #expect(csv.stdout.contains("sobrien,\"O'Brien, Seán (night shift)\",sobrien@example.com,technician\r\n"))
        #expect(csv.stdout.contains("zangstrom,Zoë Ångström,zangstrom@example.com,technician\r\n"))
        let table = try MIAdmin.as_("mkhan", ["users z*"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("Zoë Ångström"))
        #expect(table.stdout.contains("(1 row)"))
    }

    @Test func patternIsEscapedBeforeTheFilter() throws {
        // A pattern that would widen an unescaped filter to everyone must match nobody.
        let result = try MIAdmin.as_("mkhan", format: "csv", ["users 'x)(|(uid=*'"])
        #expect(result.status == 0)
        #expect(result.lines.count == 1)  // header only
    }

    @Test func technicianMayNotListUsers() throws {
        let result = try MIAdmin.as_("jdoe", ["users"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("needs the foreman or support role"))
    }

    @Test func unknownRoleIsAUsageError() throws {
        let result = try MIAdmin.as_("mkhan", ["users --role boss"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("boss"))
    }
}
