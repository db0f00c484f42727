import MIText
import Testing

/// The confusable skeleton: texts a reader cannot tell apart get the same one.
@Suite struct SkeletonTests {
    @Test(arguments: [
        ("jd\u{43E}e", "jdoe"),                 // Cyrillic о
        ("\u{430}smith", "asmith"),             // Cyrillic а
        ("mu\u{308}ller", "m\u{FC}ller"),       // NFD and NFC
        ("\u{FF4A}\u{FF44}\u{FF4F}\u{FF45}", "jdoe"),  // fullwidth
        ("jd\u{3BF}e", "jdoe"),                 // Greek ο
        ("jd\u{200B}oe", "jdoe"),               // zero-width space
        ("jdo\u{34F}e", "jdoe"),                // combining grapheme joiner
        ("\u{420}\u{410}SSWORD", "PASSWORD"),   // Cyrillic capitals
    ])
    func lookAlikesShareTheirSkeleton(_ pair: (String, String)) {
        #expect(Skeleton.of(pair.0) == Skeleton.of(pair.1))
        #expect(Skeleton.lookAlike(pair.0, pair.1))
    }

    @Test(arguments: [("jdoe", "jdoe2"), ("mueller", "m\u{FC}ller"), ("jdoe", "JDOE"), ("Иван", "Ivan")])
    func differentTextsKeepDifferentSkeletons(_ pair: (String, String)) {
        #expect(!Skeleton.lookAlike(pair.0, pair.1))
    }

    @Test func theSkeletonOfLatinTextIsTheTextItself() {
        #expect(Skeleton.of("Pump station 4 – Schieber") == "Pump station 4 – Schieber")
    }
}
