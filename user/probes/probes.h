// SPDX-License-Identifier: GPL-3.0-or-later
/* eBPF probes on a set of processes and all their descendants: per-syscall
 * latency, lock contention by type, off-CPU time (blocked D vs sleeping S),
 * filesystem and block events. The live interface of --trace and of the
 * adaptive controller:
 *
 *	char err[256];
 *	struct probes *p = probes_start(NULL, 0, 0, err, sizeof err); // own process
 *	struct probe_snapshot *a = probes_snapshot_new(), *b = ..., *d = ...;
 *	probes_read(p, a); ...100 ms... probes_read(p, b);
 *	probes_snapshot_sub(d, b, a);                        // per-interval histograms
 *	hist_quantile(&d->sc[PROBE_NR_UNLINKAT].lat, 0.99)  // ns
 *	probes_lock_wait_ns(d, PROBE_LCB_F_WRITE)           // rwsem write waits
 *	d->misc.offcpu[PROBE_OFFCPU_BLOCKED].total          // ns in D
 *	d->misc.oncpu_ns, probes_thread_ns(d)               // on CPU, whole
 *	probes_stop(p);
 *
 * probes_read() costs three batch lookups of per-CPU arrays (about 200 KB
 * copied on 2 CPUs), no hash walk: fine every 100 ms. Thread-safe as long as
 * one thread at a time uses a given struct probes.
 *
 * Every function of this module is named probes_*; the data types and
 * constants keep probe_ and PROBE_, as in probes_shared.h, which the BPF
 * side shares. */
#ifndef ADAPTRM_PROBES_H
#define ADAPTRM_PROBES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "probes/hist.h"
#include "probes/probes_shared.h"
#include "probes/waitclass.h"

/* Probe groups: each attaches on its own; a missing tracepoint drops only
 * its group (probes_notes() says which and why). */
enum probe_group {
	PROBE_G_PROC,	  /* sched_process_fork/exit: follow descendants (required) */
	PROBE_G_SYSCALLS, /* sys_enter/sys_exit (required) */
	PROBE_G_LOCKS,	  /* contention_begin/end */
	PROBE_G_OFFCPU,	  /* sched_switch: off-CPU time and wait sites */
	PROBE_G_RUNQ,	  /* sched_wakeup, sched_wakeup_new: run-queue delay */
	PROBE_G_EXT4,
	PROBE_G_JBD2,
	PROBE_G_XFS,
	PROBE_G_BTRFS,
	PROBE_G_BLOCK,
	PROBE_G_ONCPU, /* perf_event cpu-clock sampling: on-CPU kernel stacks */
	/* sched_waking, and the interrupt and softirq entries and exits: who
	 * ended each wait (an interrupt's wake-up is not the interrupted
	 * task's) */
	PROBE_G_WAKERS,
	PROBE_G_COUNT,
};
const char *probes_group_name(enum probe_group g);

enum probe_flag {
	PROBE_NO_CALLERS = 1, /* skip the kernel stack per contention (cheaper) */
	PROBE_CORE_ONLY = 2,  /* proc, syscalls, locks, off-CPU, run queue: no filesystem or
				 * block events (btrfs_tree_lock fires on every
				 * tree lock taken, contended or not) */
	PROBE_WITH_BLOCK = 4, /* with PROBE_CORE_ONLY: the block group too (one
				 * event per request: the device's service time) */
};

struct probe_snapshot {
	uint64_t time_ns; /* CLOCK_MONOTONIC when read */
	/* the traced threads' lifetimes while traced (from their forks and
	 * exits): the whole time the accounted states should add up to */
	uint64_t life_ns;
	uint32_t nthreads;			       /* live traced threads */
	uint32_t ntgids;			       /* live traced processes */
	uint32_t threads_seen;			       /* threads traced since start, live or not */
	uint32_t threads_peak;			       /* most live traced threads at once */
	struct probe_sc_stat sc[PROBE_NR_SYSCALLS];    /* by x86-64 syscall number */
	struct probe_lock_stat lock[PROBE_LOCK_TYPES]; /* by contention flags & 0x3f */
	struct probe_misc misc;			       /* off-CPU, getdents bytes, filesystems */
	uint32_t ndevs;				       /* devices with filesystem or block events */
	struct probe_dev {
		uint32_t dev; /* kernel dev_t: major << 20 | minor */
		struct probe_dev_stat st;
	} devs[PROBE_MAX_DEVS];
};

/* Kernel dev_t (tracepoints) <-> major and minor (stat's st_dev). */
#define PROBE_DEV_MAJOR(d) ((unsigned)(d) >> 20)
#define PROBE_DEV_MINOR(d) ((unsigned)(d)&0xfffff)
#define PROBE_MKDEV(ma, mi) ((uint32_t)(ma) << 20 | ((uint32_t)(mi)&0xfffff))
/* The counters of DEV in S, or NULL. */
const struct probe_dev_stat *probes_dev_find(const struct probe_snapshot *s, uint32_t dev);

struct probes;

/* Whether this process can load the probes; if not, writes what is missing
 * (root / CAP_BPF+CAP_PERFMON, kernel BTF, ...) into WHY and returns -1. */
int probes_check(char *why, size_t len);

/* Load and attach the probes and trace PIDS (all their threads and future
 * descendants). NPIDS == 0 traces the calling process. FLAGS: enum
 * probe_flag. On failure returns NULL with a message in ERR. */
struct probes *probes_start(const pid_t *pids, int npids, unsigned flags, char *err, size_t errlen);
/* Trace one more process (e.g. a child forked stopped before exec). */
int probes_add_pid(struct probes *p, pid_t pid);
/* The processes traced now (up to MAX, in OUT): how many. */
int probes_traced_tgids(struct probes *p, pid_t *out, int max);
/* The end of a trace: add to S (just read) the waits still open (live
 * threads off CPU since their last switch out) and the threads off CPU
 * since tracing began that no event has shown (misc.open_ns, pretrace_ns):
 * their time up to now belongs to the whole. Not for the reads in between,
 * whose differences must stay counters. */
void probes_add_open_waits(struct probes *p, struct probe_snapshot *s);
/* Counters since probes_start. Returns 0, or -errno. */
int probes_read(struct probes *p, struct probe_snapshot *out);
bool probes_group_attached(const struct probes *p, enum probe_group g);
/* Newline-separated notes about dropped groups and fallbacks ("" if none). */
const char *probes_notes(const struct probes *p);
/* What starting cost: the BPF programs' load (the verifier, maps, CO-RE)
 * and their attach, in nanoseconds. */
void probes_start_cost(const struct probes *p, uint64_t *load_ns, uint64_t *attach_ns);
void probes_stop(struct probes *p);

/* Snapshots are ~200 KB: allocate them (zeroed). */
struct probe_snapshot *probes_snapshot_new(void);
void probes_snapshot_free(struct probe_snapshot *s);
/* out = now - before (counters and histograms; nthreads/ntgids/time from now,
 * time_ns becomes the interval length). OUT may alias NOW. */
void probes_snapshot_sub(struct probe_snapshot *out, const struct probe_snapshot *now,
			 const struct probe_snapshot *before);

/* Lock wait time (ns) of every type that has all bits of FLAGS set
 * (0 = all locks; PROBE_LCB_F_WRITE = rwsem and rwlock writers; ...). */
uint64_t probes_lock_wait_ns(const struct probe_snapshot *s, unsigned flags);
/* Short name of a lock type: "rwsem:W", "mutex", "spinlock", ... */
const char *probes_lock_type_name(unsigned flags);

/* Top contended callers since start, by total wait: fills OUT (up to MAX),
 * returns how many. Walks a hash: for the final report, not per interval. */
struct probe_caller {
	uint64_t ip;
	unsigned flags;
	uint64_t count, total_ns;
};
int probes_callers(struct probes *p, struct probe_caller *out, int max);

/* Every off-CPU wait site since start (walks a hash: for the final report),
 * with its stack (ips[] 0-terminated, innermost first). S waits inside busy
 * syscalls have a stack 1 in PROBE_S_SAMPLE: the others' count and time
 * are spread over the sampled sites of the same context. *OUT is malloc'd;
 * returns how many (0 with *OUT NULL when none or on error). */
struct probe_wait_site {
	int stackid;
	unsigned state; /* PROBE_OFFCPU_BLOCKED or _SLEEPING */
	unsigned ctx;	/* PROBE_WAIT_IN_* */
	uint64_t count, total_ns, blocked_ns;
	uint64_t ips[PROBE_STACK_DEPTH];
};
int probes_wait_sites(struct probes *p, struct probe_wait_site **out);

/* Blocked time (D state, wakeup excluded) inside busy syscalls since the
 * start, by cause (enum wait_cause, probes/waitclass.h): live, for the
 * controller. Needs the off-CPU group and the stacks (no PROBE_NO_CALLERS).
 * NAME_NEW: classify stacks not seen before (else they count as WAIT_OTHER
 * until a call that names them: reading the symbol table costs system
 * time, not worth it where nobody waits). THROTTLED_NS: the part whose stack went
 * through block-layer throttling or
 * a wait for a device tag (more requests in flight cannot pass a cap). Each
 * stack is named and classified once (the first reads /proc/kallsyms);
 * a walk of the wait-site hash costs two syscalls per site. Returns false if
 * nothing can be classified (no stacks, no symbols). */
struct probe_wait_causes {
	uint64_t ns[WAIT_COUNT], count[WAIT_COUNT];
	uint64_t throttled_ns;
};
bool probes_wait_causes(struct probes *p, bool name_new, struct probe_wait_causes *out);
/* The symbol table that names the frames of callers and wait sites (after
 * probes_callers or probes_wait_sites), or NULL. */
const struct ksyms *probes_ksyms(struct probes *p);
/* The traced threads' whole time, on CPU plus off CPU (blocked, sleeping,
 * preempted): derived from the same switches rather than measured from
 * fork to exit, so that its parts add up to it exactly; it leaves out the
 * wait of a new thread for its first run and any time before a thread's
 * first event once tracing began. Needs the offcpu group. */
uint64_t probes_thread_ns(const struct probe_snapshot *s);

/* Every on-CPU sample since start (PROBE_G_ONCPU; walks a hash: for the
 * final report), one entry per (kernel stack, context), most samples
 * first: user-mode samples have stackid -1 and PROBE_CPU_USER, samples
 * whose stack was not kept stackid -1 without it. ips[] is 0-terminated,
 * innermost first. *OUT is malloc'd; returns how many (0 with *OUT NULL
 * when none or on error). */
struct probe_cpu_sample {
	int stackid;
	unsigned flags; /* PROBE_CPU_* */
	unsigned nr;	/* the syscall in flight, with PROBE_CPU_IN_SYSCALL or _IN_WAIT_SC */
	uint64_t count;
	uint64_t ips[PROBE_CPU_STACK_DEPTH];
};
int probes_cpu_samples(struct probes *p, struct probe_cpu_sample **out);

/* Every traced wait's waker and every run-queue wait's holder of the CPU
 * since start (walks a hash: for the final report), with the wait's stack
 * (zeroed without one). *OUT is malloc'd; returns how many. */
struct probe_waker {
	struct probe_waker_key key;
	uint64_t count, ns;
	uint64_t ips[PROBE_STACK_DEPTH];
};
int probes_wakers(struct probes *p, struct probe_waker **out);

/* Syscalls that wait for something else (children, events, time, other
 * threads): their off-CPU time is not the deleter's (x86-64 numbers). */
bool probes_is_wait_syscall(int nr);

#endif
