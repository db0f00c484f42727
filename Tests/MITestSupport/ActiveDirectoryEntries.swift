import Foundation

extension Fixture {
    /// Adds the entries of `ldif` to the Active Directory fixture as its Administrator; entries
    /// already there (from an earlier run against the same DC) are kept as they are.
    public func addADEntries(_ ldif: String) throws {
        let result = try Shell.run("/usr/bin/ldapmodify", ["-a", "-c", "-x", "-ZZ", "-H", self["LDAP_URI"],
                                                          "-D", "CN=Administrator,CN=Users,\(self["LDAP_BASE"])",
                                                          "-y", self["ADMIN_PW_FILE"]],
                                   environment: ["LDAPTLS_CACERT": self["CA_FILE"], "LDAPTLS_REQCERT": "demand"],
                                   input: ldif)
        let failures = (result.stderr + result.stdout).split(whereSeparator: \.isNewline)
            .filter { $0.contains("ldap_add:") && !$0.contains("Already exists") }
        guard result.status == 0 || (result.status == 68 && failures.isEmpty) else {
            throw ShellError(description: "ldapmodify on the AD fixture failed (\(result.status)): \(result.stderr)\(result.stdout)")
        }
    }
}
