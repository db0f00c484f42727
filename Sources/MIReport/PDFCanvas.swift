import CPangoCairo
import Foundation
import MIFiles

/// An A4 PDF being laid out top to bottom: one cairo PDF surface and context, pango for text,
/// new pages as the content needs them, a footer on each.
///
/// The same layout runs twice (``ReviewReport``): first on a surface that writes nowhere, to
/// count pages for "Page N of M"; then on the file. Owns its cairo handles and frees them.
final class PDFCanvas {
    static let pageWidth = 595.0, pageHeight = 842.0   // A4 in points
    static let margin = 48.0
    static let footerHeight = 28.0

    let surface: OpaquePointer
    let cr: OpaquePointer
    /// False on the counting pass: nothing is drawn, images are not decoded.
    let drawing: Bool
    /// The footer: what is printed on the left of every page, and the page label on the right.
    var footer = ""
    var pageLabel: (_ page: Int) -> String = { "Page \($0)" }
    private(set) var page = 1
    /// Where the next content goes (from the top of the page, in points).
    var y = margin

    var left: Double { Self.margin }
    var width: Double { Self.pageWidth - 2 * Self.margin }
    var bottom: Double { Self.pageHeight - Self.margin - Self.footerHeight }
    var space: Double { bottom - y }

    /// Where cairo's write callback puts the bytes: the file's descriptor, and the first error.
    private final class Sink {
        let file: NewFile
        var error: FileError?
        init(_ file: NewFile) { self.file = file }
    }
    private let sink: Unmanaged<Sink>?

    /// A canvas writing into `file` (nil: the counting pass, writing nowhere). cairo never gets a
    /// path: it hands its bytes to a callback that writes them through the file's descriptor.
    init(file: NewFile?, title: String) throws {
        try ReportLibrary.open()
        let surface: OpaquePointer?
        if let file {
            let sink = Unmanaged.passRetained(Sink(file))
            self.sink = sink
            surface = cairo_pdf_surface_create_for_stream({ closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
                do throws(FileError) {
                    try sink.file.write(UnsafeRawBufferPointer(start: data, count: Int(length)))
                    return CAIRO_STATUS_SUCCESS
                } catch {
                    sink.error = sink.error ?? error
                    return CAIRO_STATUS_WRITE_ERROR
                }
            }, sink.toOpaque(), Self.pageWidth, Self.pageHeight)
        } else {
            sink = nil
            surface = miadmin_pdf_surface_null(Self.pageWidth, Self.pageHeight)
        }
        guard let surface else {
            sink?.release()
            throw ReportError("cairo could not create a PDF surface")
        }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            let message = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
            cairo_surface_destroy(surface)
            sink?.release()
            throw ReportError("cannot write the PDF: \(message)")
        }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "miadmin")
        guard let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            sink?.release()
            throw ReportError("cairo could not create a context")
        }
        self.surface = surface
        self.cr = cr
        drawing = file != nil
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
        sink?.release()
    }

    /// Ends the last page and writes the file; the page count.
    func finish() throws -> Int {
        drawFooter()
        cairo_show_page(cr)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        if let error = sink?.takeUnretainedValue().error { throw ReportError("cannot write the PDF: \(error)") }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw ReportError("cannot write the PDF: \(String(cString: cairo_status_to_string(status)))")
        }
        return page
    }

    func newPage() {
        drawFooter()
        cairo_show_page(cr)
        page += 1
        y = Self.margin
    }

    /// Starts a new page unless `height` points fit on this one (or the page is still empty).
    func ensure(_ height: Double) {
        if height > space && y > Self.margin + 0.5 { newPage() }
    }

    private func drawFooter() {
        guard drawing else { return }
        let top = Self.pageHeight - Self.margin - Self.footerHeight + 12
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45)
        cairo_set_line_width(cr, 0.5)
        cairo_move_to(cr, left, top - 4)
        cairo_line_to(cr, left + width, top - 4)
        cairo_stroke(cr)
        let label = TextLayout(self, pageLabel(page), style: .footer, width: 100)
        let labelWidth = label.size.width
        label.draw(at: left + width - labelWidth, top: top, color: (0.2, 0.2, 0.2))
        TextLayout(self, footer, style: .footer, width: width - labelWidth - 16, maxLines: 2)
            .draw(at: left, top: top, color: (0.35, 0.35, 0.35))
    }

    // MARK: Drawing primitives

    /// Text that wraps at `width` and continues on the next page where the page ends, line by line.
    func paragraph(_ text: String, style: TextStyle, indent: Double = 0, color: RGB = (0, 0, 0),
                   background: RGB? = nil, after: Double = 3) {
        guard !text.isEmpty else { return }
        let layout = TextLayout(self, text, style: style, width: width - indent - (background == nil ? 0 : 8))
        for line in layout.lines() {
            ensure(line.height)
            if drawing {
                if let background {
                    fill(x: left + indent, y: y, width: width - indent, height: line.height, color: background)
                }
                layout.draw(line, at: left + indent + (background == nil ? 0 : 4), top: y, color: color)
            }
            y += line.height
        }
        y += after
    }

    func fill(x: Double, y: Double, width: Double, height: Double, color: RGB) {
        guard drawing else { return }
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_rectangle(cr, x, y, width, height)
        cairo_fill(cr)
    }

    func stroke(x: Double, y: Double, width: Double, height: Double, color: RGB, lineWidth: Double = 0.5) {
        guard drawing else { return }
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_set_line_width(cr, lineWidth)
        cairo_rectangle(cr, x, y, width, height)
        cairo_stroke(cr)
    }

    func rule(after: Double = 6) {
        ensure(1)
        if drawing {
            cairo_set_source_rgb(cr, 0.75, 0.75, 0.75)
            cairo_set_line_width(cr, 0.5)
            cairo_move_to(cr, left, y + 0.5)
            cairo_line_to(cr, left + width, y + 0.5)
            cairo_stroke(cr)
        }
        y += after
    }
}

typealias RGB = (Double, Double, Double)

/// The few text styles of the report; each a pango font description. The family list names the
/// DejaVu fonts first, WenQuanYi Micro Hei (fonts-wqy-microhei) for CJK and Symbola
/// (fonts-symbola), monochrome, for the symbols the others lack and for emoji where no colour
/// emoji font is installed. Emoji come in colour from Noto Color Emoji (fonts-noto-color-emoji):
/// pango asks fontconfig for an emoji font for them by itself. All from Scripts/install-deps.
///
/// Noto Color Emoji must not be named here: fontconfig then prefers colour fonts for the whole
/// text (its 60-generic.conf), and digits and spaces, which that font also has, become pictures.
/// cairo 1.16 paints a colour emoji as a small picture at the text's size (about 13 pixels at
/// 9.5 pt), not as font text: it prints recognisably but is soft when zoomed, and `pdftotext`
/// does not return it. Without any emoji font pango draws a box with the code point in hex.
enum TextStyle {
    case title, heading, body, bodyBold, small, smallItalic, cell, cellBold, footer

    var font: String {
        let families = "DejaVu Sans, WenQuanYi Micro Hei, Symbola, sans-serif"
        switch self {
        case .title: return "\(families) Bold 16"
        case .heading: return "\(families) Bold 10.5"
        case .body: return "\(families) 9.5"
        case .bodyBold: return "\(families) Bold 9.5"
        case .small: return "\(families) 8"
        case .smallItalic: return "\(families) Italic 8"
        case .cell: return "\(families) 7.5"
        case .cellBold: return "\(families) Bold 7.5"
        case .footer: return "\(families) 7.5"
        }
    }
}

/// A pango layout of one text at one width; freed when it goes away.
final class TextLayout {
    struct Line {
        let index: Int
        /// The top of the line relative to the layout's top, and its height, in points.
        let top: Double
        let height: Double
        let baseline: Double
        let x: Double
    }

    private let layout: OpaquePointer
    private let cr: OpaquePointer
    private static let scale = Double(miadmin_pango_scale())

    init(_ canvas: PDFCanvas, _ text: String, style: TextStyle, width: Double, maxLines: Int? = nil) {
        cr = canvas.cr
        layout = pango_cairo_create_layout(canvas.cr)
        let description = pango_font_description_from_string(style.font)
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_width(layout, Int32(max(1, width) * Self.scale))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        if let maxLines {
            pango_layout_set_height(layout, -Int32(maxLines))
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        }
        pango_layout_set_text(layout, text, -1)
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

    /// Width and height of the whole text, in points.
    var size: (width: Double, height: Double) {
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        return (Double(logical.width) / Self.scale, Double(logical.height) / Self.scale)
    }

    func lines() -> [Line] {
        var result: [Line] = []
        guard let iter = pango_layout_get_iter(layout) else { return result }
        defer { pango_layout_iter_free(iter) }
        var index = 0
        repeat {
            var logical = PangoRectangle()
            pango_layout_iter_get_line_extents(iter, nil, &logical)
            let baseline = Double(pango_layout_iter_get_baseline(iter)) / Self.scale
            let top = Double(logical.y) / Self.scale
            result.append(Line(index: index, top: top, height: Double(logical.height) / Self.scale,
                               baseline: baseline - top, x: Double(logical.x) / Self.scale))
            index += 1
        } while pango_layout_iter_next_line(iter) != 0
        return result
    }

    /// Draws one line with its top at `top`.
    func draw(_ line: Line, at x: Double, top: Double, color: RGB) {
        guard let pangoLine = pango_layout_get_line_readonly(layout, Int32(line.index)) else { return }
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_move_to(cr, x + line.x, top + line.baseline)
        pango_cairo_show_layout_line(cr, pangoLine)
    }

    /// Draws the whole layout with its top-left corner at (`x`, `top`).
    func draw(at x: Double, top: Double, color: RGB) {
        cairo_set_source_rgb(cr, color.0, color.1, color.2)
        cairo_move_to(cr, x, top)
        pango_cairo_show_layout(cr, layout)
    }
}

/// Why a report could not be written.
public struct ReportError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
