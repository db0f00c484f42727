import CPangoCairo
import Foundation

/// A media file shown as a picture in the report: a JPEG embedded as it is (its bytes become the
/// PDF image, no decoding), or a PNG decoded by cairo. Owns its cairo surface.
final class ReportImage {
    let surface: OpaquePointer
    let width: Int
    let height: Int

    /// The picture for `data` of a file with extension `ext`; nil when it is not a JPEG or PNG
    /// cairo can use (the report then lists the file like audio and video).
    init?(data: Data, ext: String) {
        let surface: OpaquePointer?
        switch ext.lowercased() {
        case "jpg", "jpeg":
            guard let size = JPEGSize(data) else { return nil }
            surface = data.withUnsafeBytes { bytes in
                miadmin_jpeg_surface(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                                     Int32(size.width), Int32(size.height))
            }
        case "png":
            let decoded = data.withUnsafeBytes { bytes in
                miadmin_png_surface(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
            }
            surface = decoded.map(Self.thumbnail)
        default:
            return nil
        }
        guard let surface else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        self.surface = surface
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        guard width > 0, height > 0 else {
            cairo_surface_destroy(surface)
            return nil
        }
    }

    deinit { cairo_surface_destroy(surface) }

    /// The most pixels a decoded picture keeps on its long side: twice the thumbnail's width in
    /// points, sharp when printed. A PNG is embedded as its decoded pixels, so a 4000 x 3000 photo
    /// would otherwise put 36 MB into the PDF for a 150-point thumbnail.
    static let thumbnailPixels = 320

    /// `decoded` scaled down to ``thumbnailPixels`` on its long side (the original is destroyed),
    /// or `decoded` itself when it is small enough or not usable.
    private static func thumbnail(_ decoded: OpaquePointer) -> OpaquePointer {
        let width = Int(cairo_image_surface_get_width(decoded)), height = Int(cairo_image_surface_get_height(decoded))
        guard cairo_surface_status(decoded) == CAIRO_STATUS_SUCCESS, max(width, height) > thumbnailPixels else { return decoded }
        let scale = Double(thumbnailPixels) / Double(max(width, height))
        // The decoded format: RGB24 for a PNG without transparency, so the PDF gets no soft mask.
        let small = cairo_image_surface_create(cairo_image_surface_get_format(decoded), Int32(max(1, (Double(width) * scale).rounded())),
                                               Int32(max(1, (Double(height) * scale).rounded())))
        guard let small, cairo_surface_status(small) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(small) else {
            if let small { cairo_surface_destroy(small) }
            return decoded
        }
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, decoded, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_destroy(decoded)
        return small
    }

    /// The size that fits `maxWidth` x `maxHeight`, keeping the aspect ratio.
    func fitted(maxWidth: Double, maxHeight: Double) -> (width: Double, height: Double) {
        let scale = min(maxWidth / Double(width), maxHeight / Double(height), 1)
        return (Double(width) * scale, Double(height) * scale)
    }

    /// Paints the picture scaled into the rectangle.
    func draw(on cr: OpaquePointer, x: Double, y: Double, width boxWidth: Double, height boxHeight: Double) {
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, boxWidth / Double(width), boxHeight / Double(height))
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }
}

/// The pixel size of a baseline or progressive JPEG, read from its SOF marker; nil when the
/// bytes are not a JPEG (cairo embeds JPEG bytes without decoding, so the size must come from here).
struct JPEGSize: Equatable {
    let width: Int
    let height: Int

    init?(_ data: Data) {
        let bytes = [UInt8](data.prefix(1 << 20))   // the SOF marker comes before the image data
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var i = 2
        while i + 3 < bytes.count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }            // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2 else { return nil }
            // SOF0-15 except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 8 < bytes.count else { return nil }
                height = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                width = Int(bytes[i + 7]) << 8 | Int(bytes[i + 8])
                guard width > 0, height > 0 else { return nil }
                return
            }
            if marker == 0xDA || marker == 0xD9 { return nil }   // image data before any SOF
            i += 2 + length
        }
        return nil
    }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
