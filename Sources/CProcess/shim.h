#ifndef MIADMIN_CPROCESS_SHIM_H
#define MIADMIN_CPROCESS_SHIM_H
// Process controls from glibc that Swift cannot call directly: prctl is variadic, the
// setres*id family is declared only under _GNU_SOURCE, which Swift's Glibc module is not built
// with, and malloc.h (mallopt) is not part of that module. The same goes for the CPU affinity
// calls (sched_getcpu, pthread_attr_setaffinity_np, cpu_set_t).
#include <malloc.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

extern int setresgid(gid_t rgid, gid_t egid, gid_t sgid);
extern int setresuid(uid_t ruid, uid_t euid, uid_t suid);
extern int getresgid(gid_t *rgid, gid_t *egid, gid_t *sgid);
extern int getresuid(uid_t *ruid, uid_t *euid, uid_t *suid);
extern int sched_getcpu(void);
extern int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t cpusetsize, const void *cpuset);

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

/// A set of CPUs, laid out as glibc's cpu_set_t (1,024 bits).
typedef struct { unsigned long bits[1024 / (8 * sizeof(unsigned long))]; } mi_cpu_mask;

/// Sets `attr` so that a thread created with it starts on one of the calling thread's allowed
/// CPUs other than the one it runs on now, and stores the calling thread's allowed CPUs in
/// `inherited` (for the new thread to take back, `mi_set_thread_cpus`, once it runs).
/// 1 when set; 0 when there is no other CPU to start on or a call failed (`attr` unchanged).
///
/// Why: Linux puts a new thread on its creator's CPU even when another one is idle, and the
/// new thread then waits there until its creator is preempted (docs/benchmarks.md).
static inline int mi_attr_start_on_other_cpu(pthread_attr_t *attr, mi_cpu_mask *inherited) {
    const int word_bits = 8 * sizeof(unsigned long);
    memset(inherited, 0, sizeof *inherited);
    if (syscall(SYS_sched_getaffinity, 0, sizeof *inherited, inherited) <= 0) return 0;
    const int current = sched_getcpu();
    if (current < 0 || current >= 1024) return 0;
    mi_cpu_mask others = *inherited;
    others.bits[current / word_bits] &= ~(1UL << (current % word_bits));
    unsigned long any = 0;
    for (size_t i = 0; i < sizeof others.bits / sizeof others.bits[0]; i++) any |= others.bits[i];
    if (!any) return 0;
    return pthread_attr_setaffinity_np(attr, sizeof others, &others) == 0;
}

/// The calling thread may run on the CPUs in `mask` (and only those). 1 on success, 0 otherwise.
static inline int mi_set_thread_cpus(const mi_cpu_mask *mask) {
    return syscall(SYS_sched_setaffinity, 0, sizeof *mask, mask) == 0;
}
#endif
