import Testing
@testable import MIDirectory

@Suite struct FilterEscapingTests {
    @Test func escapesTheRFC4515Set() {
        #expect(FilterEscaping.escape("a*)(uid=*") == "a\\2a\\29\\28uid=\\2a")
        #expect(FilterEscaping.escape("x)(|(uid=*") == "x\\29\\28|\\28uid=\\2a")
        #expect(FilterEscaping.escape("back\\slash") == "back\\5cslash")
        #expect(FilterEscaping.escape("nul\u{0}") == "nul\\00")
    }

    @Test func leavesUTF8AndOrdinaryTextAlone() {
        #expect(FilterEscaping.escape("Zoë Ångström") == "Zoë Ångström")
        #expect(FilterEscaping.escape("O'Brien, Seán") == "O'Brien, Seán")
    }

    @Test func globBecomesSubstringFilterWithEscapedPieces() {
        #expect(FilterEscaping.substringFilterValue(forGlob: "j*") == "j*")
        #expect(FilterEscaping.substringFilterValue(forGlob: "*(night*") == "*\\28night*")
        #expect(FilterEscaping.substringFilterValue(forGlob: "u0000?") == "u0000*")
        #expect(FilterEscaping.substringFilterValue(forGlob: "a**b") == "a*b")
        #expect(FilterEscaping.substringFilterValue(forGlob: "star\\*") == "star\\2a")
    }
}

@Suite struct GlobTests {
    @Test func matchesLikeAShellIgnoringCase() {
        #expect(Glob("j*").matches("jdoe"))
        #expect(Glob("J*").matches("jdoe"))
        #expect(!Glob("j*").matches("asmith"))
        #expect(Glob("u0000?").matches("u00001"))
        #expect(!Glob("u0000?").matches("u000012"))
        #expect(Glob("*ångström*").matches("Zoë Ångström"))
        #expect(Glob("*(night shift)").matches("O'Brien, Seán (night shift)"))
        #expect(Glob("a*b*c").matches("aXXbYYc"))
        #expect(!Glob("a*b*c").matches("aXXbYY"))
    }

    @Test func backslashMakesWildcardsLiteral() {
        #expect(Glob("a\\*").matches("a*"))
        #expect(!Glob("a\\*").matches("ab"))
        #expect(Glob("a\\*").isLiteral)
        #expect(!Glob("a*").isLiteral)
    }
}
