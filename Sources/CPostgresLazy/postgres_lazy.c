// Trampolines for the libpq functions miadmin calls (MIStore's PostgreSQL engine). A function
// added to the Swift code needs its line here, or the link fails naming it.
#include "postgres_lazy.h"
#include "lazy_library.h"
#include <libpq-fe.h>
#include <errno.h>
#include <sys/socket.h>

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
MIADMIN_LAZY(pq, int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
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
// Connecting step by step, so the console sees each authentication request before libpq
// answers it (PostgresAuthentication.swift).
MIADMIN_LAZY(pq, PGconn *, PQconnectStartParams,
             (const char *const *keywords, const char *const *values, int expand_dbname),
             (keywords, values, expand_dbname))
MIADMIN_LAZY(pq, PostgresPollingStatusType, PQconnectPoll, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, int, PQsocket, (const PGconn *conn), (conn))
// Asking a host without blocking whether it is a primary (PostgresPrimaryCheck.swift).
MIADMIN_LAZY(pq, int, PQsendQuery, (PGconn *conn, const char *query), (conn, query))
MIADMIN_LAZY(pq, int, PQconsumeInput, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, int, PQisBusy, (PGconn *conn), (conn))
MIADMIN_LAZY(pq, void *, PQsslStruct, (PGconn *conn, const char *struct_name), (conn, struct_name))

// OpenSSL's SSL_peek and SSL_get_error, looked up through libpq's handle (dlsym on a handle
// searches the library's own dependencies: the libssl libpq was built with). Declared here by
// shape so that miadmin needs no OpenSSL headers.
typedef int (*miadmin_ssl_peek_fn)(void *ssl, void *buf, int num);
typedef int (*miadmin_ssl_get_error_fn)(const void *ssl, int ret);

int miadmin_postgres_peek(PGconn *conn, void *buffer, int length) {
    void *ssl = PQsslStruct(conn, "OpenSSL");
    if (ssl == NULL) {
        ssize_t n = recv(PQsocket(conn), buffer, (size_t)length, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0) return (int)n;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
        return -1;
    }
    static miadmin_ssl_peek_fn resolved_peek;
    static miadmin_ssl_get_error_fn resolved_get_error;
    miadmin_ssl_peek_fn peek = __atomic_load_n(&resolved_peek, __ATOMIC_ACQUIRE);
    miadmin_ssl_get_error_fn get_error = __atomic_load_n(&resolved_get_error, __ATOMIC_ACQUIRE);
    if (peek == NULL || get_error == NULL) {
        get_error = (miadmin_ssl_get_error_fn)miadmin_library_symbol(&pq, "SSL_get_error");
        peek = (miadmin_ssl_peek_fn)miadmin_library_symbol(&pq, "SSL_peek");
        __atomic_store_n(&resolved_get_error, get_error, __ATOMIC_RELEASE);
        __atomic_store_n(&resolved_peek, peek, __ATOMIC_RELEASE);
    }
    int n = peek(ssl, buffer, length);
    if (n > 0) return n;
    int reason = get_error(ssl, n);
    // SSL_ERROR_WANT_READ (2) and SSL_ERROR_WANT_WRITE (3): not a whole record yet.
    if (reason == 2 || reason == 3) return 0;
    return -1;
}
