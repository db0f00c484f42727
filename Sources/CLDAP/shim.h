#ifndef MIADMIN_CLDAP_SHIM_H
#define MIADMIN_CLDAP_SHIM_H
// <sys/time.h> first: without it `struct timeval *` imports as an opaque pointer.
#include <sys/time.h>
#include <string.h>
#include <lber.h>
#include <ldap.h>
#include <sasl/sasl.h>
#include "tls_deadline.h"

/// Where Cyrus SASL looks for its plug-ins: a folder that does not exist.
static int miadmin_sasl_no_plugin_path(void *context, const char **path) {
    (void)context;
    *path = "/nonexistent/miadmin-uses-no-sasl-plugins";
    return SASL_OK;
}

/// Starts Cyrus SASL's client side with no plug-ins, before libldap's first call does it with
/// the system's plug-in folder: libldap then finds SASL started (sasl_client_init only counts
/// the second call) and nothing is loaded. Password logins are simple binds (over TLS), so the
/// plug-ins (GSSAPI, SCRAM, DIGEST-MD5, ... with Kerberos and Berkeley DB behind them) were
/// dead weight at every start (docs/benchmarks.md), and eight libraries fewer in a setgid
/// process. A Kerberos bind adds the one plug-in it needs (CKerberosLazy's
/// miadmin_sasl_add_gssapi). Call
/// once, before any other libldap function.
static inline int miadmin_sasl_start_without_plugins(void) {
    static const sasl_callback_t callbacks[] = {
        { SASL_CB_GETPATH, (int (*)(void))miadmin_sasl_no_plugin_path, NULL },
        { SASL_CB_LIST_END, NULL, NULL },
    };
    return sasl_client_init(callbacks);
}

/// Answers SASL's questions for a GSSAPI bind without asking anyone: the authorization
/// identity is left empty (act as the ticket's principal) and anything else gets its default.
static int miadmin_sasl_quiet_interaction(LDAP *ld, unsigned flags, void *defaults, void *list) {
    (void)ld; (void)flags; (void)defaults;
    for (sasl_interact_t *item = list; item->id != SASL_CB_LIST_END; item++) {
        const char *answer = item->defresult ? item->defresult : "";
        item->result = answer;
        item->len = (unsigned)strlen(answer);
    }
    return LDAP_SUCCESS;
}

/// A SASL GSSAPI bind with the credentials of the calling thread's Kerberos cache (Cyrus SASL's
/// GSSAPI plug-in asks GSSAPI for its default credentials), waiting for the result.
static inline int miadmin_ldap_gssapi_bind(LDAP *ld) {
    return ldap_sasl_interactive_bind_s(ld, NULL, "GSSAPI", NULL, NULL, LDAP_SASL_QUIET,
                                        miadmin_sasl_quiet_interaction, NULL);
}
/// Puts liblber's read-ahead layer between the TCP socket and TLS, once TLS is in place. slapd
/// writes each search entry as a TLS record of its own, which GnuTLS reads in two read(2) calls
/// (header, body) after libldap's poll(2): three system calls an entry, 300,000 for a listing of
/// 100,000 users. Read ahead in 16 KiB blocks, a block holds about a hundred such records, and
/// libldap polls only when nothing is buffered. The layer is liblber's own (SASL security layers
/// use it the same way). Returns -1 when there is no connection yet or the layer cannot be added.
static inline int miadmin_ldap_read_ahead(LDAP *ld) {
    Sockbuf *sb = NULL;
    if (ldap_get_option(ld, LDAP_OPT_SOCKBUF, &sb) != LDAP_OPT_SUCCESS || sb == NULL) return -1;
    return ber_sockbuf_add_io(sb, &ber_sockbuf_io_readahead, LBER_SBIOD_LEVEL_PROVIDER, NULL);
}
#endif
