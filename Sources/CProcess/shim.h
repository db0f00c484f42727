#ifndef MIADMIN_CPROCESS_SHIM_H
#define MIADMIN_CPROCESS_SHIM_H
// Process controls from glibc that Swift cannot call directly: prctl is variadic, the
// setres*id family is declared only under _GNU_SOURCE, which Swift's Glibc module is not built
// with, and malloc.h (mallopt) is not part of that module.
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/types.h>

extern int setresgid(gid_t rgid, gid_t egid, gid_t sgid);
extern int setresuid(uid_t ruid, uid_t euid, uid_t suid);
extern int getresgid(gid_t *rgid, gid_t *egid, gid_t *sgid);
extern int getresuid(uid_t *ruid, uid_t *euid, uid_t *suid);

/// Marks the process not dumpable: no core file, and its user cannot ptrace it or open
/// /proc/PID/fd/N (the store's descriptors stay out of reach after the group is dropped).
static inline int mi_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

/// Real, effective and saved group ids all become `gid`, then the user ids all become `uid`:
/// the privilege is gone for good. 0 on success, -1 (errno set) otherwise.
static inline int mi_drop_for_good(gid_t gid, uid_t uid) {
    if (setresgid(gid, gid, gid) != 0) return -1;
    if (setresuid(uid, uid, uid) != 0) return -1;
    return 0;
}

/// 1 when real, effective and saved group and user ids are exactly `gid` and `uid`.
static inline int mi_ids_are(gid_t gid, uid_t uid) {
    gid_t rg, eg, sg;
    uid_t ru, eu, su;
    if (getresgid(&rg, &eg, &sg) != 0 || getresuid(&ru, &eu, &su) != 0) return 0;
    return rg == gid && eg == gid && sg == gid && ru == uid && eu == uid && su == uid;
}

/// glibc malloc keeps up to `bytes` free at the top of the heap instead of returning it to the
/// kernel (M_TRIM_THRESHOLD). 1 on success, 0 otherwise.
static inline int mi_set_heap_trim_threshold(int bytes) { return mallopt(M_TRIM_THRESHOLD, bytes); }
#endif
