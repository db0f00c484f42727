#include "lazy_library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;

int miadmin_library_open(miadmin_library *library, const char **error) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&opening);
        state = library->state;
        if (state == 0) {
            // RTLD_LOCAL: the library's symbols stay out of the global scope, so nothing else
            // binds to them by accident; RTLD_NOW: a missing dependency fails here, not later.
            library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
            if (library->handle == NULL) {
                const char *text = dlerror();
                snprintf(library->error, sizeof library->error, "%s", text ? text : "unknown error");
            }
            state = library->handle != NULL ? 1 : -1;
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&opening);
    }
    if (state != 1 && error != NULL) *error = library->error;
    return state == 1;
}

void *miadmin_library_symbol(miadmin_library *library, const char *name) {
    const char *error = NULL;
    if (!miadmin_library_open(library, &error)) {
        fprintf(stderr, "miadmin: %s needs %s, which cannot be loaded: %s\n",
                library->purpose, library->soname, error);
        abort();
    }
    void *symbol = dlsym(library->handle, name);
    if (symbol == NULL) {
        fprintf(stderr, "miadmin: %s has no %s (needed by %s)\n", library->soname, name, library->purpose);
        abort();
    }
    return symbol;
}
