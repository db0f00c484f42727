#ifndef MIADMIN_POSTGRES_LAZY_H
#define MIADMIN_POSTGRES_LAZY_H
// libpq, opened on the first use of a PostgreSQL store (see lazy_library.h for why).

/// Opens libpq; 1 when it is open, 0 with *error saying why not.
int miadmin_postgres_open(const char **error);

/// The soname opened, for messages.
const char *miadmin_postgres_soname(void);
#endif
