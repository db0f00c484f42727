#ifndef MIADMIN_CCURL_SHIM_H
#define MIADMIN_CCURL_SHIM_H
// libcurl (Debian's OpenSSL flavour, pkg-config "libcurl"), wrapped once: deliver's HTTPS
// posts and remind's mail (MIOutbound). curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call: CCurlLazy declares one typed function per argument kind
// (miadmin_curl_setopt_long, ..._pointer, ..._off, ..._read, ...), defined beside the
// trampolines that open libcurl on first use.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#endif
