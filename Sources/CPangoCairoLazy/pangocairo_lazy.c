// Trampolines for the cairo, pango and glib functions miadmin calls (MIReport, and the inline
// helpers in CPangoCairo/shim.h). A function added to the Swift code needs its line here, or
// the link fails naming it. One handle: dlsym on libpangocairo's handle also searches the
// libraries it depends on (pango, cairo, gobject, glib).
#include "pangocairo_lazy.h"
#include "lazy_library.h"
#include <cairo/cairo.h>
#include <cairo/cairo-pdf.h>
#include <pango/pangocairo.h>

static miadmin_library pangocairo = { .soname = "libpangocairo-1.0.so.0", .purpose = "the PDF report" };

int miadmin_pangocairo_open(const char **error) { return miadmin_library_open(&pangocairo, error); }
const char *miadmin_pangocairo_soname(void) { return pangocairo.soname; }

#define CAIRO(ret, name, params, args) MIADMIN_LAZY(pangocairo, ret, name, params, args)
#define CAIRO_VOID(name, params, args) MIADMIN_LAZY_VOID(pangocairo, name, params, args)

// cairo
CAIRO(cairo_t *, cairo_create, (cairo_surface_t *target), (target))
CAIRO_VOID(cairo_destroy, (cairo_t *cr), (cr))
CAIRO_VOID(cairo_fill, (cairo_t *cr), (cr))
CAIRO(cairo_pattern_t *, cairo_get_source, (cairo_t *cr), (cr))
CAIRO(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height),
      (format, width, height))
CAIRO(cairo_surface_t *, cairo_image_surface_create_from_png_stream, (cairo_read_func_t read_func, void *closure),
      (read_func, closure))
CAIRO(cairo_format_t, cairo_image_surface_get_format, (cairo_surface_t *surface), (surface))
CAIRO(int, cairo_image_surface_get_height, (cairo_surface_t *surface), (surface))
CAIRO(int, cairo_image_surface_get_width, (cairo_surface_t *surface), (surface))
CAIRO_VOID(cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y))
CAIRO_VOID(cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
CAIRO_VOID(cairo_paint, (cairo_t *cr), (cr))
CAIRO_VOID(cairo_pattern_set_filter, (cairo_pattern_t *pattern, cairo_filter_t filter), (pattern, filter))
CAIRO(cairo_surface_t *, cairo_pdf_surface_create,
      (const char *filename, double width_in_points, double height_in_points),
      (filename, width_in_points, height_in_points))
CAIRO(cairo_surface_t *, cairo_pdf_surface_create_for_stream,
      (cairo_write_func_t write_func, void *closure, double width_in_points, double height_in_points),
      (write_func, closure, width_in_points, height_in_points))
CAIRO_VOID(cairo_pdf_surface_set_metadata,
           (cairo_surface_t *surface, cairo_pdf_metadata_t metadata, const char *utf8), (surface, metadata, utf8))
CAIRO_VOID(cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height))
CAIRO_VOID(cairo_restore, (cairo_t *cr), (cr))
CAIRO_VOID(cairo_save, (cairo_t *cr), (cr))
CAIRO_VOID(cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy))
CAIRO_VOID(cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
CAIRO_VOID(cairo_set_source_rgb, (cairo_t *cr, double red, double green, double blue), (cr, red, green, blue))
CAIRO_VOID(cairo_set_source_surface, (cairo_t *cr, cairo_surface_t *surface, double x, double y), (cr, surface, x, y))
CAIRO_VOID(cairo_show_page, (cairo_t *cr), (cr))
CAIRO(const char *, cairo_status_to_string, (cairo_status_t status), (status))
CAIRO_VOID(cairo_stroke, (cairo_t *cr), (cr))
CAIRO_VOID(cairo_surface_destroy, (cairo_surface_t *surface), (surface))
CAIRO_VOID(cairo_surface_finish, (cairo_surface_t *surface), (surface))
CAIRO(cairo_status_t, cairo_surface_set_mime_data,
      (cairo_surface_t *surface, const char *mime_type, const unsigned char *data, unsigned long length,
       cairo_destroy_func_t destroy, void *closure),
      (surface, mime_type, data, length, destroy, closure))
CAIRO(cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
CAIRO_VOID(cairo_translate, (cairo_t *cr, double tx, double ty), (cr, tx, ty))

// pango
CAIRO(PangoLayout *, pango_cairo_create_layout, (cairo_t *cr), (cr))
CAIRO_VOID(pango_cairo_show_layout, (cairo_t *cr, PangoLayout *layout), (cr, layout))
CAIRO_VOID(pango_cairo_show_layout_line, (cairo_t *cr, PangoLayoutLine *line), (cr, line))
CAIRO_VOID(pango_font_description_free, (PangoFontDescription *desc), (desc))
CAIRO(PangoFontDescription *, pango_font_description_from_string, (const char *str), (str))
CAIRO_VOID(pango_layout_get_extents, (PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect),
           (layout, ink_rect, logical_rect))
CAIRO(PangoLayoutIter *, pango_layout_get_iter, (PangoLayout *layout), (layout))
CAIRO(PangoLayoutLine *, pango_layout_get_line_readonly, (PangoLayout *layout, int line), (layout, line))
CAIRO_VOID(pango_layout_iter_free, (PangoLayoutIter *iter), (iter))
CAIRO(int, pango_layout_iter_get_baseline, (PangoLayoutIter *iter), (iter))
CAIRO_VOID(pango_layout_iter_get_line_extents,
           (PangoLayoutIter *iter, PangoRectangle *ink_rect, PangoRectangle *logical_rect),
           (iter, ink_rect, logical_rect))
CAIRO(gboolean, pango_layout_iter_next_line, (PangoLayoutIter *iter), (iter))
CAIRO_VOID(pango_layout_set_ellipsize, (PangoLayout *layout, PangoEllipsizeMode ellipsize), (layout, ellipsize))
CAIRO_VOID(pango_layout_set_font_description, (PangoLayout *layout, const PangoFontDescription *desc), (layout, desc))
CAIRO_VOID(pango_layout_set_height, (PangoLayout *layout, int height), (layout, height))
CAIRO_VOID(pango_layout_set_text, (PangoLayout *layout, const char *text, int length), (layout, text, length))
CAIRO_VOID(pango_layout_set_width, (PangoLayout *layout, int width), (layout, width))
CAIRO_VOID(pango_layout_set_wrap, (PangoLayout *layout, PangoWrapMode wrap), (layout, wrap))

// glib
CAIRO_VOID(g_object_unref, (gpointer object), (object))
