// Trampolines for the libcurl functions miadmin calls (MIOutbound), and the typed forms of
// curl_easy_setopt / curl_easy_getinfo. A function added to the Swift code needs its line
// here, or the link fails naming it.
#include "curl_lazy.h"
#include "lazy_library.h"

static miadmin_library curl = { .soname = "libcurl.so.4", .purpose = "deliveries and mail" };

int miadmin_curl_open(const char **error) { return miadmin_library_open(&curl, error); }
const char *miadmin_curl_soname(void) { return curl.soname; }

#define CURLF(ret, name, params, args) MIADMIN_LAZY(curl, ret, name, params, args)
#define CURLF_VOID(name, params, args) MIADMIN_LAZY_VOID(curl, name, params, args)

CURLF(CURLcode, curl_global_init, (long flags), (flags))
CURLF(CURL *, curl_easy_init, (void), ())
CURLF_VOID(curl_easy_cleanup, (CURL *handle), (handle))
CURLF_VOID(curl_easy_reset, (CURL *handle), (handle))
CURLF(CURLcode, curl_easy_perform, (CURL *handle), (handle))
CURLF(const char *, curl_easy_strerror, (CURLcode code), (code))
CURLF(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *string), (list, string))
CURLF_VOID(curl_slist_free_all, (struct curl_slist *list), (list))
CURLF(curl_mime *, curl_mime_init, (CURL *easy), (easy))
CURLF_VOID(curl_mime_free, (curl_mime *mime), (mime))
CURLF(curl_mimepart *, curl_mime_addpart, (curl_mime *mime), (mime))
CURLF(CURLcode, curl_mime_name, (curl_mimepart *part, const char *name), (part, name))
CURLF(CURLcode, curl_mime_filename, (curl_mimepart *part, const char *filename), (part, filename))
CURLF(CURLcode, curl_mime_type, (curl_mimepart *part, const char *mimetype), (part, mimetype))
CURLF(CURLcode, curl_mime_data, (curl_mimepart *part, const char *data, size_t datasize), (part, data, datasize))
CURLF(CURLcode, curl_mime_data_cb,
      (curl_mimepart *part, curl_off_t datasize, curl_read_callback readfunc, curl_seek_callback seekfunc,
       curl_free_callback freefunc, void *arg),
      (part, datasize, readfunc, seekfunc, freefunc, arg))
CURLF(CURLcode, curl_mime_subparts, (curl_mimepart *part, curl_mime *subparts), (part, subparts))
CURLF(CURLcode, curl_mime_headers, (curl_mimepart *part, struct curl_slist *headers, int take_ownership),
      (part, headers, take_ownership))
CURLF(CURLcode, curl_mime_encoder, (curl_mimepart *part, const char *encoding), (part, encoding))

// The variadic calls, each with one argument type: the pointer is typed as the variadic
// function, so the argument is passed exactly as a C caller would pass it.
#define SETOPT(suffix, type)                                                                  \
    CURLcode miadmin_curl_setopt_##suffix(CURL *handle, CURLoption option, type value) {      \
        MIADMIN_LAZY_RESOLVE(curl, curl_easy_setopt)                                          \
        return function(handle, option, value);                                               \
    }
SETOPT(long, long)
SETOPT(pointer, const void *)
SETOPT(off, curl_off_t)

#define SETOPT_CALLBACK(suffix, option)                                                       \
    CURLcode miadmin_curl_setopt_##suffix(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *)) { \
        MIADMIN_LAZY_RESOLVE(curl, curl_easy_setopt)                                          \
        return function(handle, option, callback);                                            \
    }
SETOPT_CALLBACK(read, CURLOPT_READFUNCTION)
SETOPT_CALLBACK(write, CURLOPT_WRITEFUNCTION)
SETOPT_CALLBACK(header, CURLOPT_HEADERFUNCTION)

CURLcode miadmin_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    MIADMIN_LAZY_RESOLVE(curl, curl_easy_getinfo)
    return function(handle, info, value);
}

CURLcode miadmin_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    MIADMIN_LAZY_RESOLVE(curl, curl_easy_getinfo)
    return function(handle, info, value);
}
