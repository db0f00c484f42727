#ifndef MIADMIN_KERBEROS_LAZY_H
#define MIADMIN_KERBEROS_LAZY_H
// MIT Kerberos' GSSAPI library, opened on the first Kerberos login or keytab bind (see
// lazy_library.h for why): a password login never loads it. Small helpers over it, each
// answering in plain C types, so the Swift side never handles a GSSAPI buffer or name.
#include <stddef.h>

/// Opens libgssapi_krb5; 1 when it is open, 0 with *error saying why not.
int miadmin_kerberos_open(const char **error);

/// What the credential cache holds.
enum miadmin_ticket_state {
    MIADMIN_TICKET_VALID = 0,
    /// No cache, an empty one, or one that cannot be read.
    MIADMIN_TICKET_NONE = 1,
    /// A ticket-granting ticket whose time is over.
    MIADMIN_TICKET_EXPIRED = 2,
};

/// The ticket in the calling thread's credential cache (`ccache`, or NULL for the default one:
/// KRB5CCNAME, else krb5.conf's default_ccache_name): its state, and for a valid one the
/// principal (`name@REALM`) in `principal` and its remaining seconds in `*lifetime`. For a
/// missing one, `error` says why in GSSAPI's words.
int miadmin_kerberos_ticket(const char *ccache, char *principal, size_t principal_size, unsigned *lifetime,
                            char *error, size_t error_size);

/// What miadmin_kerberos_keytab_ticket answers besides 0 and -1.
enum miadmin_keytab_failure {
    /// The keytab holds no key for the principal.
    MIADMIN_KEYTAB_NO_KEY = -3,
    /// No KDC of the principal's realm answered.
    MIADMIN_KEYTAB_KDC_UNREACHABLE = -2,
};

/// Gets a ticket-granting ticket for `principal` with the key in `keytab` (a keytab name such
/// as FILE:/etc/miadmin/miadmin.keytab) and keeps it in the credential cache `ccache` (a
/// MEMORY: cache). 0; MIADMIN_KEYTAB_NO_KEY or MIADMIN_KEYTAB_KDC_UNREACHABLE; or -1 for
/// anything else (the keytab cannot be read, the KDC refused); `error` says why.
int miadmin_kerberos_keytab_ticket(const char *keytab, const char *principal, const char *ccache,
                                   char *error, size_t error_size);

/// Makes `ccache` (NULL: the default one) the cache GSSAPI's default credentials come from on
/// the calling thread, as Cyrus SASL's GSSAPI plug-in asks for them. 0, or -1 with `error`.
int miadmin_kerberos_use_cache(const char *ccache, char *error, size_t error_size);

/// The name of the default credential cache (`FILE:/tmp/krb5cc_1000`, `KCM:`, ...), as
/// krb5.conf and, for an unprivileged run, KRB5CCNAME give it. 0, or -1 with `error`.
int miadmin_kerberos_default_cache(char *name, size_t size, char *error, size_t error_size);

/// The default realm krb5.conf names (`default_realm`) in `realm`. 0, or -1 with `error`.
int miadmin_kerberos_default_realm(char *realm, size_t size, char *error, size_t error_size);

/// Asks for a ticket to `service` (a host-based name, `ldap@dc1.example.com`) with the calling
/// thread's default credentials, to tell why a GSSAPI bind failed: 1 when no KDC could be
/// reached (or none is known for the realm), with `error` in GSSAPI's words; 0 otherwise.
int miadmin_kerberos_kdc_unreachable(const char *service, char *error, size_t error_size);

/// Adds Cyrus SASL's GSSAPI plug-in to a SASL started without plug-ins (CLDAP/shim.h), from the
/// folder the system's libsasl2 was built to use (`sasl2/` beside it), never from SASL_PATH.
/// SASL_OK (0), or another code with `error` saying why. Call once.
int miadmin_sasl_add_gssapi(char *error, size_t size);
#endif
