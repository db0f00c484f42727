#ifndef MIADMIN_LAZY_LIBRARY_H
#define MIADMIN_LAZY_LIBRARY_H
// A shared library opened on first use instead of at start-up.
//
// Why hand-written: libpq (PostgreSQL store) and cairo + pango (PDF report) bring 45 of the
// binary's 66 shared libraries (OpenSSL, Kerberos, glib, harfbuzz, fontconfig, X11, ...). The
// dynamic loader maps and relocates every one of them before main, a large share of every
// start-up, although most sessions use neither (figures: docs/benchmarks.md, "Figures behind the code"). GNU ld
// has no lazy loading of libraries (Solaris' -z lazyload); this is the usual replacement, the
// technique of tools such as Implib.so: the program defines each function it calls under the
// library's own name, as a small trampoline that opens the library (dlopen) on the first call,
// looks the real function up in it (dlsym on that handle, which never finds the trampoline)
// and calls it. The library's headers still declare every function, so a trampoline whose
// signature differs from the library's does not compile. Nothing in the binary then refers to
// those libraries, so Scripts/build-release drops their DT_NEEDED entries (SwiftPM puts
// pkg-config's -l flags ahead of any linker option a target can give, so --as-needed cannot).
// A build that keeps them (swift build, the tests) works the same and loads them at start.
//
// Callers check miadmin_library_open first and turn a failure into their own error; a
// trampoline called on a library that cannot be opened prints why and aborts (a bug).

#include <stddef.h>

typedef struct miadmin_library {
    /// The soname opened (e.g. "libpq.so.5"), searched like a DT_NEEDED entry.
    const char *soname;
    /// What needs it, for messages ("the PostgreSQL store").
    const char *purpose;
    // Filled in by miadmin_library_open; read them only through the functions below.
    void *handle;
    int state;          // 0 not tried, 1 open, -1 failed
    char error[512];
} miadmin_library;

/// Opens the library once (thread-safe). Returns 1 when it is open; 0 otherwise, with
/// *error (when not NULL) pointing at dlerror's text, kept with the library.
int miadmin_library_open(miadmin_library *library, const char **error);

/// The address of `name` in the opened library; prints why and aborts when the library cannot
/// be opened or lacks the symbol.
void *miadmin_library_symbol(miadmin_library *library, const char *name);

#define MIADMIN_LAZY_RESOLVE(library, name)                                                   \
    static __typeof__(&name) resolved;                                                        \
    __typeof__(&name) function = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);                \
    if (function == NULL) {                                                                   \
        function = (__typeof__(&name))miadmin_library_symbol(&(library), #name);              \
        __atomic_store_n(&resolved, function, __ATOMIC_RELEASE);                              \
    }

/// Defines `ret name params` as a trampoline to `name` in `library`; `args` passes the
/// parameters on, e.g. MIADMIN_LAZY(pq, void, PQclear, (PGresult *res), (res)).
#define MIADMIN_LAZY(library, ret, name, params, args)                                        \
    __attribute__((visibility("hidden"))) ret name params {                                   \
        MIADMIN_LAZY_RESOLVE(library, name)                                                   \
        return function args;                                                                 \
    }

/// The same for a function that returns nothing.
#define MIADMIN_LAZY_VOID(library, name, params, args)                                        \
    __attribute__((visibility("hidden"))) void name params {                                  \
        MIADMIN_LAZY_RESOLVE(library, name)                                                   \
        function args;                                                                        \
    }

#endif
