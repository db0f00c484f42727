#ifndef MIADMIN_PANGOCAIRO_LAZY_H
#define MIADMIN_PANGOCAIRO_LAZY_H
// cairo + pango (and glib's g_object_unref), opened on the first PDF report (see
// lazy_library.h for why).

/// Opens libpangocairo (and with it pango, cairo, glib); 1 when open, 0 with *error saying why not.
int miadmin_pangocairo_open(const char **error);

/// The soname opened, for messages.
const char *miadmin_pangocairo_soname(void);
#endif
