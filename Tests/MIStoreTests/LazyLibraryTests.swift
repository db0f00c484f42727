import CLazyLibrary
import Foundation
import Testing

/// The loader behind libpq's and cairo's trampolines (Sources/CLazyLibrary): a library opened on
/// first use, and a clear reason when it cannot be.
@Suite struct LazyLibraryTests {
    /// A library record for `soname`; the strings live as long as the process (as the real ones).
    func library(_ soname: String) -> miadmin_library {
        var library = miadmin_library()
        library.soname = UnsafePointer(strdup(soname))
        library.purpose = UnsafePointer(strdup("a test"))
        return library
    }

    @Test func opensALibraryOnceAndFindsItsFunctions() throws {
        var zlib = library("libz.so.1")
        var error: UnsafePointer<CChar>?
        #expect(miadmin_library_open(&zlib, &error) == 1)
        #expect(error == nil)
        let handle = zlib.handle
        #expect(miadmin_library_open(&zlib, &error) == 1)
        #expect(zlib.handle == handle)
        let version = try #require(miadmin_library_symbol(&zlib, "zlibVersion"))
        typealias ZlibVersion = @convention(c) () -> UnsafePointer<CChar>
        let text = String(cString: unsafeBitCast(version, to: ZlibVersion.self)())
        #expect(text.hasPrefix("1."))
    }

    @Test func aMissingLibrarySaysWhyAndStaysMissing() {
        var missing = library("libmiadmin-no-such-library.so.0")
        var error: UnsafePointer<CChar>?
        #expect(miadmin_library_open(&missing, &error) == 0)
        let reason = error.map { String(cString: $0) } ?? ""
        #expect(reason.contains("libmiadmin-no-such-library.so.0"), "\(reason)")
        #expect(reason.contains("No such file"), "\(reason)")
        error = nil
        #expect(miadmin_library_open(&missing, &error) == 0)
        #expect(error.map { String(cString: $0) } == reason)
    }
}
