#ifndef MIADMIN_CLDAP_SHIM_H
#define MIADMIN_CLDAP_SHIM_H
// <sys/time.h> first: without it `struct timeval *` imports as an opaque pointer.
#include <sys/time.h>
#include <lber.h>
#include <ldap.h>
#include <sasl/sasl.h>

/// Where Cyrus SASL looks for its plug-ins: a folder that does not exist.
static int miadmin_sasl_no_plugin_path(void *context, const char **path) {
    (void)context;
    *path = "/nonexistent/miadmin-uses-no-sasl-plugins";
    return SASL_OK;
}

/// Starts Cyrus SASL's client side with no plug-ins, before libldap's first call does it with
/// the system's plug-in folder: libldap then finds SASL started (sasl_client_init only counts
/// the second call) and nothing is loaded. miadmin binds with simple binds only (over TLS), so
/// the plug-ins (GSSAPI, SCRAM, DIGEST-MD5, ... with Kerberos and Berkeley DB behind them) were
/// dead weight at every start (docs/benchmarks.md), and eight libraries fewer in a setgid
/// process. Call once, before any other libldap function.
static inline int miadmin_sasl_start_without_plugins(void) {
    static const sasl_callback_t callbacks[] = {
        { SASL_CB_GETPATH, (int (*)(void))miadmin_sasl_no_plugin_path, NULL },
        { SASL_CB_LIST_END, NULL, NULL },
    };
    return sasl_client_init(callbacks);
}
#endif
