#ifndef MIADMIN_CPOSTGRES_SHIM_H
#define MIADMIN_CPOSTGRES_SHIM_H
// PostgreSQL's client library (libpq), wrapped once for MIStore's PostgreSQL engine.
#include <libpq-fe.h>
// PG_DIAG_* field codes (PG_DIAG_SQLSTATE is 'C').
#include <postgres_ext.h>
#endif
