#ifndef MIADMIN_CPANGOCAIRO_SHIM_H
#define MIADMIN_CPANGOCAIRO_SHIM_H
// cairo (PDF surface, images) and pango (text layout, font fallback), wrapped once.
// Linked through pkg-config "pangocairo" (Package.swift), which brings pango, glib and cairo.
#include <stdlib.h>
#include <string.h>
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <pango/pangocairo.h>

/// Reading a PNG from memory: cairo reads PNGs only through a callback.
typedef struct {
    const unsigned char *data;
    size_t length;
    size_t offset;
} miadmin_png_reader;

static cairo_status_t miadmin_png_read(void *closure, unsigned char *out, unsigned int length) {
    miadmin_png_reader *reader = (miadmin_png_reader *)closure;
    if (reader->length - reader->offset < length) return CAIRO_STATUS_READ_ERROR;
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
    return CAIRO_STATUS_SUCCESS;
}

/// A decoded PNG; check cairo_surface_status (a broken PNG gives an error surface).
static inline cairo_surface_t *miadmin_png_surface(const unsigned char *data, size_t length) {
    miadmin_png_reader reader = { data, length, 0 };
    return cairo_image_surface_create_from_png_stream(miadmin_png_read, &reader);
}

/// An image surface of the JPEG's size carrying the JPEG bytes as MIME data: the PDF surface
/// embeds those bytes as they are (DCTDecode) and never reads the surface's pixels, whose
/// memory the system maps lazily and so never fills. The bytes are copied; cairo frees the copy.
static inline cairo_surface_t *miadmin_jpeg_surface(const unsigned char *data, size_t length, int width, int height) {
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) return surface;
    unsigned char *copy = malloc(length);
    if (copy == NULL) {
        cairo_surface_destroy(surface);
        return cairo_image_surface_create(CAIRO_FORMAT_INVALID, 0, 0);
    }
    memcpy(copy, data, length);
    cairo_status_t status = cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, copy, length, free, copy);
    if (status != CAIRO_STATUS_SUCCESS) {
        free(copy);
        cairo_surface_destroy(surface);
        return cairo_image_surface_create(CAIRO_FORMAT_INVALID, 0, 0);
    }
    return surface;
}

/// A PDF surface that writes nowhere: the first pass of a report only counts pages.
static inline cairo_surface_t *miadmin_pdf_surface_null(double width, double height) {
    return cairo_pdf_surface_create_for_stream(NULL, NULL, width, height);
}

static inline int miadmin_pango_scale(void) { return PANGO_SCALE; }
#endif
