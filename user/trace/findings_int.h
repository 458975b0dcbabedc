// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict's insides, shared by its files: the partition of the
 * traced threads' whole time (findings_ctx.c), the catalogue's rules
 * (findings_cpu.c, findings_io.c) and the engine that runs and ranks them
 * (findings.c). Not for use outside these files. */
#ifndef ADAPTRM_TRACE_FINDINGS_INT_H
#define ADAPTRM_TRACE_FINDINGS_INT_H
#include "probes/probes_shared.h"
#include "probes/subsys.h"
#include "trace/findings.h"
#include "trace/result.h"
#include "trace/waits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Lock types as the wait stacks name them (waitclass.c's lock_of). */
#define NLOCKS 7
extern const char *const finding_lock_names[NLOCKS];
/* Kinds of metadata read (wait_detail), plus the unnamed ones. */
#define NREADS 6
extern const char *const finding_read_kinds[NREADS];
/* The btrfs wait kinds, plus the unnamed ones. */
#define NBTRFS 5
extern const char *const finding_btrfs_kinds[NBTRFS];

struct finding_ctx {
	const struct trace_result *r;
	const struct probe_snapshot *s;
	const struct probe_misc *m;
	double base;	  /* the traced threads' whole time (ns, at least 1) */
	uint64_t entries; /* files and directories removed */
	/* the partition of base, ns */
	double user, kcpu[TCPU_COUNT]; /* on CPU: user; kernel by category */
	double quota, runq_own, runq_other;
	double dir_lock, lock[NLOCKS], reads[NREADS], btrfs[NBTRFS], cause[TC_COUNT];
	double journal_space, wb_throttle;
	double xfs_sync_commit; /* xfs log waits of synchronous commits */
	double idle, lost;
	double stopped;	    /* stopped for a ptrace tracer */
	double sigstop;	    /* stopped by a signal (job control) */
	double frozen;	    /* frozen (cgroup freezer) */
	double other_state; /* parked, dying, new */
	double pretrace;    /* off CPU since before tracing began */
	double unaccounted; /* the lifetimes beyond every part (states.h) */
	double life;	    /* the lifetimes, less the helpers' */
	/* by kernel subsystem (probes/subsys.h): waits at sites the catalogue
	 * does not claim, CPU of subsystems other than the delete's own, and
	 * run-queue waits behind the helpers that end those waits */
	double sub_wait[SS_COUNT], sub_cpu[SS_COUNT], sub_runq[SS_COUNT];
	double tracer_cpu; /* a traced ptrace tracer's CPU (strace -f rm) */
	/* evidence */
	uint64_t read_waits; /* waits of the metadata-read and block-I/O parts */
	double read_wait_ns;
	bool cpu_measured;
	/* events of the traced devices */
	struct probe_dev_stat dev;
	bool discard_mount;	 /* a traced filesystem is mounted with discard */
	bool dirsync_mount;	 /* a traced filesystem is mounted sync, dirsync or wsync */
	uint64_t other_discards; /* discards on devices that are not the delete's */
	double cpus;		 /* the CPUs the traced threads may use (affinity, quota) */
	double runnable;	 /* traced threads running or runnable, on average */
	double not_traced;	 /* run-queue waits that ended when an untraced task left */
	double dir_spin;	 /* on CPU spinning for directory locks (in dir_lock) */
	double lock_runq;	 /* run-queue waits right after lock waits (in the locks') */
	double buf_reads;	 /* xfs buffer-lock waits while the buffer was read */
	double helpers;		 /* waits of processes that removed nothing: not in base */
	double gc_runq;		 /* run-queue waits behind xfs's inodegc workers */
	/* run-queue waits behind the delete's filesystems' other kernel
	 * threads and work items, by enum probe_fs_worker */
	double fsw_runq[PROBE_FSW_COUNT];
};

struct finding_rule;

struct finding_sink {
	struct trace_finding *out;
	int n, max;
	const struct finding_rule *rule; /* the running row: its words go to its findings */
	const char *id;			 /* the running row's id, or one of its family's */
	const char *explains;
	/* the running row's parts, summed by the engine (ns, and as a share) */
	double ns, claimed;
};

/* A row of the catalogue (findings.c): one cause. The engine sums the row's
 * PARTS (offsets of struct finding_ctx's double fields; 0, the offset of
 * R, which no row claims, ends the list) and runs FN only when they are
 * positive; FN then decides whether the cause applies and words its
 * evidence, and the finding's share is that sum. A row without parts has a
 * share that needs conditions (its parts depend on another cause, or it has
 * several findings): FN computes it. */
#define FINDING_MAX_PARTS 8
#define FINDING_PART(field) offsetof(struct finding_ctx, field)
enum { FR_EXPLAINS = 1, FR_NOT_CAUSE = 2 };
struct finding_rule {
	const char *id;
	const char *title;   /* the cause in words; NULL: the family's (subsystems) */
	const char *remedy;  /* the generic remedy, one sentence */
	const char *confirm; /* a command that confirms it without adaptrm, or NULL */
	size_t parts[FINDING_MAX_PARTS];
	void (*fn)(const struct finding_ctx *, struct finding_sink *);
	int arg;	/* a family's member (a kind of read, of btrfs wait) */
	unsigned flags; /* FR_EXPLAINS: after the partition's; FR_NOT_CAUSE: ranked last */
};

/* Partitions R's time into C (findings_ctx.c). */
void finding_ctx_init(struct finding_ctx *c, const struct trace_result *r);

/* Adds a finding of the running rule to K with SHARE and the evidence
 * (printf), in the row's words; NULL when K has no room (findings_ctx.c). */
struct trace_finding *finding_add(struct finding_sink *k, double share, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with the share of the row's parts. */
#define finding_claim(k, ...) finding_add((k), (k)->claimed, __VA_ARGS__)

/* A case of a rule whose remedy is not its row's (reads held by a cgroup's
 * limit, commits the deleter's own syncs forced): F says it instead. */
static inline void finding_remedy(struct trace_finding *f, const char *remedy)
{
	if (f)
		f->remedy = remedy;
}

/* The share of the whole time NS is. */
static inline double sh(const struct finding_ctx *c, double ns)
{
	return ns / c->base;
}

/* A site whose time a part of its own claims (journal space, writeback
 * throttling): the evidence of its cause's other finding leaves it out. */
static inline bool claimed_apart(const struct trace_wait_site *w)
{
	return (w->cause == TC_JOURNAL && strstr(w->site, "(space)")) ||
	       (w->cause == TC_WRITEBACK && w->detail && !strcmp(w->detail, "throttle"));
}

/* The index of NAME in the N NAMES (the last, unnamed, when not there). */
static inline int index_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n && names[i]; i++)
		if (name && !strcmp(names[i], name))
			return i;
	return n - 1;
}

/* The heaviest wait site of CAUSE (and KIND, if given), or "". */
const char *finding_top_site(const struct finding_ctx *c, int cause, const char *kind);
/* The waits of CAUSE's sites, but those a part of their own claims. */
uint64_t finding_cause_waits(const struct finding_ctx *c, int cause);
/* The metadata reads' parts, ns. */
double finding_reads_sum(const struct finding_ctx *c);

/* The catalogue's rules, one per row of findings.c's table (some rows of
 * a family share one): findings_cpu.c (CPU, memory, locks, states and the
 * remaining waits) and findings_io.c (filesystems and devices, and the
 * explaining rules). */
void rule_cpu_quota(const struct finding_ctx *c, struct finding_sink *k);
void rule_cpu_oversubscription(const struct finding_ctx *c, struct finding_sink *k);
void rule_cpu_contention(const struct finding_ctx *c, struct finding_sink *k);
void rule_fs_worker_cpu(const struct finding_ctx *c, struct finding_sink *k);
void rule_memcg_reclaim(const struct finding_ctx *c, struct finding_sink *k);
void rule_memory_reclaim(const struct finding_ctx *c, struct finding_sink *k);
void rule_directory_lock(const struct finding_ctx *c, struct finding_sink *k);
void rule_other_locks(const struct finding_ctx *c, struct finding_sink *k);
void rule_lock_spinning(const struct finding_ctx *c, struct finding_sink *k);
void rule_device_throttled(const struct finding_ctx *c, struct finding_sink *k);
void rule_slow_device(const struct finding_ctx *c, struct finding_sink *k);
void rule_read_kind(const struct finding_ctx *c, struct finding_sink *k);
void rule_locked_buffer_reads(const struct finding_ctx *c, struct finding_sink *k);
void rule_blocked_on_io(const struct finding_ctx *c, struct finding_sink *k);
void rule_journal_forced(const struct finding_ctx *c, struct finding_sink *k);
void rule_journal_space(const struct finding_ctx *c, struct finding_sink *k);
void rule_journal_commits(const struct finding_ctx *c, struct finding_sink *k);
void rule_writeback_throttle(const struct finding_ctx *c, struct finding_sink *k);
void rule_discard(const struct finding_ctx *c, struct finding_sink *k);
void rule_xfs_inodegc(const struct finding_ctx *c, struct finding_sink *k);
void rule_xfs_log_forces(const struct finding_ctx *c, struct finding_sink *k);
void rule_xfs_log(const struct finding_ctx *c, struct finding_sink *k);
void rule_btrfs_kind(const struct finding_ctx *c, struct finding_sink *k);
void rule_fuse_daemon(const struct finding_ctx *c, struct finding_sink *k);
void rule_overlayfs(const struct finding_ctx *c, struct finding_sink *k);
void rule_extent_freeing(const struct finding_ctx *c, struct finding_sink *k);
void rule_page_faults(const struct finding_ctx *c, struct finding_sink *k);
void rule_ptrace_stops(const struct finding_ctx *c, struct finding_sink *k);
void rule_kernel_cpu(const struct finding_ctx *c, struct finding_sink *k);
void rule_user_cpu(const struct finding_ctx *c, struct finding_sink *k);
void rule_writeback_waits(const struct finding_ctx *c, struct finding_sink *k);
void rule_peer_waits(const struct finding_ctx *c, struct finding_sink *k);
void rule_other_waits(const struct finding_ctx *c, struct finding_sink *k);
void rule_unattributed_waits(const struct finding_ctx *c, struct finding_sink *k);
void rule_subsystems(const struct finding_ctx *c, struct finding_sink *k);
void rule_signal_stop(const struct finding_ctx *c, struct finding_sink *k);
void rule_frozen(const struct finding_ctx *c, struct finding_sink *k);
void rule_other_states(const struct finding_ctx *c, struct finding_sink *k);
void rule_before_trace(const struct finding_ctx *c, struct finding_sink *k);
void rule_not_accounted(const struct finding_ctx *c, struct finding_sink *k);
void rule_idle_waits(const struct finding_ctx *c, struct finding_sink *k);
void rule_scattered_inodes(const struct finding_ctx *c, struct finding_sink *k);
void rule_small_getdents(const struct finding_ctx *c, struct finding_sink *k);
void rule_allocator_churn(const struct finding_ctx *c, struct finding_sink *k);

#endif
