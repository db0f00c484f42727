// Trampolines for the libpq functions miadmin calls (MIStore's PostgreSQL engine). A function
// added to the Swift code needs its line here, or the link fails naming it.
#include "postgres_lazy.h"
#include "lazy_library.h"
#include <libpq-fe.h>

static miadmin_library pq = { .soname = "libpq.so.5", .purpose = "the PostgreSQL store" };

int miadmin_postgres_open(const char **error) { return miadmin_library_open(&pq, error); }
const char *miadmin_postgres_soname(void) { return pq.soname; }

MIADMIN_LAZY_VOID(pq, PQclear, (PGresult *res), (res))
MIADMIN_LAZY(pq, char *, PQcmdTuples, (PGresult *res), (res))
MIADMIN_LAZY(pq, PGconn *, PQconnectdbParams,
             (const char *const *keywords, const char *const *values, int expand_dbname),
             (keywords, values, expand_dbname))
MIADMIN_LAZY_VOID(pq, PQconninfoFree, (PQconninfoOption *connOptions), (connOptions))
MIADMIN_LAZY(pq, PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))
MIADMIN_LAZY(pq, char *, PQerrorMessage, (const PGconn *conn), (conn))
MIADMIN_LAZY(pq, PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))
MIADMIN_LAZY(pq, PGresult *, PQexecParams,
             (PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
              const char *const *paramValues, const int *paramLengths, const int *paramFormats,
              int resultFormat),
             (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
MIADMIN_LAZY(pq, PGresult *, PQexecPrepared,
             (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
              const int *paramLengths, const int *paramFormats, int resultFormat),
             (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))
MIADMIN_LAZY_VOID(pq, PQfinish, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, char *, PQfname, (const PGresult *res, int field_num), (res, field_num))
MIADMIN_LAZY_VOID(pq, PQfreemem, (void *ptr), (ptr))
MIADMIN_LAZY(pq, Oid, PQftype, (const PGresult *res, int field_num), (res, field_num))
MIADMIN_LAZY(pq, int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
MIADMIN_LAZY(pq, char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
MIADMIN_LAZY(pq, int, PQnfields, (const PGresult *res), (res))
MIADMIN_LAZY(pq, int, PQntuples, (const PGresult *res), (res))
MIADMIN_LAZY(pq, PGresult *, PQprepare,
             (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes),
             (conn, stmtName, query, nParams, paramTypes))
MIADMIN_LAZY_VOID(pq, PQreset, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
MIADMIN_LAZY(pq, char *, PQresultErrorMessage, (const PGresult *res), (res))
MIADMIN_LAZY(pq, ExecStatusType, PQresultStatus, (const PGresult *res), (res))
// How large a listing's FETCH may grow (PostgresDatabase.forEachRow).
MIADMIN_LAZY(pq, size_t, PQresultMemorySize, (const PGresult *res), (res))
MIADMIN_LAZY(pq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg),
             (conn, proc, arg))
MIADMIN_LAZY(pq, ConnStatusType, PQstatus, (const PGconn *conn), (conn))
// The engine's reconnection message and pooler detection (PostgresConnection).
MIADMIN_LAZY(pq, char *, PQhost, (const PGconn *conn), (conn))
MIADMIN_LAZY(pq, char *, PQport, (const PGconn *conn), (conn))
MIADMIN_LAZY(pq, int, PQbackendPID, (const PGconn *conn), (conn))
MIADMIN_LAZY(pq, unsigned char *, PQunescapeBytea, (const unsigned char *strtext, size_t *retbuflen),
             (strtext, retbuflen))
// Pipeline mode: a write's statements sent in one round trip (PostgresConnection.pipeline).
MIADMIN_LAZY(pq, int, PQenterPipelineMode, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, int, PQexitPipelineMode, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, int, PQpipelineSync, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, PGresult *, PQgetResult, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, int, PQsendQueryParams,
             (PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
              const char *const *paramValues, const int *paramLengths, const int *paramFormats,
              int resultFormat),
             (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
MIADMIN_LAZY(pq, int, PQsendPrepare,
             (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes),
             (conn, stmtName, query, nParams, paramTypes))
MIADMIN_LAZY(pq, int, PQsendQueryPrepared,
             (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
              const int *paramLengths, const int *paramFormats, int resultFormat),
             (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))
