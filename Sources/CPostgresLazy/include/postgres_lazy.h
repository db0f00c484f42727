#ifndef MIADMIN_POSTGRES_LAZY_H
#define MIADMIN_POSTGRES_LAZY_H
// libpq, opened on the first use of a PostgreSQL store (see lazy_library.h for why).

/// Opens libpq; 1 when it is open, 0 with *error saying why not.
int miadmin_postgres_open(const char **error);

/// The soname opened, for messages.
const char *miadmin_postgres_soname(void);

struct pg_conn;

/// Up to `length` bytes the server has sent on `conn` that libpq has not read yet, left for
/// libpq to read: decrypted from the next TLS record (SSL_peek), or from the socket when the
/// connection has no TLS (recv with MSG_PEEK). Returns how many; 0 when nothing whole is there
/// yet; -1 when the connection failed or closed.
int miadmin_postgres_peek(struct pg_conn *conn, void *buffer, int length);
#endif
