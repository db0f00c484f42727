#ifndef MIADMIN_CLDAP_TLS_DEADLINE_H
#define MIADMIN_CLDAP_TLS_DEADLINE_H
// A deadline on everything a new connection reads and writes until TLS is in place: the StartTLS
// answer and the TLS handshake, for StartTLS and for ldaps://.
//
// Why not libldap's own: with LDAP_OPT_NETWORK_TIMEOUT set, libldap 2.5 makes the socket
// non-blocking for the handshake and, unless the connect is asynchronous, calls
// gnutls_handshake again at once whenever it returns GNUTLS_E_AGAIN, without polling and without
// looking at the clock (tls2.c, ldap_int_tls_start). The client then spins on read(2) = EAGAIN
// while the server computes its side, taking a core from it, and a server that goes silent in
// the handshake keeps it spinning for ever. Without the network timeout the handshake blocks,
// with no deadline at all.
//
// This layer sits in the connection's Sockbuf between the TCP socket and TLS (a level between
// LBER_SBIOD_LEVEL_PROVIDER and LBER_SBIOD_LEVEL_TRANSPORT, so below TLS whichever is added
// first): each read and write first polls the socket until the deadline, so the handshake's
// reads never find the socket empty, and once the deadline has passed they fail with ETIMEDOUT,
// which GnuTLS and libldap take as a failed connection. A connection callback
// (LDAP_OPT_CONNECT_CB) adds it as soon as each TCP connection is made, before libldap starts
// an ldaps:// handshake; the caller takes it away once TLS is in place (or the connection was
// made without TLS), after which reads go to the socket as before.
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <lber.h>
#include <ldap.h>

/// Between libldap's provider (TCP, 10) and transport (TLS, 20) levels.
#define MIADMIN_DEADLINE_LEVEL 15

typedef struct miadmin_tls_deadline {
    struct ldap_conncb callback;  // lc_arg points back here
    long timeout_ms;
    struct timespec until;        // set when the TCP connection is made
    int armed;                    // add the layer to new connections
    int expired;                  // a read or write waited until the deadline
} miadmin_tls_deadline;

static inline long miadmin_deadline_remaining_ms(const struct timespec *until) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (long)(until->tv_sec - now.tv_sec) * 1000 + (until->tv_nsec - now.tv_nsec) / 1000000;
    return ms < 0 ? 0 : ms;
}

/// Waits until the socket is ready for `events` or the deadline passes (then -1, ETIMEDOUT).
static inline int miadmin_deadline_wait(Sockbuf_IO_Desc *sbiod, short events) {
    miadmin_tls_deadline *deadline = sbiod->sbiod_pvt;
    ber_socket_t fd = -1;
    ber_sockbuf_ctrl(sbiod->sbiod_sb, LBER_SB_OPT_GET_FD, &fd);
    for (;;) {
        long left = miadmin_deadline_remaining_ms(&deadline->until);
        struct pollfd item = { .fd = fd, .events = events, .revents = 0 };
        int ready = left > 0 ? poll(&item, 1, (int)left) : 0;
        if (ready > 0) return 0;  // readable, writable, or an error the read or write reports
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -1;
        deadline->expired = 1;
        errno = ETIMEDOUT;
        return -1;
    }
}

static int miadmin_deadline_setup(Sockbuf_IO_Desc *sbiod, void *arg) {
    sbiod->sbiod_pvt = arg;
    return 0;
}

static int miadmin_deadline_remove(Sockbuf_IO_Desc *sbiod) {
    (void)sbiod;
    return 0;
}

static int miadmin_deadline_ctrl(Sockbuf_IO_Desc *sbiod, int option, void *arg) {
    return LBER_SBIOD_CTRL_NEXT(sbiod, option, arg);
}

static ber_slen_t miadmin_deadline_read(Sockbuf_IO_Desc *sbiod, void *buffer, ber_len_t length) {
    if (miadmin_deadline_wait(sbiod, POLLIN) != 0) return -1;
    return LBER_SBIOD_READ_NEXT(sbiod, buffer, length);
}

static ber_slen_t miadmin_deadline_write(Sockbuf_IO_Desc *sbiod, void *buffer, ber_len_t length) {
    if (miadmin_deadline_wait(sbiod, POLLOUT) != 0) return -1;
    return LBER_SBIOD_WRITE_NEXT(sbiod, buffer, length);
}

static int miadmin_deadline_close(Sockbuf_IO_Desc *sbiod) {
    (void)sbiod;
    return 0;  // the TCP layer below closes the socket
}

static Sockbuf_IO miadmin_deadline_io = {
    miadmin_deadline_setup, miadmin_deadline_remove, miadmin_deadline_ctrl,
    miadmin_deadline_read, miadmin_deadline_write, miadmin_deadline_close,
};

/// LDAP_OPT_CONNECT_CB: a TCP connection was made; TLS has not started.
static int miadmin_deadline_connected(LDAP *ld, Sockbuf *sb, LDAPURLDesc *srv, struct sockaddr *addr,
                                      struct ldap_conncb *ctx) {
    (void)ld; (void)srv; (void)addr;
    miadmin_tls_deadline *deadline = ctx->lc_arg;
    if (!deadline->armed) return 0;
    clock_gettime(CLOCK_MONOTONIC, &deadline->until);
    deadline->until.tv_sec += deadline->timeout_ms / 1000;
    deadline->until.tv_nsec += (deadline->timeout_ms % 1000) * 1000000;
    if (deadline->until.tv_nsec >= 1000000000) {
        deadline->until.tv_sec += 1;
        deadline->until.tv_nsec -= 1000000000;
    }
    deadline->expired = 0;
    return ber_sockbuf_add_io(sb, &miadmin_deadline_io, MIADMIN_DEADLINE_LEVEL, deadline) == 0 ? 0 : -1;
}

/// LDAP_OPT_CONNECT_CB: the connection is closed (`sb` NULL: the handle is being freed).
static void miadmin_deadline_closed(LDAP *ld, Sockbuf *sb, struct ldap_conncb *ctx) {
    (void)ld; (void)ctx;
    if (sb != NULL) ber_sockbuf_remove_io(sb, &miadmin_deadline_io, MIADMIN_DEADLINE_LEVEL);
}

/// Arms the deadline for the connections `ld` makes from now on: each gets `timeout_ms` from
/// its TCP connect until ``miadmin_tls_deadline_end``. NULL when it cannot be set. The result
/// must outlive the handle: free it with ``miadmin_tls_deadline_free`` after ldap_unbind_ext.
static inline miadmin_tls_deadline *miadmin_tls_deadline_start(LDAP *ld, long timeout_ms) {
    miadmin_tls_deadline *deadline = calloc(1, sizeof *deadline);
    if (deadline == NULL) return NULL;
    deadline->callback.lc_add = miadmin_deadline_connected;
    deadline->callback.lc_del = miadmin_deadline_closed;
    deadline->callback.lc_arg = deadline;
    deadline->timeout_ms = timeout_ms;
    deadline->armed = 1;
    if (ldap_set_option(ld, LDAP_OPT_CONNECT_CB, &deadline->callback) != LDAP_OPT_SUCCESS) {
        free(deadline);
        return NULL;
    }
    return deadline;
}

/// TLS is in place (or the connection goes without it): the layer leaves the connection, and
/// later connections of the handle get none. Returns whether the deadline had passed.
static inline int miadmin_tls_deadline_end(LDAP *ld, miadmin_tls_deadline *deadline) {
    deadline->armed = 0;
    Sockbuf *sb = NULL;
    if (ldap_get_option(ld, LDAP_OPT_SOCKBUF, &sb) == LDAP_OPT_SUCCESS && sb != NULL) {
        ber_sockbuf_remove_io(sb, &miadmin_deadline_io, MIADMIN_DEADLINE_LEVEL);
    }
    return deadline->expired;
}

static inline void miadmin_tls_deadline_free(miadmin_tls_deadline *deadline) {
    free(deadline);
}
#endif
