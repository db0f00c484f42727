// Trampolines for the GSSAPI functions miadmin calls, and the helpers kerberos_lazy.h declares.
// A GSSAPI function added here needs its MIADMIN_LAZY line, or the link fails naming it.
// dladdr (the folder of the system's libsasl2) is a GNU extension.
#define _GNU_SOURCE
#include "kerberos_lazy.h"
#include "lazy_library.h"
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <krb5/krb5.h>
#include <dlfcn.h>
#include <sasl/sasl.h>
#include <sasl/saslplug.h>
#include <stdio.h>
#include <string.h>

static miadmin_library gss = { .soname = "libgssapi_krb5.so.2", .purpose = "Kerberos (ldap.kerberos)" };

// libkrb5 itself, for the one thing GSSAPI does not say: which cache is the default.
static miadmin_library krb5 = { .soname = "libkrb5.so.3", .purpose = "Kerberos (ldap.kerberos)" };

int miadmin_kerberos_open(const char **error) { return miadmin_library_open(&gss, error); }

MIADMIN_LAZY(krb5, krb5_error_code, krb5_init_context, (krb5_context *context), (context))
MIADMIN_LAZY_VOID(krb5, krb5_free_context, (krb5_context context), (context))
MIADMIN_LAZY(krb5, const char *, krb5_cc_default_name, (krb5_context context), (context))
MIADMIN_LAZY(krb5, krb5_error_code, krb5_get_default_realm, (krb5_context context, char **realm), (context, realm))
MIADMIN_LAZY_VOID(krb5, krb5_free_default_realm, (krb5_context context, char *realm), (context, realm))
MIADMIN_LAZY(krb5, krb5_error_code, krb5_parse_name, (krb5_context context, const char *name, krb5_principal *principal),
             (context, name, principal))
MIADMIN_LAZY_VOID(krb5, krb5_free_principal, (krb5_context context, krb5_principal principal), (context, principal))
MIADMIN_LAZY(krb5, krb5_error_code, krb5_kt_resolve, (krb5_context context, const char *name, krb5_keytab *keytab),
             (context, name, keytab))
MIADMIN_LAZY(krb5, krb5_error_code, krb5_kt_close, (krb5_context context, krb5_keytab keytab), (context, keytab))
MIADMIN_LAZY(krb5, krb5_error_code, krb5_kt_get_entry,
             (krb5_context context, krb5_keytab keytab, krb5_const_principal principal, krb5_kvno kvno,
              krb5_enctype enctype, krb5_keytab_entry *entry),
             (context, keytab, principal, kvno, enctype, entry))
MIADMIN_LAZY(krb5, krb5_error_code, krb5_free_keytab_entry_contents, (krb5_context context, krb5_keytab_entry *entry),
             (context, entry))
MIADMIN_LAZY(krb5, const char *, krb5_get_error_message, (krb5_context context, krb5_error_code code), (context, code))
MIADMIN_LAZY_VOID(krb5, krb5_free_error_message, (krb5_context context, const char *message), (context, message))

MIADMIN_LAZY(gss, OM_uint32, gss_acquire_cred,
             (OM_uint32 *minor, gss_name_t name, OM_uint32 time, gss_OID_set mechs, gss_cred_usage_t usage,
              gss_cred_id_t *cred, gss_OID_set *actual, OM_uint32 *time_rec),
             (minor, name, time, mechs, usage, cred, actual, time_rec))
MIADMIN_LAZY(gss, OM_uint32, gss_acquire_cred_from,
             (OM_uint32 *minor, gss_name_t name, OM_uint32 time, gss_OID_set mechs, gss_cred_usage_t usage,
              gss_const_key_value_set_t store, gss_cred_id_t *cred, gss_OID_set *actual, OM_uint32 *time_rec),
             (minor, name, time, mechs, usage, store, cred, actual, time_rec))
MIADMIN_LAZY(gss, OM_uint32, gss_inquire_cred,
             (OM_uint32 *minor, gss_cred_id_t cred, gss_name_t *name, OM_uint32 *lifetime,
              gss_cred_usage_t *usage, gss_OID_set *mechs),
             (minor, cred, name, lifetime, usage, mechs))
MIADMIN_LAZY(gss, OM_uint32, gss_display_name,
             (OM_uint32 *minor, gss_name_t name, gss_buffer_t buffer, gss_OID *type), (minor, name, buffer, type))
MIADMIN_LAZY(gss, OM_uint32, gss_import_name,
             (OM_uint32 *minor, gss_buffer_t buffer, gss_OID type, gss_name_t *name), (minor, buffer, type, name))
MIADMIN_LAZY(gss, OM_uint32, gss_release_name, (OM_uint32 *minor, gss_name_t *name), (minor, name))
MIADMIN_LAZY(gss, OM_uint32, gss_release_cred, (OM_uint32 *minor, gss_cred_id_t *cred), (minor, cred))
MIADMIN_LAZY(gss, OM_uint32, gss_release_buffer, (OM_uint32 *minor, gss_buffer_t buffer), (minor, buffer))
MIADMIN_LAZY(gss, OM_uint32, gss_display_status,
             (OM_uint32 *minor, OM_uint32 status, int type, gss_OID mech, OM_uint32 *context, gss_buffer_t text),
             (minor, status, type, mech, context, text))
MIADMIN_LAZY(gss, OM_uint32, gss_init_sec_context,
             (OM_uint32 *minor, gss_cred_id_t cred, gss_ctx_id_t *context, gss_name_t target, gss_OID mech,
              OM_uint32 flags, OM_uint32 time, gss_channel_bindings_t bindings, gss_buffer_t input,
              gss_OID *actual_mech, gss_buffer_t output, OM_uint32 *ret_flags, OM_uint32 *time_rec),
             (minor, cred, context, target, mech, flags, time, bindings, input, actual_mech, output, ret_flags,
              time_rec))
MIADMIN_LAZY(gss, OM_uint32, gss_delete_sec_context, (OM_uint32 *minor, gss_ctx_id_t *context, gss_buffer_t output),
             (minor, context, output))
MIADMIN_LAZY(gss, OM_uint32, gss_krb5_ccache_name,
             (OM_uint32 *minor, const char *name, const char **old), (minor, name, old))

/// GSSAPI's words for a failure: the minor (mechanism) status when there is one, it names the
/// cause ("No Kerberos credentials available", "Cannot find KDC"); else the major status.
static void describe(OM_uint32 major, OM_uint32 minor, char *error, size_t size) {
    OM_uint32 ignored, context = 0;
    gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
    int kind = minor != 0 ? GSS_C_MECH_CODE : GSS_C_GSS_CODE;
    gss_display_status(&ignored, minor != 0 ? minor : major, kind, GSS_C_NO_OID, &context, &text);
    snprintf(error, size, "%.*s", (int)text.length, text.value ? (const char *)text.value : "unknown GSSAPI error");
    gss_release_buffer(&ignored, &text);
}

static int opened(char *error, size_t size) {
    const char *why = NULL;
    if (miadmin_kerberos_open(&why)) return 1;
    snprintf(error, size, "cannot load the Kerberos library: %s", why ? why : "unknown error");
    return 0;
}

/// A new libkrb5 context (libkrb5 opened first), or NULL with `error` saying why.
static krb5_context krb5_opened(char *error, size_t size) {
    const char *why = NULL;
    if (!miadmin_library_open(&krb5, &why)) {
        snprintf(error, size, "cannot load the Kerberos library: %s", why ? why : "unknown error");
        return NULL;
    }
    krb5_context context = NULL;
    if (krb5_init_context(&context) != 0) {
        snprintf(error, size, "cannot read the Kerberos configuration (krb5.conf)");
        return NULL;
    }
    return context;
}

/// The state for a failed acquisition, with its words in `error`.
static int failed(OM_uint32 major, OM_uint32 minor, char *error, size_t size) {
    if (GSS_ROUTINE_ERROR(major) == GSS_S_CREDENTIALS_EXPIRED) {
        snprintf(error, size, "the ticket has expired");
        return MIADMIN_TICKET_EXPIRED;
    }
    describe(major, minor, error, size);
    return MIADMIN_TICKET_NONE;
}

int miadmin_kerberos_ticket(const char *ccache, char *principal, size_t principal_size, unsigned *lifetime,
                            char *error, size_t error_size) {
    *lifetime = 0;
    if (!opened(error, error_size)) return MIADMIN_TICKET_NONE;
    OM_uint32 minor = 0, ignored, seconds = 0;
    gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
    OM_uint32 major;
    if (ccache != NULL) {
        gss_key_value_element_desc element = { "ccache", ccache };
        gss_key_value_set_desc store = { 1, &element };
        major = gss_acquire_cred_from(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE, GSS_C_NO_OID_SET, GSS_C_INITIATE,
                                      &store, &cred, NULL, NULL);
    } else {
        major = gss_acquire_cred(&minor, GSS_C_NO_NAME, GSS_C_INDEFINITE, GSS_C_NO_OID_SET, GSS_C_INITIATE,
                                 &cred, NULL, NULL);
    }
    if (GSS_ERROR(major)) {
        return failed(major, minor, error, error_size);
    }
    gss_name_t name = GSS_C_NO_NAME;
    major = gss_inquire_cred(&minor, cred, &name, &seconds, NULL, NULL);
    gss_release_cred(&ignored, &cred);
    if (GSS_ERROR(major)) {
        if (name != GSS_C_NO_NAME) gss_release_name(&ignored, &name);
        return failed(major, minor, error, error_size);
    }
    gss_buffer_desc text = GSS_C_EMPTY_BUFFER;
    major = gss_display_name(&minor, name, &text, NULL);
    gss_release_name(&ignored, &name);
    if (GSS_ERROR(major)) {
        describe(major, minor, error, error_size);
        return MIADMIN_TICKET_NONE;
    }
    snprintf(principal, principal_size, "%.*s", (int)text.length, (const char *)text.value);
    gss_release_buffer(&ignored, &text);
    if (seconds == 0) {
        snprintf(error, error_size, "the ticket has expired");
        return MIADMIN_TICKET_EXPIRED;
    }
    *lifetime = seconds;
    return MIADMIN_TICKET_VALID;
}

/// Whether a Kerberos minor status says no KDC answered (or none is known for the realm).
static int unreachable(OM_uint32 minor) {
    return (krb5_error_code)minor == KRB5_KDC_UNREACH || (krb5_error_code)minor == KRB5_REALM_CANT_RESOLVE
        || (krb5_error_code)minor == KRB5_REALM_UNKNOWN;
}

/// 0 when `keytab` holds a key for `principal`; MIADMIN_KEYTAB_NO_KEY when it holds none, or -1
/// when it cannot be read, with `error` saying which.
static int keytab_holds(const char *keytab, const char *principal, char *error, size_t size) {
    krb5_context context = krb5_opened(error, size);
    if (context == NULL) return -1;
    krb5_principal parsed = NULL;
    krb5_keytab table = NULL;
    krb5_keytab_entry entry;
    int rc = 0;
    krb5_error_code code = krb5_parse_name(context, principal, &parsed);
    if (code == 0) code = krb5_kt_resolve(context, keytab, &table);
    if (code == 0) code = krb5_kt_get_entry(context, table, parsed, 0, 0, &entry);
    if (code == 0) {
        krb5_free_keytab_entry_contents(context, &entry);
    } else if (code == KRB5_KT_NOTFOUND) {
        snprintf(error, size, "the keytab holds no key for %s", principal);
        rc = MIADMIN_KEYTAB_NO_KEY;
    } else {
        const char *message = krb5_get_error_message(context, code);
        snprintf(error, size, "%s", message ? message : "cannot read the keytab");
        if (message) krb5_free_error_message(context, message);
        rc = -1;
    }
    if (table) krb5_kt_close(context, table);
    if (parsed) krb5_free_principal(context, parsed);
    krb5_free_context(context);
    return rc;
}

int miadmin_kerberos_keytab_ticket(const char *keytab, const char *principal, const char *ccache,
                                   char *error, size_t error_size) {
    if (!opened(error, error_size)) return -1;
    OM_uint32 minor = 0, ignored;
    // 1.2.840.113554.1.2.2.1: a Kerberos principal name (GSS_KRB5_NT_PRINCIPAL_NAME), written
    // out: the library's own constant is a variable, which a trampoline cannot forward.
    static gss_OID_desc principal_type = { 10, "\x2a\x86\x48\x86\xf7\x12\x01\x02\x02\x01" };
    gss_buffer_desc text = { strlen(principal), (void *)principal };
    gss_name_t name = GSS_C_NO_NAME;
    OM_uint32 major = gss_import_name(&minor, &text, &principal_type, &name);
    if (GSS_ERROR(major)) {
        describe(major, minor, error, error_size);
        return -1;
    }
    int held = keytab_holds(keytab, principal, error, error_size);
    if (held != 0) {
        gss_release_name(&ignored, &name);
        return held;
    }
    gss_key_value_element_desc elements[] = { { "client_keytab", keytab }, { "ccache", ccache } };
    gss_key_value_set_desc store = { 2, elements };
    gss_cred_id_t cred = GSS_C_NO_CREDENTIAL;
    major = gss_acquire_cred_from(&minor, name, GSS_C_INDEFINITE, GSS_C_NO_OID_SET, GSS_C_INITIATE, &store,
                                  &cred, NULL, NULL);
    gss_release_name(&ignored, &name);
    if (GSS_ERROR(major)) {
        describe(major, minor, error, error_size);
        return unreachable(minor) ? MIADMIN_KEYTAB_KDC_UNREACHABLE : -1;
    }
    // Asking for the lifetime makes the library get the ticket from the KDC now, with the
    // keytab's key, into `ccache` (acquiring only checked that the keytab holds the key).
    OM_uint32 seconds = 0;
    major = gss_inquire_cred(&minor, cred, NULL, &seconds, NULL, NULL);
    gss_release_cred(&ignored, &cred);
    if (GSS_ERROR(major)) {
        describe(major, minor, error, error_size);
        return unreachable(minor) ? MIADMIN_KEYTAB_KDC_UNREACHABLE : -1;
    }
    if (seconds == 0) {
        snprintf(error, error_size, "the KDC gave no usable ticket for %s", principal);
        return -1;
    }
    return 0;
}

int miadmin_kerberos_use_cache(const char *ccache, char *error, size_t error_size) {
    if (!opened(error, error_size)) return -1;
    OM_uint32 minor = 0;
    OM_uint32 major = gss_krb5_ccache_name(&minor, ccache, NULL);
    if (GSS_ERROR(major)) {
        describe(major, minor, error, error_size);
        return -1;
    }
    return 0;
}

int miadmin_kerberos_default_cache(char *name, size_t size, char *error, size_t error_size) {
    krb5_context context = krb5_opened(error, error_size);
    if (context == NULL) return -1;
    const char *found = krb5_cc_default_name(context);
    int rc = 0;
    if (found == NULL) {
        snprintf(error, error_size, "Kerberos names no default credential cache");
        rc = -1;
    } else {
        snprintf(name, size, "%s", found);
    }
    krb5_free_context(context);
    return rc;
}

/// Adds Cyrus SASL's GSSAPI plug-in (and with it the Kerberos libraries) to a SASL started
/// without plug-ins. The plug-in comes from the folder the system's libsasl2 was built to use,
/// `sasl2/` beside libsasl2 itself: never from a path the environment names (SASL_PATH), so a
/// user cannot hand the setgid binary a plug-in of their own. Returns SASL_OK, or another code
/// with `error` saying why. Call once.
int miadmin_sasl_add_gssapi(char *error, size_t size) {
    Dl_info info;
    if (dladdr((void *)&sasl_client_init, &info) == 0 || info.dli_fname == NULL) {
        snprintf(error, size, "cannot find the SASL library's folder");
        return SASL_FAIL;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash == NULL) {
        snprintf(error, size, "cannot find the SASL library's folder (%s)", info.dli_fname);
        return SASL_FAIL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%.*s/sasl2/libgssapiv2.so.2", (int)(slash - info.dli_fname), info.dli_fname);
    void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (plugin == NULL) {
        const char *why = dlerror();
        snprintf(error, size, "cannot load the SASL GSSAPI plug-in (%s; Debian: libsasl2-modules-gssapi-mit)",
                 why ? why : path);
        return SASL_FAIL;
    }
    sasl_client_plug_init_t *init = (sasl_client_plug_init_t *)dlsym(plugin, "sasl_client_plug_init");
    if (init == NULL) {
        snprintf(error, size, "%s is not a SASL client plug-in", path);
        return SASL_FAIL;
    }
    int rc = sasl_client_add_plugin("GSSAPI", init);
    if (rc != SASL_OK) snprintf(error, size, "cannot add the SASL GSSAPI plug-in: %s", sasl_errstring(rc, NULL, NULL));
    return rc;
}

int miadmin_kerberos_default_realm(char *realm, size_t size, char *error, size_t error_size) {
    krb5_context context = krb5_opened(error, error_size);
    if (context == NULL) return -1;
    char *found = NULL;
    int rc = 0;
    if (krb5_get_default_realm(context, &found) != 0 || found == NULL) {
        snprintf(error, error_size, "the Kerberos configuration (krb5.conf) names no default_realm");
        rc = -1;
    } else {
        snprintf(realm, size, "%s", found);
        krb5_free_default_realm(context, found);
    }
    krb5_free_context(context);
    return rc;
}

int miadmin_kerberos_kdc_unreachable(const char *service, char *error, size_t error_size) {
    if (!opened(error, error_size)) return 0;
    OM_uint32 minor = 0, ignored;
    gss_buffer_desc text = { strlen(service), (void *)service };
    gss_name_t target = GSS_C_NO_NAME;
    // GSS_C_NT_HOSTBASED_SERVICE (1.2.840.113554.1.2.1.4), written out for the same reason as
    // the principal name type above.
    static gss_OID_desc hostbased = { 10, "\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04" };
    OM_uint32 major = gss_import_name(&minor, &text, &hostbased, &target);
    if (GSS_ERROR(major)) return 0;
    gss_ctx_id_t context = GSS_C_NO_CONTEXT;
    gss_buffer_desc token = GSS_C_EMPTY_BUFFER;
    major = gss_init_sec_context(&minor, GSS_C_NO_CREDENTIAL, &context, target, GSS_C_NO_OID, 0, 0,
                                 GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER, NULL, &token, NULL, NULL);
    gss_release_name(&ignored, &target);
    gss_release_buffer(&ignored, &token);
    if (context != GSS_C_NO_CONTEXT) gss_delete_sec_context(&ignored, &context, GSS_C_NO_BUFFER);
    if (!GSS_ERROR(major) || !unreachable(minor)) return 0;
    describe(major, minor, error, error_size);
    return 1;
}
