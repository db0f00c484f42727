import CPangoCairoLazy

/// cairo and pango are opened on the first report, not at start-up (most sessions print nothing;
/// CLazyLibrary says why). ``PDFCanvas`` opens them before its first cairo call, so a machine
/// without them gets a message instead of an abort.
enum ReportLibrary {
    /// - Throws: ``ReportError`` naming the library and dlopen's reason.
    static func open() throws {
        var reason: UnsafePointer<CChar>?
        guard miadmin_pangocairo_open(&reason) == 0 else { return }
        let soname = String(cString: miadmin_pangocairo_soname())
        throw ReportError("PDF reports need cairo and pango (\(soname)), which cannot be loaded: "
                          + "\(reason.map { String(cString: $0) } ?? "unknown error"). "
                          + "Install the libpangocairo-1.0-0 package.")
    }
}
