import Foundation
import MITestSupport
import Testing

/// The permission matrix (docs/commands.md): each role's allowed and refused commands.
@Suite(.tags(.endToEnd, .ldap)) struct PermissionTests {
    let fixture = Fixture.shared

    func setUp() throws -> String {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Mine")
        try tree.form("asmith", "Hers")
        try tree.form("jdoe", "Done", completed: true)
        return try fixture.store(importing: tree.root)
    }

    @Test func technicianSeesOnlyOwnFormsAndNotices() throws {
        let config = try setUp()
        let forms = try MIAdmin.as_("jdoe", config: config, format: "csv", ["forms"])
        #expect(forms.status == 0, "\(forms.stderr)")
        #expect(forms.stdout.contains("Mine"))
        #expect(!forms.stdout.contains("Hers"))
        for refused in ["forms --owner asmith", "notices asmith", "users",
                        "move jdoe/Mine asmith", "comment jdoe/Done 'x'", "submit jdoe/Done", "audit",
                        "import /tmp", "export /tmp/x"] {
            let result = try MIAdmin.as_("jdoe", config: config, [refused])
            #expect(result.status == 1, "\(refused)")
            #expect(result.stderr.contains("role") || result.stderr.contains("technicians see only"), "\(refused): \(result.stderr)")
        }
        #expect(try MIAdmin.as_("jdoe", config: config, ["show jdoe/Mine"]).status == 0)
        // Another's form gets the answer of a missing one: nothing tells a technician it exists.
        let hers = try MIAdmin.as_("jdoe", config: config, ["show asmith/Hers"])
        let none = try MIAdmin.as_("jdoe", config: config, ["show asmith/Nothing"])
        #expect(hers.status == 1 && hers.stderr == none.stderr.replacingOccurrences(of: "Nothing", with: "Hers"), "\(hers.stderr)")
    }

    @Test func supportFixesButDoesNotApproveOrComment() throws {
        let config = try setUp()
        let move = try MIAdmin.as_("lchen", config: config, ["move jdoe/Mine asmith"])
        #expect(move.status == 0, "\(move.stderr)")
        for refused in ["comment jdoe/Done 'x'", "submit jdoe/Done"] {
            let result = try MIAdmin.as_("lchen", config: config, [refused])
            #expect(result.status == 1)
            #expect(result.stderr.contains("needs the foreman role; you are support"), "\(result.stderr)")
        }
        for allowed in ["forms", "users nbody", "audit", "show asmith/Hers"] {
            #expect(try MIAdmin.as_("lchen", config: config, [allowed]).status == 0, "\(allowed)")
        }
    }

    @Test func foremanMayDoAll() throws {
        let config = try setUp()
        for allowed in ["forms", "users nbody", "audit", "show asmith/Hers", "move jdoe/Mine asmith",
                        "comment jdoe/Done 'ok'", "submit --yes jdoe/Done", "notices asmith"] {
            let result = try MIAdmin.as_("mkhan", config: config, [allowed])
            #expect(result.status == 0, "\(allowed): \(result.stderr)")
        }
    }
}
