import MIFiles
import Testing

@Suite struct UserPathTests {
    @Test(arguments: [
        ("~", "/home/ann"), ("~/r.pdf", "/home/ann/r.pdf"), ("~/a/b", "/home/ann/a/b"),
        // Only a leading `~` alone or before a slash: the rest is a name as typed.
        ("~ann/r.pdf", "~ann/r.pdf"), ("a/~/b", "a/~/b"), ("/tmp/~", "/tmp/~"), ("r~.pdf", "r~.pdf"), ("", ""),
    ])
    func aLeadingTildeIsHome(example: (typed: String, path: String)) {
        #expect(UserPath.expanded(example.typed, home: "/home/ann") == example.path)
        #expect(UserPath.expanded(example.typed, home: "/home/ann/") == example.path)
    }

    @Test func withoutAHomeThePathStaysAsTyped() {
        #expect(UserPath.expanded("~/r.pdf", home: nil) == "~/r.pdf")
        #expect(UserPath.expanded("~/r.pdf", home: "") == "~/r.pdf")
        #expect(UserPath.expanded("~/r.pdf", home: "/") == "/r.pdf")
    }
}
