#ifndef MIADMIN_CURL_LAZY_H
#define MIADMIN_CURL_LAZY_H
// libcurl, opened on the first delivery or mail (see lazy_library.h for why), and the typed
// forms of its variadic calls.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// Opens libcurl; 1 when it is open, 0 with *error saying why not.
int miadmin_curl_open(const char **error);

/// The soname opened, for messages.
const char *miadmin_curl_soname(void);

/// curl_easy_setopt with a long, a pointer (string, list, mime), a curl_off_t, or a callback.
CURLcode miadmin_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode miadmin_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode miadmin_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode miadmin_curl_setopt_read(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *));
CURLcode miadmin_curl_setopt_write(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *));
CURLcode miadmin_curl_setopt_header(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *));

/// curl_easy_getinfo for a long result and for a string result.
CURLcode miadmin_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode miadmin_curl_getinfo_string(CURL *handle, CURLINFO info, char **value);
#endif
