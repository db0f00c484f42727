import MIDirectory
import Testing
@testable import MIConsole

@Suite("Login banner")
struct BannerTests {
    @Test func directoryValuesAreEscaped() {
        let user = DirectoryUser(uid: "evil\u{202E}", dn: "uid=evil,ou=people,dc=example,dc=com",
                                 name: "\u{1b}]0;pwned\u{07}\u{1b}[31mMallory\nfake line", mail: nil, roles: [.foreman])
        let banner = Console.banner(user: user, storePath: "/tmp/store.sqlite", directoryURI: "ldap://127.0.0.1")
        #expect(!banner.contains("\u{1b}") && !banner.contains("\u{07}") && !banner.contains("\u{202E}") && !banner.contains("\n"))
        #expect(banner.hasPrefix("miadmin: evil\\u{202e} (\\x1b]0;pwned\\x07\\x1b[31mMallory\\x0afake line; foreman)"))
    }
}
