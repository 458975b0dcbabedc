// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict (findings.h). ctx_init() partitions the traced
 * threads' whole time (thread seconds while each lives) into parts: on CPU
 * in user space, in the kernel inside and outside system calls (split by
 * what the sampled kernel stacks were doing), runnable (throttled by a CPU
 * quota, behind the traced threads' own excess, behind other tasks), blocked and sleeping
 * by class of wait site, and idle (waiting for children, events or timers).
 * The cause catalogue, causes[], is the one table from those parts and the
 * counters to a cause, its evidence and its remedy: each entry claims its
 * parts, so every part belongs to one finding and the shares sum to 1. The
 * explaining rules (inode order, getdents batches, allocator) say why part
 * of a finding's time was spent, and never claim more than it. */
#include "trace/findings.h"
#include "probes/hist.h"
#include "trace/measure.h"
#include "trace/result.h"
#include "trace/states.h"
#include "trace/subsys.h"
#include "trace/waits.h"
#include "trace/wakers.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Lock types as the wait stacks name them (waitclass.c's lock_of). */
static const char *const lock_names[] = { "rwsem:W",  "rwsem:R",  "mutex", "semaphore",
					  "pcpu-sem", "rt-mutex", "other" };
#define NLOCKS (int)(sizeof lock_names / sizeof *lock_names)

/* Kinds of metadata read (wait_detail), plus the unnamed ones. */
static const char *const read_kinds[] = { "inode_table", "directory_block", "bitmap",
					  "extent_tree", "btree",	    NULL };
#define NREADS 6
static const char *const btrfs_kinds[] = { "tree_lock", "transaction", "delayed_items", "space",
					   NULL };
#define NBTRFS 5

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

struct finding_sink {
	struct trace_finding *out;
	int n, max;
	const char *id; /* the running rule's: its findings carry it */
	const char *explains;
};

static void add(struct finding_sink *k, double share, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(struct finding_sink *k, double share, const char *fmt, ...)
{
	va_list ap;

	if (k->n >= k->max)
		return;
	k->out[k->n].id = k->id;
	k->out[k->n].explains = k->explains;
	k->out[k->n].share = share;
	k->out[k->n].cause = true;
	va_start(ap, fmt);
	vsnprintf(k->out[k->n].text, sizeof k->out[k->n].text, fmt, ap);
	va_end(ap);
	k->n++;
}

static void add_dev(struct probe_dev_stat *d, const struct probe_dev_stat *x)
{
	unsigned long long *a = (void *)d;
	const unsigned long long *b = (const void *)x;
	for (size_t w = 0; w < sizeof *d / 8; w++)
		a[w] += b[w];
}

static int index_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n && names[i]; i++)
		if (name && !strcmp(names[i], name))
			return i;
	return n - 1;
}

/* On CPU: user, and the kernel's time inside and outside system calls,
 * each split by the categories of its samples (all of it "unlink" when
 * nothing was sampled). Without on-CPU accounting, the kernel's time in busy
 * system calls is what their latency leaves after the waits inside them. */
static void cpu_parts(struct finding_ctx *c, double blocked_in_busy)
{
	const struct trace_cpu *cpu = &c->r->cpu;
	double sys, other;

	c->cpu_measured = cpu->have;
	if (cpu->have) {
		c->user = (double)cpu->user_ns;
		sys = (double)cpu->syscall_ns;
		other = (double)cpu->kernel_other_ns;
	} else {
		sys = (double)trace_busy_ns(c->s) - blocked_in_busy - (double)c->m->busy_runq_ns -
		      (double)c->m->busy_preempt_ns;
		if (sys < 0)
			sys = 0;
		other = 0;
	}
	uint64_t ns = 0, no = 0;
	for (int k = 0; k < TCPU_COUNT; k++) {
		ns += cpu->samples_sys[k];
		no += cpu->samples_other[k];
	}
	for (int k = 0; k < SS_COUNT; k++) {
		ns += cpu->ss_sys[k];
		no += cpu->ss_other[k];
	}
	for (int k = 0; ns + no && k < SS_COUNT; k++)
		c->sub_cpu[k] = (ns ? sys * (double)cpu->ss_sys[k] / (double)ns : 0) +
				(no ? other * (double)cpu->ss_other[k] / (double)no : 0);
	for (int k = 0; k < TCPU_COUNT; k++) {
		c->kcpu[k] += ns	       ? sys * (double)cpu->samples_sys[k] / (double)ns :
			      k == TCPU_UNLINK ? sys :
						 0;
		c->kcpu[k] += no	      ? other * (double)cpu->samples_other[k] / (double)no :
			      k == TCPU_OTHER ? other :
						0;
	}
}

/* A ptrace tracer that is one of the traced processes (strace -f rm): its
 * CPU handles the deleter's stops, and moves from the CPU parts into the
 * tracer's finding, in their proportions. */
static void tracer_cpu_part(struct finding_ctx *c)
{
	double t = (double)c->m->tracer_oncpu_ns, all = c->user;
	for (int k = 0; k < TCPU_COUNT; k++)
		all += c->kcpu[k];
	if (t <= 0 || all <= 0)
		return;
	if (t > all)
		t = all;
	double keep = 1 - t / all;
	c->user *= keep;
	for (int k = 0; k < TCPU_COUNT; k++)
		c->kcpu[k] *= keep;
	c->tracer_cpu = t;
}

/* Lock contention on CPU: a contended lock's wait (contention_begin to
 * _end) is spinning until it sleeps, then the sleep and the run-queue delay
 * after it, which the wait sites hold. What the sites do not hold was spent
 * spinning, on CPU: it moves out of the kernel's CPU into the directory
 * lock (the callers' proportion of directory operations in each type; every
 * rwsem write wait without callers) or into spinning on other locks. */
static void lock_spin_parts(struct finding_ctx *c)
{
	const struct trace_result *r = c->r;
	double seen[PROBE_LOCK_TYPES] = { 0 }, dir[PROBE_LOCK_TYPES] = { 0 };
	double slept_dir = 0, slept_other = 0, dir_spin = 0, other_spin = 0;

	for (int i = 0; i < r->ncallers; i++) {
		unsigned t = r->callers[i].flags & (PROBE_LOCK_TYPES - 1);
		double ns = (double)r->callers[i].total_ns;
		seen[t] += ns;
		if (trace_caller_cause(r->caller_names[i], t) == TC_DIR_LOCK)
			dir[t] += ns;
	}
	for (int i = 0; i < r->nsites; i++) {
		const struct trace_wait_site *w = &r->sites[i];
		if (w->cause == TC_DIR_LOCK)
			slept_dir += (double)w->total_ns;
		else if (w->cause == TC_LOCK || (w->ctx & PROBE_WAIT_IN_LOCK))
			slept_other += (double)w->total_ns;
	}
	for (int t = 0; t < PROBE_LOCK_TYPES; t++) {
		double w = (double)c->s->lock[t].wait.total;
		double fd = seen[t] > 0 ? dir[t] / seen[t] : t == PROBE_LCB_F_WRITE && !r->ncallers;
		dir_spin += w * fd;
		other_spin += w * (1 - fd);
	}
	dir_spin -= slept_dir;
	other_spin -= slept_other;
	if (dir_spin < 0)
		dir_spin = 0;
	if (other_spin < 0)
		other_spin = 0;
	/* The measured spin replaces the samples' guess, and never takes more
	 * than the kernel's CPU it comes out of. */
	double pool = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER] + c->kcpu[TCPU_SPIN];
	double take = dir_spin + other_spin;
	if (take <= 0)
		return;
	if (take > pool) {
		dir_spin *= pool / take;
		other_spin *= pool / take;
		take = pool;
	}
	double rest = pool - take;
	double base = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER];
	double fu = base > 0 ? c->kcpu[TCPU_UNLINK] / base : 1;
	c->kcpu[TCPU_UNLINK] = rest * fu;
	c->kcpu[TCPU_OTHER] = rest * (1 - fu);
	c->kcpu[TCPU_SPIN] = other_spin;
	c->dir_lock += dir_spin;
	c->dir_spin = dir_spin;
}

/* The CPUs the traced threads may use: the traced process's CPU affinity
 * (a cpuset; the tracer's when the process is gone, as a command inherits
 * it) and the CPU quota, whichever is fewer. */
static double usable_cpus(const struct trace_result *r)
{
	cpu_set_t set;
	double n = (double)sysconf(_SC_NPROCESSORS_ONLN);

	if ((r->pid > 0 && !sched_getaffinity(r->pid, sizeof set, &set)) ||
	    !sched_getaffinity(0, sizeof set, &set))
		n = CPU_COUNT(&set);
	if (r->limits.cpu_quota > 0 && r->limits.cpu_quota < n)
		n = r->limits.cpu_quota;
	return n > 0 ? n : 1;
}

/* Take up to NS from the waits behind other tasks first, then from those
 * behind each other; returns what was taken. */
static double take_runq(struct finding_ctx *c, double ns)
{
	double other = ns < c->runq_other ? ns : c->runq_other;
	c->runq_other -= other;
	ns -= other;
	double own = ns < c->runq_own ? ns : c->runq_own;
	c->runq_own -= own;
	return other + own;
}

/* A thread that waited to run on a CPU while a filesystem's kernel thread
 * or work item ran there waited behind it (the probes measure that
 * overlap). When that filesystem holds the delete, it is the deletes'
 * deferred work, not other load: xfs's inodegc workers inactivate the
 * unlinked inodes on the CPU whose unlink queued them (one list and worker
 * per CPU), jbd2 commits the unlinks' transactions, btrfs's workers run
 * its delayed items and refs. inodegc is xfs_inodegc's when the traced
 * threads queued inodes or met its throttle or a flush (another process's
 * inode GC stays contention). The flusher and the softirq and RCU threads
 * serve every device and process: cpu_contention names them. */
static void fs_worker_runq(struct finding_ctx *c)
{
	static const char *const fs[PROBE_FSW_COUNT] = {
		[PROBE_FSW_XFS_INODEGC] = "xfs", [PROBE_FSW_XFS] = "xfs",
		[PROBE_FSW_EXT4] = "ext4",	 [PROBE_FSW_BTRFS] = "btrfs",
		[PROBE_FSW_WRITEBACK] = NULL,	 [PROBE_FSW_SOFTIRQ] = NULL,
	};
	const struct probe_misc *m = c->m;

	if (m->xfs_inactive_queued || m->xfs_inodegc_throttles || c->cause[TC_XFS_INODEGC] > 0)
		c->gc_runq = take_runq(c, (double)m->runq_behind_fsw_ns[PROBE_FSW_XFS_INODEGC]);
	for (int i = 0; i < PROBE_FSW_COUNT; i++)
		if (i != PROBE_FSW_XFS_INODEGC && fs[i] && trace_delete_on(c->r, fs[i]))
			c->fsw_runq[i] = take_runq(c, (double)m->runq_behind_fsw_ns[i]);
}

/* Runnable: wakeup to running, and preempted. A CPU quota's throttling is
 * the cgroup's throttled time (never more than the runnable time). Of the
 * rest, the traced threads' own part is the wait their number alone
 * explains: what their running and runnable time exceeds of the usable
 * CPUs' time, which they would wait even on an otherwise idle machine. The
 * remainder was behind other tasks. Which task left the CPU when a wait
 * ended does not tell this apart: short kernel workers end most waits
 * whoever held the CPU before them. */
#define OWN_EXCESS_MIN 0.5

/* The run-queue time traced threads held the CPU for (-1: no holders
 * recorded). */
static double traced_holders_ns(const struct trace_result *r)
{
	double ns = 0;
	bool any = false;

	for (int i = 0; i < r->nwakers; i++) {
		if (r->wakers[i].state != PROBE_WAKE_HELD)
			continue;
		any = true;
		if (r->wakers[i].who.cls == PROBE_WAKER_TRACED)
			ns += (double)r->wakers[i].ns;
	}
	return any ? ns : -1;
}
static void runnable_parts(struct finding_ctx *c)
{
	const struct probe_misc *m = c->m;
	/* the locks' handoffs are theirs already (handoff_runq), the same
	 * waits the run-queue histogram holds */
	double all = (double)(m->runq.total + m->offcpu[PROBE_OFFCPU_PREEMPTED].total) - c->lock_runq;
	double q = c->r->limits.cpu_quota > 0 ? (double)c->r->limits.throttled_ns : 0;

	if (all < 0)
		all = 0;
	c->quota = q < all ? q : all;
	double rest = all - c->quota;
	double own = all > 0 ? (double)m->runq_traced_ns / all : 0;
	c->not_traced = own < 1 ? 1 - own : 0;
	double oncpu = c->user + c->dir_spin;
	for (int k = 0; k < TCPU_COUNT; k++)
		oncpu += c->kcpu[k];
	if ((double)m->oncpu_ns > oncpu)
		oncpu = (double)m->oncpu_ns;
	/* a thread spinning for a lock waits for the lock, not for a CPU: it
	 * would sleep instead, and is no demand of the threads' number */
	oncpu -= c->dir_spin + c->kcpu[TCPU_SPIN];
	if (oncpu < 0)
		oncpu = 0;
	double wall = (double)c->r->wall_ns;
	c->runq_own = 0;
	if (wall > 0) {
		c->runnable = (oncpu + rest) / wall;
		double excess = oncpu + rest - c->cpus * wall;
		/* under half a thread over the CPUs on average is the main
		 * thread's turns or the accounting's slop, not a worker too
		 * many */
		if (c->runnable - c->cpus >= OWN_EXCESS_MIN)
			c->runq_own = excess < rest ? excess : rest;
	}
	/* the wait behind each other is at most what traced threads held
	 * the CPU for, where the holders were seen: beside other load a
	 * lone thread under a quota waits behind the load, not itself */
	double held_traced = traced_holders_ns(c->r);
	if (held_traced >= 0 && c->runq_own > held_traced)
		c->runq_own = held_traced;
	c->runq_other = rest - c->runq_own;
	fs_worker_runq(c);
}

/* A waiter asleep on a lock is woken by its release and still waits for the
 * lock until it runs: the run-queue wait after that wake is the handoff's
 * (a convoy), and perf lock counts it in the contended wait too. It moves
 * from the runnable parts into the lock's. */
static double handoff_runq(struct finding_ctx *c, const struct trace_wait_site *w)
{
	double rq = w->total_ns > w->blocked_ns ? (double)(w->total_ns - w->blocked_ns) : 0;
	c->lock_runq += rq;
	return rq;
}

/* An xfs buffer's lock is held across the buffer's read from the device:
 * who waits for it then waits for the read (cold AG headers, inode
 * clusters), serialized behind the lock, not for other CPUs' work. The
 * xfs_buf_lock waits take that part to the metadata reads, in the
 * proportion the buffer-lock events saw a read of the same buffer during
 * the wait. Returns the part of NS moved. */
static double behind_reads(struct finding_ctx *c, const struct trace_wait_site *w, double ns)
{
	double all = (double)c->m->xfs_buf_lock_ns, read = (double)c->m->xfs_buf_lock_read_ns;
	if (strncmp(w->site, "xfs_buf_lock", 12) || all <= 0 || read <= 0)
		return 0;
	double f = read < all ? read / all : 1;
	c->buf_reads += f * ns;
	c->read_waits += (uint64_t)((double)w->count * f + 0.5);
	c->read_wait_ns += f * ns;
	return f * ns;
}

/* A wait site the subsystem layer takes from the catalogue: a site no
 * entry knows (any subsystem, the delete's own too, so that no wait is
 * "a site the table does not know"), and a lock of a subsystem other than
 * the delete's own (a frozen filesystem's sb_start_write is no contention
 * between threads). */
static bool subsys_claims(const struct trace_wait_site *w)
{
	if (w->subsys < 0 || w->subsys >= SS_COUNT)
		return false;
	return w->cause == TC_OTHER || (w->cause == TC_LOCK && !subsys_own(w->subsys));
}

/* The run-queue wait behind a process or kernel thread that itself ended
 * the traced threads' waits is what they wait for, not other load: the
 * helper that answers each call (auditd and kauditd for audit records)
 * moves into that subsystem's part, and the process that holds the
 * directory lock (another reader) into the lock's. */
static void helper_runq(struct finding_ctx *c)
{
	struct trace_waker_sum h[16];
	int n = trace_wakers_by_who(c->r, trace_waker_held, NULL, h, 16, NULL), cause;

	for (int i = 0; i < n && c->runq_other > 0; i++) {
		if (h[i].who.cls < PROBE_WAKER_PROCESS || h[i].who.cls > PROBE_WAKER_WORKQUEUE)
			continue;
		int ss = trace_waker_serves(c->r, &h[i].who, &cause);
		double *to = NULL;
		if (ss >= 0 && !subsys_own(ss) && c->sub_wait[ss] + c->sub_cpu[ss] > 0)
			to = &c->sub_runq[ss];
		else if (cause == TC_DIR_LOCK && c->dir_lock > 0)
			to = &c->dir_lock;
		if (!to)
			continue;
		double take = h[i].ns < c->runq_other ? h[i].ns : c->runq_other;
		*to += take;
		c->runq_other -= take;
	}
}

/* Blocked and sleeping, by the class of each wait site (every D wait, and
 * S waits inside busy system calls); the rest of the off-CPU time outside
 * the run queue is idle: poll, futex, wait4, sleeps. Returns the blocked
 * time inside busy system calls. */
static double wait_parts(struct finding_ctx *c)
{
	const struct trace_result *r = c->r;
	const struct probe_misc *m = c->m;
	double sites = 0, in_busy = 0;

	for (int i = 0; i < r->nsites; i++) {
		const struct trace_wait_site *w = &r->sites[i];
		double ns = (double)w->blocked_ns;
		sites += ns;
		in_busy += (double)w->in_syscall_ns;
		/* a helper's sleeps on pipes and events are its idleness; its
		 * D waits (a sync's commit) are still the delete's */
		if (w->helper && w->state == PROBE_OFFCPU_SLEEPING) {
			c->helpers += ns;
			continue;
		}
		if (subsys_claims(w)) {
			c->sub_wait[w->subsys] += ns + (w->cause == TC_LOCK ? handoff_runq(c, w) : 0);
			continue;
		}
		switch (w->cause) {
		case TC_DIR_LOCK: c->dir_lock += ns + handoff_runq(c, w); break;
		case TC_LOCK:
			ns += handoff_runq(c, w);
			ns -= behind_reads(c, w, ns);
			c->lock[index_of(lock_names, NLOCKS, w->lock)] += ns;
			break;
		case TC_META_READ:
			c->reads[index_of(read_kinds, NREADS, w->detail)] += ns;
			c->read_waits += w->count;
			c->read_wait_ns += ns;
			break;
		case TC_BTRFS: c->btrfs[index_of(btrfs_kinds, NBTRFS, w->detail)] += ns; break;
		case TC_WRITEBACK:
			if (w->detail && !strcmp(w->detail, "throttle"))
				c->wb_throttle += ns;
			else
				c->cause[TC_WRITEBACK] += ns;
			break;
		case TC_JOURNAL:
			c->cause[TC_JOURNAL] += ns;
			if (strstr(w->site, "(space)"))
				c->journal_space += ns;
			break;
		case TC_XFS_INODEGC:
			/* woken when the inodegc work it flushed is done, the
			 * unlinker still waits for that flush until it runs:
			 * offcputime counts it in flush_work too */
			c->cause[TC_XFS_INODEGC] += ns + handoff_runq(c, w);
			break;
		case TC_XFS_LOG:
			if (w->detail && !strcmp(w->detail, "sync_commit"))
				c->xfs_sync_commit += ns;
			else
				c->cause[TC_XFS_LOG] += ns;
			break;
		case TC_BLOCK_IO:
			c->read_waits += w->count;
			c->read_wait_ns += ns;
			c->cause[TC_BLOCK_IO] += ns;
			break;
		default: c->cause[w->cause] += ns; break;
		}
	}
	c->lost = (double)m->wait_sites_lost_ns;
	/* runq holds the run-queue waits after the other states too */
	double off = (double)(m->offcpu[PROBE_OFFCPU_BLOCKED].total +
			      m->offcpu[PROBE_OFFCPU_SLEEPING].total) -
		     ((double)m->runq.total - (double)m->state_rq_ns) + (double)m->open_ns;
	c->idle = off - sites - c->lost;
	if (c->idle < 0)
		c->idle = 0;
	/* A helper process (rsync's sender and receiver, xargs, make) waits
	 * for the remover: its idle waits are left out of the whole time, so
	 * the shares are of the threads that remove. */
	double h = (double)m->helper_idle_ns < c->idle ? (double)m->helper_idle_ns : c->idle;
	c->idle -= h;
	c->helpers += h;
	/* A wrapper (sh -c, a script) waiting for its deleting child is the
	 * child's time, which the child's own threads hold. */
	h = (double)m->child_wait_ns < c->idle ? (double)m->child_wait_ns : c->idle;
	c->idle -= h;
	c->helpers += h;
	return in_busy;
}

static double partition_sum(const struct finding_ctx *c)
{
	double sum = c->user + c->quota + c->runq_own + c->runq_other + c->dir_lock + c->buf_reads +
		     c->wb_throttle + c->idle + c->lost + c->stopped + c->tracer_cpu +
		     c->xfs_sync_commit + c->gc_runq + c->sigstop + c->frozen + c->other_state +
		     c->pretrace;
	for (int k = 0; k < SS_COUNT; k++)
		sum += c->sub_wait[k] + c->sub_cpu[k] + c->sub_runq[k];
	for (int k = 0; k < TCPU_COUNT; k++)
		sum += c->kcpu[k];
	for (int i = 0; i < PROBE_FSW_COUNT; i++)
		sum += c->fsw_runq[i];
	for (int i = 0; i < NLOCKS; i++)
		sum += c->lock[i];
	for (int i = 0; i < NREADS; i++)
		sum += c->reads[i];
	for (int i = 0; i < NBTRFS; i++)
		sum += c->btrfs[i];
	for (int k = 0; k < TC_COUNT; k++)
		sum += c->cause[k];
	return sum;
}

static void ctx_init(struct finding_ctx *c, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	const struct probe_misc *m = &s->misc;

	memset(c, 0, sizeof *c);
	c->r = r;
	c->s = s;
	c->m = m;
	c->cpus = usable_cpus(r);
	uint64_t files = s->sc[PROBE_NR_UNLINKAT].lat.count - m->unlinkat_dir.count +
			 trace_old_unlinks(s, false);
	uint64_t dirs = m->unlinkat_dir.count + trace_old_unlinks(s, true);
	c->entries = files + dirs;

	double in_busy = wait_parts(c);
	c->stopped = (double)m->state_ns[PROBE_XSTATE_TRACER_STOP];
	c->sigstop = (double)m->state_ns[PROBE_XSTATE_SIGNAL_STOP];
	c->frozen = (double)m->state_ns[PROBE_XSTATE_FROZEN];
	c->other_state = (double)m->state_ns[PROBE_XSTATE_OTHER];
	c->pretrace = (double)m->pretrace_ns;
	cpu_parts(c, in_busy);
	tracer_cpu_part(c);
	lock_spin_parts(c);
	runnable_parts(c);
	helper_runq(c);
	/* the whole time is the sum of its parts, each measured on its own,
	 * and what the threads' lifetimes hold beyond them: not accounted */
	c->base = partition_sum(c);
	c->life = (double)s->life_ns - c->helpers;
	if (r->attached[PROBE_G_OFFCPU] && c->life > c->base) {
		c->unaccounted = c->life - c->base;
		c->base = c->life;
	}
	if (c->base <= 0)
		c->base = 1;

	for (int i = 0; i < r->ndevs; i++) {
		const struct probe_dev_stat *d = probes_dev_find(s, r->devs[i].dev);
		if (!d)
			continue;
		if (r->devs[i].traced) {
			add_dev(&c->dev, d);
			c->discard_mount |= r->devs[i].discard;
			c->dirsync_mount |= r->devs[i].dirsync;
		} else {
			c->other_discards += d->bio_discards ? d->bio_discards : d->ext4_discards;
		}
	}
}

static double sh(const struct finding_ctx *c, double ns)
{
	return ns / c->base;
}

/* A site whose time a part of its own claims (journal space, writeback
 * throttling): the evidence of its cause's other finding leaves it out. */
static bool claimed_apart(const struct trace_wait_site *w)
{
	return (w->cause == TC_JOURNAL && strstr(w->site, "(space)")) ||
	       (w->cause == TC_WRITEBACK && w->detail && !strcmp(w->detail, "throttle"));
}

/* the heaviest wait site of CAUSE (and KIND, if given), or "" */
static const char *top_site(const struct finding_ctx *c, int cause, const char *kind)
{
	const struct trace_wait_site *best = NULL;
	for (int i = 0; i < c->r->nsites; i++) {
		const struct trace_wait_site *w = &c->r->sites[i];
		if (w->cause == cause &&
		    (kind ? w->detail && !strcmp(w->detail, kind) : !claimed_apart(w)) &&
		    (!best || w->blocked_ns > best->blocked_ns))
			best = w;
	}
	return best ? best->site : "";
}

static uint64_t cause_waits(const struct finding_ctx *c, int cause)
{
	uint64_t n = 0;
	for (int i = 0; i < c->r->nsites; i++)
		if (c->r->sites[i].cause == cause && !claimed_apart(&c->r->sites[i]))
			n += c->r->sites[i].count;
	return n;
}

static double reads_sum(const struct finding_ctx *c)
{
	double t = c->buf_reads;
	for (int i = 0; i < NREADS; i++)
		t += c->reads[i];
	return t;
}

/* ---- the device behind the reads ---- */

/* The reads waited far longer than the device serves a request: something
 * above the device holds them (a cgroup's I/O throttle, a queue). */
#define THROTTLE_RATIO 20.0
/* A device that serves a request this slowly is itself the cause. */
#define SLOW_DEVICE_NS 2e6
/* Under a cgroup's I/O limit, waits this much longer than the device's
 * service time are the limit's; waits as short as the service time were not
 * held by it, and a faster device would help after all. */
#define LIMITED_RATIO 2.0

enum read_verdict { READS_KINDS, READS_THROTTLED, READS_SLOW_DEVICE };

/* The cgroup's I/O limit is on a device the delete read from (or the
 * device is not known). */
static bool io_limit_here(const struct finding_ctx *c)
{
	const struct trace_limits *l = &c->r->limits;
	if (!l->io_limit[0])
		return false;
	if (!l->io_dev)
		return true;
	for (int i = 0; i < c->r->ndevs; i++)
		if (c->r->devs[i].traced && c->r->devs[i].dev == l->io_dev)
			return true;
	return false;
}

static enum read_verdict reads_verdict(const struct finding_ctx *c, double *service, double *per_wait)
{
	const struct probe_hist *bl = &c->dev.bio_lat;
	*service = bl->count ? hist_quantile(bl, 0.5) : 0;
	*per_wait = c->read_waits ? c->read_wait_ns / (double)c->read_waits : 0;
	if (io_limit_here(c) && c->read_wait_ns > 0 &&
	    (bl->count < 3 || *per_wait > LIMITED_RATIO * *service))
		return READS_THROTTLED;
	if (*service > 0 && *per_wait > THROTTLE_RATIO * *service && bl->count >= 3)
		return READS_THROTTLED;
	if (*service >= SLOW_DEVICE_NS)
		return READS_SLOW_DEVICE;
	return READS_KINDS;
}

/* The delete's device whose requests took longest (p50), by name. */
static const char *slowest_device(const struct finding_ctx *c)
{
	const char *name = "";
	double worst = -1;
	for (int i = 0; i < c->r->ndevs; i++) {
		const struct probe_dev_stat *d = probes_dev_find(c->s, c->r->devs[i].dev);
		if (!c->r->devs[i].traced || !d || !d->bio_lat.count)
			continue;
		double p50 = hist_quantile(&d->bio_lat, 0.5);
		if (p50 > worst) {
			worst = p50;
			name = c->r->devs[i].name;
		}
	}
	return name;
}

/* "inode-table reads" for the largest kind of read */
static const char *main_read_kind(const struct finding_ctx *c)
{
	static const char *const names[NREADS] = { "inode-table",      "directory-block", "bitmap",
						   "extent-tree leaf", "b-tree node",	  "metadata" };
	int best = NREADS - 1;
	for (int i = 0; i < NREADS; i++)
		if (c->reads[i] > c->reads[best])
			best = i;
	return names[best];
}

/* "48 MiB", "1.5 GiB": a limit as people set it */
static const char *mib(uint64_t bytes, char *buf, size_t len)
{
	double m = (double)bytes / 1048576.0;
	if (m >= 1024)
		snprintf(buf, len, "%.4g GiB", m / 1024);
	else
		snprintf(buf, len, "%.4g MiB", m);
	return buf;
}

/* ---- the catalogue: one entry per cause ---- */

static void cpu_quota(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	char b1[32], b2[32];

	if (c->quota <= 0)
		return;
	add(k, sh(c, c->quota),
	    "CPU quota: the cgroup %s may use %.0f%% of a CPU (CFS bandwidth) and throttled the "
	    "traced threads %llu times for %s; they were runnable but not allowed to run for "
	    "%s. Raise or lift the quota (cpu.cfs_quota_us, cpu.max) or delete outside this "
	    "cgroup: more threads cannot help, the quota caps them together.",
	    l->cpu_cgroup, 100 * l->cpu_quota, (unsigned long long)l->nr_throttled,
	    trace_fmt_ns((double)l->throttled_ns, b1, sizeof b1),
	    trace_fmt_ns(c->quota, b2, sizeof b2));
}

/* The wait that more traced threads than usable CPUs explain: fewer
 * workers would not have it. Its remedy needs more threads than CPUs. */
static void cpu_oversubscription(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->runq_own <= 0 || c->r->max_threads <= c->cpus)
		return;
	add(k, sh(c, c->runq_own),
	    "CPU oversubscription: the threads waited %s for a CPU held by other traced "
	    "threads: %.1f of them were running or runnable on average, up to %u threads, on "
	    "%.4g CPUs. Fewer workers (one per CPU) would not wait.",
	    trace_fmt_ns(c->runq_own, b1, sizeof b1), c->runnable, c->r->max_threads, c->cpus);
}

/* "; held by NAME (pid N) 61%, NAME 20%" for the untraced tasks that
 * held the CPUs the threads waited for, into BUF. */
static const char *cpu_holders(const struct finding_ctx *c, char *buf, size_t len)
{
	struct trace_waker_sum h[8];
	double total;
	int n = trace_wakers_by_who(c->r, trace_waker_held, NULL, h, 8, &total);
	size_t used = 0;

	*buf = '\0';
	for (int i = 0, shown = 0; i < n && shown < 3 && total > 0; i++) {
		if (h[i].who.cls == PROBE_WAKER_TRACED || h[i].who.cls == PROBE_WAKER_IDLE ||
		    h[i].ns < 0.1 * total)
			continue;
		char name[96];
		int w = snprintf(buf + used, len - used, "%s%s %.0f%%",
				 shown++ ? ", " : "; the CPUs held by ",
				 trace_waker_name(&h[i].who, name, sizeof name),
				 100 * h[i].ns / total);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* The rest of the run-queue wait was behind other tasks (and the traced
 * threads' own turns, with no more of them than CPUs). */
static void cpu_contention(const struct finding_ctx *c, struct finding_sink *k)
{
	double ns = c->runq_other + (c->r->max_threads <= c->cpus ? c->runq_own : 0);
	char b1[32];

	if (ns <= 0)
		return;
	/* named, not claimed: the RCU callbacks free the unlinked inodes and
	 * dentries, the flusher writes back what the deletes dirtied, but
	 * both serve every other process and device too */
	static const struct {
		int fsw;
		const char *where;
	} named[] = {
		{ PROBE_FSW_SOFTIRQ, "ksoftirqd and the RCU threads, where the kernel frees the "
				     "unlinked inodes and dentries after a grace period" },
		{ PROBE_FSW_WRITEBACK, "the flusher (writeback)" },
	};
	char b2[32], also[320] = "";
	size_t len = 0;
	for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
		double part = (double)c->m->runq_behind_fsw_ns[named[i].fsw];
		if (part > ns)
			part = ns;
		if (part < 0.1 * ns)
			continue;
		int w = snprintf(also + len, sizeof also - len, "; %s of it behind %s",
				 trace_fmt_ns(part, b2, sizeof b2), named[i].where);
		if (w > 0 && (size_t)w < sizeof also - len)
			len += (size_t)w;
	}
	/* Most waits ended by another traced thread, with more threads than
	 * CPUs besides one (a main thread that waits for its workers) and more
	 * running or runnable than CPUs on average: they mostly took turns
	 * with each other, under the half a thread of excess that
	 * cpu_oversubscription needs (they block often, and are many only at
	 * times). */
	if (c->not_traced < 0.5 && c->r->max_threads > c->cpus + 1 && c->runnable > c->cpus) {
		add(k, sh(c, ns),
		    "CPU contention: the threads were runnable for %s, mostly behind each other "
		    "(%.0f%% of it ended when another traced thread left the CPU; up to %u threads "
		    "on %.4g CPUs%s). Fewer workers would take fewer turns; the rest waited behind "
		    "other tasks.",
		    trace_fmt_ns(ns, b1, sizeof b1), 100 * (1 - c->not_traced), c->r->max_threads,
		    c->cpus, also);
		return;
	}
	char holders[256], quiet[32];
	add(k, sh(c, ns),
	    "CPU contention: the threads were runnable for %s while other tasks held the CPUs "
	    "(%.0f%% of it behind tasks that are not traced: other processes, kernel "
	    "workers%s%s); on a quiet machine the delete would take about %s. Nothing in the "
	    "deleter changes this: run it when the CPUs are free, or give it a larger CPU weight "
	    "(nice, cpu.shares).",
	    trace_fmt_ns(ns, b1, sizeof b1), 100 * c->not_traced, also,
	    cpu_holders(c, holders, sizeof holders),
	    trace_fmt_ns((double)c->r->wall_ns * (1 - sh(c, ns)), quiet, sizeof quiet));
}

/* The waits to run behind the delete's filesystems' own kernel threads
 * and work items (but xfs's inodegc, xfs_inodegc's). */
static void fs_worker_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	static const char *const what[PROBE_FSW_COUNT] = {
		[PROBE_FSW_XFS] = "xfs's log and buffer workers (xfsaild, CIL pushes)",
		[PROBE_FSW_EXT4] =
			"ext4's journal thread (jbd2: committing the unlinks' transactions)",
		[PROBE_FSW_BTRFS] = "btrfs's workers (transaction commits, delayed items and refs)",
	};
	char list[512] = "", b[32];
	double ns = 0;
	size_t len = 0;

	for (int i = 0; i < PROBE_FSW_COUNT; i++) {
		if (c->fsw_runq[i] <= 0 || !what[i])
			continue;
		ns += c->fsw_runq[i];
		int w = snprintf(list + len, sizeof list - len, "%s%s behind %s", len ? "; " : "",
				 trace_fmt_ns(c->fsw_runq[i], b, sizeof b), what[i]);
		if (w > 0 && (size_t)w < sizeof list - len)
			len += (size_t)w;
	}
	if (ns <= 0)
		return;
	add(k, sh(c, ns),
	    "Filesystem threads on the CPUs: the threads waited %s to run while the "
	    "filesystem's own kernel threads ran on the CPU they waited for (%s). That is "
	    "the deletes' deferred work, not other load: it needs the CPUs as much as the "
	    "unlinks do, and running on a quiet machine would not remove it.",
	    trace_fmt_ns(ns, b, sizeof b), list);
}

static double reclaim_ns(const struct finding_ctx *c)
{
	return c->kcpu[TCPU_RECLAIM] + c->cause[TC_RECLAIM];
}

/* A memory limit that was neither hit nor reclaimed from while tracing did
 * not cause the reclaim: the machine's shortage did, and raising the limit
 * would not help. */
static bool memcg_limited(const struct finding_ctx *c)
{
	const struct trace_limits *l = &c->r->limits;
	return l->mem_limit && (l->mem_failcnt || l->mem_reclaim_pages);
}

static void memcg_reclaim(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	char b1[32], b2[32];

	if (reclaim_ns(c) <= 0 || !memcg_limited(c))
		return;
	char scanned[48] = "";
	if (l->mem_reclaim_pages)
		snprintf(scanned, sizeof scanned, ", %llu pages scanned",
			 (unsigned long long)l->mem_reclaim_pages);
	add(k, sh(c, reclaim_ns(c)),
	    "Memory-cgroup reclaim: the cgroup %s is limited to %s and the threads reclaimed "
	    "its pages in their own context for %s, the waits inside reclaim included (limit "
	    "hit %llu times%s). Raise the limit "
	    "(memory.limit_in_bytes, memory.max): the dentries, inodes and page cache a delete "
	    "touches, and the group's dirty data, are charged to it.",
	    l->mem_cgroup, mib(l->mem_limit, b2, sizeof b2),
	    trace_fmt_ns(reclaim_ns(c), b1, sizeof b1), (unsigned long long)l->mem_failcnt, scanned);
}

static void memory_reclaim(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (reclaim_ns(c) <= 0 || memcg_limited(c))
		return;
	add(k, sh(c, reclaim_ns(c)),
	    "Direct reclaim: the threads freed memory in their own context for %s (top site "
	    "%s): the machine ran short of free memory. Nothing in the deleter changes this; "
	    "free memory elsewhere.",
	    trace_fmt_ns(reclaim_ns(c), b1, sizeof b1), top_site(c, TC_RECLAIM, NULL));
}

static void directory_lock(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *w = &c->s->lock[PROBE_LCB_F_WRITE].wait;
	const int cause = TC_DIR_LOCK;
	char b1[32], b2[32], holder[320];

	if (c->dir_lock <= 0)
		return;
	/* the releaser wakes the waiter: it names the holder */
	trace_wakers_phrase(c->r, trace_waker_of_cause, &cause, holder, sizeof holder);
	add(k, sh(c, c->dir_lock),
	    "Directory-lock contention: the threads waited %s, spinning, asleep and queued to "
	    "run once woken, for the "
	    "parent directory's i_rwsem, which every unlink takes for write (%llu rwsem write "
	    "waits, p99 %s), with up to %u threads%s. %s",
	    trace_fmt_ns(c->dir_lock, b1, sizeof b1), (unsigned long long)w->count,
	    trace_fmt_ns(hist_quantile(w, 0.99), b2, sizeof b2), c->r->max_threads, holder,
	    /* one deleting thread cannot wait for itself: the holder is another
	     * process, and fewer workers would change nothing */
	    c->r->max_threads > 1 ? "Fewer workers unlinking in one directory (one directory "
				    "per worker) removes this wait." :
				    "With one deleting thread the holder is another process "
				    "working in the same directory: nothing in the deleter "
				    "changes this.");
}

/* every other lock type, one finding each, named by its heaviest site; the
 * spinning on locks is on-CPU time of its own */
static void other_locks(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	for (int i = 0; i < NLOCKS; i++) {
		const char *site = "";
		uint64_t n = 0, best = 0;
		if (c->lock[i] <= 0)
			continue;
		for (int j = 0; j < c->r->nsites; j++) {
			const struct trace_wait_site *w = &c->r->sites[j];
			if (w->cause != TC_LOCK || index_of(lock_names, NLOCKS, w->lock) != i)
				continue;
			n += w->count;
			if (w->blocked_ns > best) {
				best = w->blocked_ns;
				site = w->site;
			}
		}
		add(k, sh(c, c->lock[i]),
		    "Lock contention on a %s: the threads waited %s for it, asleep and queued to run "
		    "once woken (%llu waits, "
		    "mostly in %s).",
		    lock_names[i], trace_fmt_ns(c->lock[i], b1, sizeof b1), (unsigned long long)n,
		    site);
	}
	if (c->kcpu[TCPU_SPIN] > 0) {
		k->id = "lock_spinning";
		add(k, sh(c, c->kcpu[TCPU_SPIN]),
		    "Spinning on locks: %s on CPU in spin loops (queued spinlocks, optimistic "
		    "rwsem and mutex spinning): threads contending for the same kernel object.",
		    trace_fmt_ns(c->kcpu[TCPU_SPIN], b1, sizeof b1));
	}
}

static void metadata_reads(const struct finding_ctx *c, struct finding_sink *k)
{
	static const struct {
		const char *id, *what, *remedy;
	} kinds[NREADS] = {
		{ "inode_table_reads", "inode-table blocks",
		  "Unlinking in inode order reads each inode-table block once (GNU rm sorts big "
		  "directories); past that only a warm cache or a faster device helps." },
		{ "directory_block_reads", "directory blocks",
		  "Each directory is read once however it is deleted; a warm cache or a faster "
		  "device helps, more workers keep more reads in flight." },
		{ "bitmap_reads", "block and inode bitmaps",
		  "Freeing blocks and inodes reads their groups' bitmaps; nothing in the deleter "
		  "changes which groups the files are in." },
		{ "extent_tree_reads", "extent-tree leaves",
		  "A file's extent tree is read to free its extents: the more fragmented the file, "
		  "the more leaves. Nothing in the deleter changes this; fewer extents "
		  "(preallocation, defragmenting) do." },
		{ "btree_reads", "b-tree nodes",
		  "The filesystem reads its metadata b-trees to find what to free; a warm cache or "
		  "a faster device helps." },
		{ "metadata_reads", "metadata blocks", "A warm cache or a faster device helps." },
	};
	const struct probe_hist *bl = &c->dev.bio_lat;
	double service, per_wait;
	char b1[32], b2[32], b3[32];

	if (reads_sum(c) + c->cause[TC_BLOCK_IO] <= 0 ||
	    reads_verdict(c, &service, &per_wait) != READS_KINDS)
		return;
	for (int i = 0; i < NREADS; i++) {
		if (c->reads[i] <= 0)
			continue;
		k->id = kinds[i].id;
		add(k, sh(c, c->reads[i]),
		    "Metadata reads: the threads waited %s for %s read from the device (top site "
		    "%s; the delete's devices served %llu requests, p50 %s, a wait took %s on "
		    "average): a cold cache. %s",
		    trace_fmt_ns(c->reads[i], b1, sizeof b1), kinds[i].what,
		    top_site(c, TC_META_READ, i < NREADS - 1 ? read_kinds[i] : NULL),
		    (unsigned long long)bl->count, trace_fmt_ns(service, b2, sizeof b2),
		    trace_fmt_ns(per_wait, b3, sizeof b3), kinds[i].remedy);
	}
	if (c->buf_reads > 0) {
		k->id = "locked_buffer_reads";
		add(k, sh(c, c->buf_reads),
		    "Metadata reads behind a buffer lock: the threads waited %s in xfs_buf_lock for "
		    "buffers (AG headers, inode clusters) that the lock's holder was reading from "
		    "the device (%llu waits overlapped a read of their buffer; device p50 %s): a "
		    "cold cache, not contention among CPUs. A warm cache or a faster device helps; "
		    "more workers only queue behind the same reads.",
		    trace_fmt_ns(c->buf_reads, b1, sizeof b1),
		    (unsigned long long)c->m->xfs_buf_lock_reads,
		    trace_fmt_ns(service, b2, sizeof b2));
	}
	if (c->cause[TC_BLOCK_IO] > 0) {
		k->id = "blocked_on_io";
		add(k, sh(c, c->cause[TC_BLOCK_IO]),
		    "Blocked on block I/O: the threads waited %s for block requests (%llu waits, "
		    "top site %s; device p50 %s).",
		    trace_fmt_ns(c->cause[TC_BLOCK_IO], b1, sizeof b1),
		    (unsigned long long)cause_waits(c, TC_BLOCK_IO), top_site(c, TC_BLOCK_IO, NULL),
		    trace_fmt_ns(service, b2, sizeof b2));
	}
}

/* the reads held above the device, or by a slow device: one finding */
static void device_reads(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	double service, per_wait, ns = reads_sum(c) + c->cause[TC_BLOCK_IO];
	char b1[32], b2[32], b3[32];

	if (ns <= 0)
		return;
	enum read_verdict v = reads_verdict(c, &service, &per_wait);
	if (v == READS_THROTTLED) {
		k->id = "device_throttled";
		if (io_limit_here(c))
			add(k, sh(c, ns),
			    "I/O throttle: the threads waited %s for %s reads (%llu waits, %s each on "
			    "average) that the device serves in %s (p50): the cgroup %s limits them "
			    "(%s). Raise the limit (blkio.throttle.*, io.max) or delete outside the "
			    "cgroup; a faster device would not help.",
			    trace_fmt_ns(ns, b1, sizeof b1), main_read_kind(c),
			    (unsigned long long)c->read_waits, trace_fmt_ns(per_wait, b2, sizeof b2),
			    trace_fmt_ns(service, b3, sizeof b3), l->io_cgroup, l->io_limit);
		else
			add(k, sh(c, ns),
			    "Reads held above the device: the threads waited %s for %s reads (%llu "
			    "waits, %s each on average) that the device serves in %s (p50): a "
			    "throttle or a queue above it (an I/O cgroup limit, a hypervisor's "
			    "rate cap) holds them. Raise that limit; a faster device would not help.",
			    trace_fmt_ns(ns, b1, sizeof b1), main_read_kind(c),
			    (unsigned long long)c->read_waits, trace_fmt_ns(per_wait, b2, sizeof b2),
			    trace_fmt_ns(service, b3, sizeof b3));
	} else if (v == READS_SLOW_DEVICE) {
		k->id = "slow_device";
		add(k, sh(c, ns),
		    "A slow device: the threads waited %s for %s reads (%llu waits), and the device "
		    "%s itself takes %s per request (p50). A faster device, or a warm cache, helps; "
		    "more workers keep more reads in flight where the device serves them in "
		    "parallel.",
		    trace_fmt_ns(ns, b1, sizeof b1), main_read_kind(c),
		    (unsigned long long)c->read_waits, slowest_device(c),
		    trace_fmt_ns(service, b2, sizeof b2));
	}
}

/* with online discard, ext4 issues the discards in the commit: the commit
 * waits are then discard waits */
static bool discard_in_commit(const struct finding_ctx *c)
{
	return c->discard_mount && (c->dev.bio_discards || c->dev.ext4_discards);
}

/* fsync, fdatasync, sync, syncfs and sync_file_range calls of the traced
 * threads: commits they asked for */
static uint64_t traced_syncs(const struct finding_ctx *c)
{
	const struct probe_sc_stat *sc = c->s->sc;
	return sc[SYS_fsync].lat.count + sc[SYS_fdatasync].lat.count + sc[SYS_sync].lat.count +
	       sc[SYS_syncfs].lat.count + sc[SYS_sync_file_range].lat.count;
}

/* Other processes' syncs that reach the delete's filesystems: of files
 * there, and sync(2) (a sync on another disk forces no commit here). */
static unsigned long long others_syncs(const struct finding_ctx *c)
{
	return c->dev.other_syncs + c->m->other_global_syncs;
}

/* commits the traced threads did not ask for: they made no sync call, and
 * other processes made as many as half the commits (each sync of a file
 * with dirty metadata commits the running transaction, the deleter's
 * handles with it) */
static bool commits_forced(const struct finding_ctx *c)
{
	uint64_t syncs = traced_syncs(c);
	return syncs == 0 && c->dev.jbd2_commits >= 3 && 2 * others_syncs(c) >= c->dev.jbd2_commits;
}

/* A commit for (nearly) every entry removed, without a sync call of the
 * deleter's: synchronous directory updates (dirsync, sync, chattr +D). */
static bool commit_per_change(const struct finding_ctx *c)
{
	uint64_t syncs = traced_syncs(c);
	return syncs == 0 && c->entries >= 20 && 2 * c->dev.jbd2_commits >= c->entries &&
	       !commits_forced(c);
}

static void journal(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_dev_stat *d = &c->dev;
	double space = c->journal_space, commit = c->cause[TC_JOURNAL] - space;
	char b1[32], stats[256] = "";

	if (discard_in_commit(c))
		commit = 0;
	if (d->jbd2_commits)
		snprintf(stats, sizeof stats,
			 "; the delete's journal committed %llu transactions (average %.1f ms "
			 "locked, %.1f ms flushing, %.1f ms logging, %llu handles)",
			 d->jbd2_commits, trace_jiffies_ms(d->jbd2_locked, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_flushing, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_logging, d->jbd2_commits), d->jbd2_handles);
	if (commits_forced(c) && space + commit > 0) {
		/* the other process's commits fill the journal too: its
		 * checkpoints are theirs */
		k->id = "journal_forced_by_other";
		add(k, sh(c, space + commit),
		    "Journal commits forced by another process: the threads waited %s for commits "
		    "they did not ask for and for the journal space those commits used up (they "
		    "made no sync call; other processes made %llu while the journal committed %llu "
		    "times in %.1f s%s): another process's fsync commits the shared journal, and "
		    "the deleter's handles wait for it. Find the process that syncs; nothing in "
		    "the deleter changes this.",
		    trace_fmt_ns(space + commit, b1, sizeof b1), others_syncs(c), d->jbd2_commits,
		    (double)c->r->wall_ns / 1e9, stats);
		return;
	}
	if (space > 0) {
		k->id = "journal_space";
		add(k, sh(c, space),
		    "Journal space: the threads waited %s for the journal to checkpoint and free "
		    "space%s. A bigger journal (tune2fs -J size=, mkfs.ext4 -J size=) makes "
		    "checkpoints rarer; unlinking in inode order dirties fewer blocks per "
		    "transaction.",
		    trace_fmt_ns(space, b1, sizeof b1), stats);
	}
	if (commit <= 0)
		return;
	k->id = "journal_commit_waits";
	if (commit_per_change(c)) {
		add(k, sh(c, commit),
		    "Journal commits: the threads waited %s for a journal commit after every "
		    "directory change (%llu waits, %llu commits for %llu entries removed, no sync "
		    "call of theirs)%s: the filesystem is mounted %s, so each unlink and rmdir "
		    "waits for its own commit. Mount without dirsync (or remove the directory's "
		    "DIRSYNC attribute, chattr -D) for the delete.",
		    trace_fmt_ns(commit, b1, sizeof b1),
		    (unsigned long long)cause_waits(c, TC_JOURNAL), d->jbd2_commits,
		    (unsigned long long)c->entries, stats,
		    c->dirsync_mount ? "sync or dirsync" :
				       "or marked synchronous (dirsync, chattr +D)");
		return;
	}
	if (traced_syncs(c)) {
		add(k, sh(c, commit),
		    "Journal commits: the threads waited %s for journal commits (%llu waits)%s, "
		    "which their own %llu sync calls (fsync, fdatasync, syncfs, sync) forced. Sync "
		    "once at the end, or not at all: each sync commits the journal and waits.",
		    trace_fmt_ns(commit, b1, sizeof b1),
		    (unsigned long long)cause_waits(c, TC_JOURNAL), stats,
		    (unsigned long long)traced_syncs(c));
		return;
	}
	add(k, sh(c, commit),
	    "Journal commits: the threads waited %s for journal commits (%llu waits)%s. Fewer "
	    "dirtied blocks per unlink (inode order) makes commits shorter.",
	    trace_fmt_ns(commit, b1, sizeof b1), (unsigned long long)cause_waits(c, TC_JOURNAL),
	    stats);
}

static void writeback_throttle(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->wb_throttle <= 0)
		return;
	add(k, sh(c, c->wb_throttle),
	    "Writeback throttling: the threads were held %s by dirty-page or writeback "
	    "throttling (top site %s): the device cannot write back as fast as pages are "
	    "dirtied. Nothing in the deleter changes this; less dirty data beside it does.",
	    trace_fmt_ns(c->wb_throttle, b1, sizeof b1), top_site(c, TC_WRITEBACK, "throttle"));
}

static void discard(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_dev_stat *d = &c->dev;
	double ns = c->cause[TC_DISCARD], commit = 0;
	char b1[32];

	if (discard_in_commit(c))
		commit = c->cause[TC_JOURNAL] - c->journal_space;
	if (ns + commit <= 0)
		return;
	add(k, sh(c, ns + commit),
	    "Online discard: the threads waited %s on discards%s (%llu discard requests, "
	    "%.1f MiB, on the delete's devices)%s",
	    trace_fmt_ns(ns + commit, b1, sizeof b1),
	    commit > ns ? " issued by the journal commits they waited for" :
	    commit > 0	? " (some in the journal commits they waited for)" :
			  "",
	    d->bio_discards ? d->bio_discards : d->ext4_discards,
	    (double)d->bio_discard_bytes / 1048576.0,
	    c->discard_mount ? "; mount without discard and run fstrim periodically." : ".");
}

static void xfs_inodegc(const struct finding_ctx *c, struct finding_sink *k)
{
	double ns = c->cause[TC_XFS_INODEGC] + c->gc_runq;
	char b1[32], b2[32], b3[32];

	if (ns <= 0)
		return;
	add(k, sh(c, ns),
	    "XFS inode GC: the threads waited %s in destroy_inode for background inode "
	    "inactivation to catch up (%llu waits, %llu inode-GC throttles) and %s for a CPU "
	    "while the inodegc workers ran on it (%llu work items, %s in all): xfs frees the "
	    "unlinked files' inodes and data in a worker on the CPU that unlinked them, and "
	    "throttles unlinkers to its speed. Nothing in the deleter changes this.",
	    trace_fmt_ns(c->cause[TC_XFS_INODEGC], b1, sizeof b1),
	    (unsigned long long)cause_waits(c, TC_XFS_INODEGC), c->m->xfs_inodegc_throttles,
	    trace_fmt_ns(c->gc_runq, b2, sizeof b2), c->m->xfs_inodegc_works,
	    trace_fmt_ns((double)c->m->xfs_inodegc_worker_ns, b3, sizeof b3));
}

/* Synchronous xfs commits the delete's mount or the deleter asked for: a
 * wsync (or dirsync, sync) mount forces the log at every unlink and rmdir,
 * so each waits for a log write to the device. Returns the part claimed. */
static double xfs_sync_commits(const struct finding_ctx *c, struct finding_sink *k)
{
	uint64_t syncs = traced_syncs(c);
	char b1[32];

	if (c->xfs_sync_commit <= 0 || (!c->dirsync_mount && !syncs))
		return 0;
	k->id = "xfs_log_forces";
	if (c->dirsync_mount)
		add(k, sh(c, c->xfs_sync_commit),
		    "XFS log forces: the threads waited %s for the log to be written at each "
		    "transaction's commit (top site %s, %llu entries removed): the filesystem is "
		    "mounted wsync (or dirsync, sync), so every unlink and rmdir commits "
		    "synchronously. Remount without wsync for the delete (it serves NFS exports "
		    "that need synchronous namespace operations).",
		    trace_fmt_ns(c->xfs_sync_commit, b1, sizeof b1),
		    top_site(c, TC_XFS_LOG, "sync_commit"), (unsigned long long)c->entries);
	else
		add(k, sh(c, c->xfs_sync_commit),
		    "XFS log forces: the threads waited %s for the log to be written (top site "
		    "%s), which their own %llu sync calls (fsync, fdatasync, syncfs, sync) forced. "
		    "Sync once at the end, not per file.",
		    trace_fmt_ns(c->xfs_sync_commit, b1, sizeof b1),
		    top_site(c, TC_XFS_LOG, "sync_commit"), (unsigned long long)syncs);
	return c->xfs_sync_commit;
}

static void xfs_log(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	char b1[32], b2[32];
	double ns = c->cause[TC_XFS_LOG] + c->xfs_sync_commit - xfs_sync_commits(c, k);

	if (ns <= 0)
		return;
	k->id = "xfs_log_waits";
	add(k, sh(c, ns),
	    "XFS log space: the threads waited %s for log space or log forces (top site %s; "
	    "%llu log-grant waits, %s). A bigger log (mkfs.xfs -l size=) gives the unlinks "
	    "more room.",
	    trace_fmt_ns(ns, b1, sizeof b1), top_site(c, TC_XFS_LOG, NULL),
	    (unsigned long long)m->xfs_log_grant.count,
	    trace_fmt_ns((double)m->xfs_log_grant.total, b2, sizeof b2));
}

static void btrfs(const struct finding_ctx *c, struct finding_sink *k)
{
	static const struct {
		const char *id, *what;
	} kinds[NBTRFS] = {
		{ "btrfs_tree_locks", "on contended b-tree locks" },
		{ "btrfs_transaction_commit",
		  "for the running transaction to commit: btrfs makes operations wait while it "
		  "commits. Nothing in the deleter changes this" },
		{ "btrfs_delayed_work",
		  "flushing delayed inode and directory items: unlinks queue delayed items and are "
		  "throttled to the speed of their flushing. Nothing in the deleter changes this" },
		{ "btrfs_space",
		  "on metadata space reservation while btrfs flushes to find room. Nothing in the "
		  "deleter changes this" },
		{ "btrfs_waits", "elsewhere in btrfs" },
	};
	char b1[32];

	for (int i = 0; i < NBTRFS; i++) {
		if (c->btrfs[i] <= 0)
			continue;
		k->id = kinds[i].id;
		if (i == 0) {
			add(k, sh(c, c->btrfs[i]),
			    "Btrfs tree locks: the threads waited %s on contended b-tree locks (%llu "
			    "waits over 10 us)%s.",
			    trace_fmt_ns(c->btrfs[i], b1, sizeof b1),
			    (unsigned long long)c->m->btrfs_tree_lock.count,
			    c->r->max_threads > 1 ?
				    "; workers in one directory serialize on the same leaves: fewer "
				    "workers per directory" :
				    "; with one deleting thread the holders are btrfs's own workers: "
				    "nothing in the deleter changes this");
			continue;
		}
		if (i == 1 && traced_syncs(c)) {
			/* the commits they asked for */
			add(k, sh(c, c->btrfs[i]),
			    "Btrfs transaction commits: the threads waited %s for transaction "
			    "commits, which their own %llu sync calls (fsync, syncfs, sync) forced "
			    "(top site %s). Sync once at the end, or not at all: each sync commits "
			    "the running transaction and waits for it.",
			    trace_fmt_ns(c->btrfs[i], b1, sizeof b1),
			    (unsigned long long)traced_syncs(c),
			    top_site(c, TC_BTRFS, btrfs_kinds[i]));
			continue;
		}
		add(k, sh(c, c->btrfs[i]), "Btrfs: the threads waited %s %s (top site %s).",
		    trace_fmt_ns(c->btrfs[i], b1, sizeof b1), kinds[i].what,
		    top_site(c, TC_BTRFS, i < NBTRFS - 1 ? btrfs_kinds[i] : NULL));
	}
}

static void fuse_daemon(const struct finding_ctx *c, struct finding_sink *k)
{
	uint64_t n = cause_waits(c, TC_FUSE);
	double ns = c->cause[TC_FUSE];
	char b1[32], b2[32];

	if (ns <= 0)
		return;
	add(k, sh(c, ns),
	    "FUSE daemon latency: the threads waited %s for the FUSE daemon to answer %llu "
	    "requests (%s each on average, top site %s), with up to %u threads. The daemon's "
	    "answer time is the cause: more requests in flight help (more deleting threads), "
	    "or more daemon threads.",
	    trace_fmt_ns(ns, b1, sizeof b1), (unsigned long long)n,
	    trace_fmt_ns(n ? ns / (double)n : 0, b2, sizeof b2), top_site(c, TC_FUSE, NULL),
	    c->r->max_threads);
}

static void overlayfs(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *u = &c->s->sc[PROBE_NR_UNLINKAT].lat;
	char b1[32], b2[32];

	if (c->kcpu[TCPU_OVERLAY] <= 0)
		return;
	add(k, sh(c, c->kcpu[TCPU_OVERLAY]),
	    "Overlayfs copy-up and whiteouts: %s on CPU in overlayfs, which turns each unlink "
	    "of a lower-layer file into operations on the upper filesystem (a whiteout for "
	    "every name; unlinkat mean %s). Nothing in the deleter changes this; removing the "
	    "lower layer itself, where it is yours, does.",
	    trace_fmt_ns(c->kcpu[TCPU_OVERLAY], b1, sizeof b1),
	    trace_fmt_ns(hist_mean(u), b2, sizeof b2));
}

/* Evicting an empty inode is part of every unlink's cost; freeing is a
 * cause of its own only where it outweighs the unlinks (files with data). */
#define FREEING_OWN_SHARE 0.4

/* Freeing outweighs the rest of the filesystem's CPU work. */
static bool freeing_own(const struct finding_ctx *c)
{
	double fs = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER] + c->kcpu[TCPU_JOURNAL] +
		    c->kcpu[TCPU_FREEING];
	return c->kcpu[TCPU_FREEING] >= FREEING_OWN_SHARE * fs;
}

static void extent_freeing(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->kcpu[TCPU_FREEING] <= 0 || !freeing_own(c))
		return;
	add(k, sh(c, c->kcpu[TCPU_FREEING]),
	    "Freeing data: %s on CPU evicting inodes and freeing their extents, blocks and "
	    "page cache (%llu ext4 block frees). A fragmented file has many extents to free; "
	    "--free-rate paces the freeing of huge files, nothing makes it cheaper.",
	    trace_fmt_ns(c->kcpu[TCPU_FREEING], b1, sizeof b1),
	    (unsigned long long)c->m->ext4_free_calls);
}

static void page_faults(const struct finding_ctx *c, struct finding_sink *k)
{
	double ns = c->kcpu[TCPU_FAULT] + c->cause[TC_PAGE_FAULT];
	char b1[32];

	if (ns <= 0)
		return;
	const char *site = top_site(c, TC_PAGE_FAULT, NULL);
	add(k, sh(c, ns),
	    "Page faults: %s in page faults (on CPU and waiting for pages%s%s): the deleter "
	    "touches memory it has not mapped yet, or mapped pages were evicted.",
	    trace_fmt_ns(ns, b1, sizeof b1), *site ? ", top site " : "", site);
}

static void kernel_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_snapshot *s = c->s;
	/* journaling on CPU is every metadata change's cost: the filesystem's own */
	double ns = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER] + c->kcpu[TCPU_JOURNAL];
	if (!freeing_own(c))
		ns += c->kcpu[TCPU_FREEING]; /* the inodes' eviction, with their unlinks */
	char b1[32], b2[32], b3[32], b4[32];
	int top = -1;

	if (ns <= 0)
		return;
	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		if (!trace_is_wait_syscall(nr) && s->sc[nr].lat.count &&
		    (top < 0 || s->sc[nr].lat.total > s->sc[top].lat.total))
			top = nr;
	char journaling[64] = "";
	if (c->kcpu[TCPU_JOURNAL] >= 0.05 * ns)
		snprintf(journaling, sizeof journaling, "; journaling %.0f%% of it",
			 100 * c->kcpu[TCPU_JOURNAL] / ns);
	if (top < 0) {
		add(k, sh(c, ns),
		    "Running in the kernel: %s of CPU work in the kernel, the filesystem's own "
		    "cost%s%s%s.",
		    trace_fmt_ns(ns, b1, sizeof b1), *journaling ? " (" : "",
		    *journaling ? journaling + 2 : "", *journaling ? ")" : "");
		return;
	}
	const struct probe_hist *lat = &s->sc[top].lat;
	add(k, sh(c, ns),
	    "Running in the kernel: %s of CPU work in the kernel, the filesystem's own cost "
	    "of the unlinks, lookups and directory reads (%s: %llu calls, mean %s, p99 %s%s).",
	    trace_fmt_ns(ns, b1, sizeof b1), trace_syscall_name(top, b4, sizeof b4),
	    (unsigned long long)lat->count, trace_fmt_ns(hist_mean(lat), b2, sizeof b2),
	    trace_fmt_ns(hist_quantile(lat, 0.99), b3, sizeof b3), journaling);
}

static void user_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->user <= 0)
		return;
	add(k, sh(c, c->user),
	    "User-space CPU: the deleter ran its own code in user space for %s%s. A compiled "
	    "deleter that "
	    "does no per-entry work (rm, adaptrm) needs a fraction of this.",
	    trace_fmt_ns(c->user, b1, sizeof b1), c->entries ? " between its system calls" : "");
}

/* the remaining wait causes: nothing in the deleter changes any of them */
static void plain_causes(const struct finding_ctx *c, struct finding_sink *k)
{
	static const struct {
		int cause;
		const char *id, *what;
	} t[] = {
		{ TC_WRITEBACK, "writeback_waits",
		  "Writeback: the threads waited %s for pages or inodes under writeback (%llu "
		  "waits, top site %s)." },
		{ TC_PEER, "peer_waits",
		  "Waiting for another process: the threads waited %s reading or writing pipes "
		  "and sockets (%llu waits, top site %s): the other end of a pipeline, not the "
		  "filesystem." },
		{ TC_OTHER, "other_waits",
		  "Other waits: the threads waited %s at sites the table does not know (%llu "
		  "waits, top site %s)." },
	};
	char b1[32];

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		if (c->cause[t[i].cause] <= 0)
			continue;
		k->id = t[i].id;
		const char *top = top_site(c, TC_OTHER, NULL);
		if (t[i].cause == TC_OTHER && !strncmp(top, "(no stack", 9)) {
			/* the site names why the kernel kept no stack, if it said */
			char why[80] = "";
			if (strcmp(top, "(no stack)"))
				snprintf(why, sizeof why, ", %s", top);
			add(k, sh(c, c->cause[TC_OTHER]),
			    "Blocked where no stack was recorded: the threads waited %s (%llu "
			    "waits%s); without --no-callers the report names the wait sites and "
			    "their causes.",
			    trace_fmt_ns(c->cause[TC_OTHER], b1, sizeof b1),
			    (unsigned long long)cause_waits(c, TC_OTHER), why);
			continue;
		}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		add(k, sh(c, c->cause[t[i].cause]), t[i].what,
		    trace_fmt_ns(c->cause[t[i].cause], b1, sizeof b1),
		    (unsigned long long)cause_waits(c, t[i].cause), top_site(c, t[i].cause, NULL));
#pragma GCC diagnostic pop
	}
	if (c->lost > 0) {
		k->id = "unattributed_waits";
		add(k, sh(c, c->lost),
		    "Unattributed waits: %s of waits whose site the probes could not keep (the "
		    "wait-site table was full).",
		    trace_fmt_ns(c->lost, b1, sizeof b1));
	}
}

/* not a cause: the time the threads chose to wait (a parent for its
 * child, idle workers, timers); ranked last */
/* A ptrace tracer (strace -f, gdb, ltrace) stops the thread at every
 * system call's entry and exit until it has handled the stop: the delete
 * then runs at the tracer's pace, outside any filesystem. */
static void ptrace_stops(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], b2[32];

	if (c->stopped <= 0 && c->tracer_cpu <= 0)
		return;
	add(k, sh(c, c->stopped + c->tracer_cpu),
	    "Stopped by a tracer: the threads were stopped for %s in %llu stops, for a ptrace "
	    "tracer (strace, gdb, ltrace stop a thread at every system call's entry and exit "
	    "until they let it go on); the tracer ran %s on CPU. Run the delete "
	    "without the tracer, or measure it with a tracer that does not stop it (perf trace, "
	    "adaptrm --trace).",
	    trace_fmt_ns(c->stopped, b1, sizeof b1),
	    (unsigned long long)c->m->state_count[PROBE_XSTATE_TRACER_STOP],
	    trace_fmt_ns(c->tracer_cpu, b2, sizeof b2));
}

/* Every kernel subsystem's part the catalogue left: its waits, its CPU
 * and the waits to run behind its helpers (trace/subsys.c words it). */
static void subsystems(const struct finding_ctx *c, struct finding_sink *k)
{
	char text[sizeof k->out->text];

	for (int ss = 0; ss < SS_COUNT; ss++) {
		double ns = c->sub_wait[ss] + c->sub_cpu[ss] + c->sub_runq[ss];
		if (ns <= 0)
			continue;
		k->id = trace_subsys_finding_id(ss);
		trace_subsys_text(c->r, ss, c->sub_wait[ss], c->sub_cpu[ss], c->sub_runq[ss], text,
				  sizeof text);
		add(k, sh(c, ns), "%s", text);
	}
}

/* The states that are causes of their own: a stop by a signal, a
 * freeze, any other state; and what no state holds. */
static void states(const struct finding_ctx *c, struct finding_sink *k)
{
	char text[sizeof k->out->text];
	const struct {
		const char *id;
		double ns;
		void (*fn)(const struct trace_result *, double, char *, size_t);
	} t[] = {
		{ "signal_stop", c->sigstop, trace_signal_stop_text },
		{ "frozen", c->frozen, trace_frozen_text },
		{ "other_states", c->other_state, trace_other_state_text },
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		if (t[i].ns <= 0)
			continue;
		k->id = t[i].id;
		t[i].fn(c->r, t[i].ns, text, sizeof text);
		add(k, sh(c, t[i].ns), "%s", text);
	}
	if (c->pretrace > 0) {
		k->id = "before_trace";
		trace_pretrace_text(c->r, c->pretrace, text, sizeof text);
		add(k, sh(c, c->pretrace), "%s", text);
		k->out[k->n - 1].cause = false;
	}
	if (c->unaccounted > 0) {
		k->id = "not_accounted";
		trace_not_accounted_text(c->r, c->unaccounted, c->life, text, sizeof text);
		add(k, sh(c, c->unaccounted), "%s", text);
	}
}

static void idle_waits(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->idle <= 0)
		return;
	add(k, sh(c, c->idle),
	    "Idle, not a cause: %s waiting for children, other threads, events or timers "
	    "(wait4, futex, poll, sleeps): a parent waiting for its deleting child, idle "
	    "workers.",
	    trace_fmt_ns(c->idle, b1, sizeof b1));
	k->out[k->n - 1].cause = false;
}

/* ---- the explaining rules ---- */

/* ext4 unlink order: far jumps between consecutive inodes dirty a new
 * inode-table block and bitmap per unlink; they explain the journal waits,
 * or the inode-table reads of a cold delete */
static void scattered_inodes(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *jh = &c->m->ext4_ino_jump;
	double near = trace_ino_near_share(jh);
	double journal = c->cause[TC_JOURNAL] - c->journal_space;

	if (jh->count < 1000 || near >= 0.5)
		return;
	if (c->reads[0] > journal && c->reads[0] > c->journal_space) {
		k->explains = "inode_table_reads";
		journal = c->reads[0];
	} else if (commits_forced(c) && journal + c->journal_space > 0) {
		k->explains = "journal_forced_by_other";
		journal += c->journal_space;
	} else if (c->journal_space > journal) {
		/* more blocks dirtied per transaction fill the journal sooner */
		k->explains = "journal_space";
		journal = c->journal_space;
	} else if (journal > 0) {
		k->explains = "journal_commit_waits";
	} else {
		/* warm and unhurried: more blocks touched per unlink, on CPU */
		k->explains = "kernel_cpu";
		journal = 0;
	}
	add(k, sh(c, journal),
	    "Unlinks in scattered inode order: only %.0f%% of %llu consecutive ext4 unlinks stay "
	    "within %d inodes of the previous one (p50 jump %.0f inodes), so nearly every "
	    "unlink reads or dirties another inode-table block and bitmap; unlinking a big "
	    "directory in inode order (GNU rm sorts past 10,000 entries) touches each block "
	    "once.",
	    100.0 * near, (unsigned long long)jh->count, TRACE_INO_NEAR, hist_quantile(jh, 0.5));
}

/* more than two non-empty reads per directory, each well under a 64 KiB
 * buffer (an empty read is a directory's end) */
static void small_getdents(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *gb = &c->m->getdents_bytes;
	uint64_t eofs = gb->b[0], full = gb->count - gb->b[0];
	double per_call = full ? (double)gb->total / (double)full : 0;
	double ns = (double)c->s->sc[PROBE_NR_GETDENTS64].lat.total;
	double parent = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER];
	char b1[32];

	if (full < 50 || eofs == 0 || (double)full / (double)eofs <= 2 || per_call >= 16384)
		return;
	k->explains = "kernel_cpu";
	add(k, sh(c, ns < parent ? ns : parent),
	    "Small getdents64 batches: %llu reads returned %.1f KiB each on average (%.1f reads "
	    "per directory, %s in getdents64); a 64 KiB or larger buffer needs several times "
	    "fewer calls.",
	    (unsigned long long)full, per_call / 1024, (double)full / (double)eofs,
	    trace_fmt_ns(ns, b1, sizeof b1));
}

static void allocator_churn(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_sc_stat *sc = c->s->sc;
	uint64_t alloc = sc[SYS_brk].lat.count + sc[SYS_mmap].lat.count + sc[SYS_munmap].lat.count;
	double ns =
		(double)(sc[SYS_brk].lat.total + sc[SYS_mmap].lat.total + sc[SYS_munmap].lat.total);
	double parent = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER];
	char b1[32];

	if (c->entries < 100 || alloc < 100 || (double)alloc / (double)c->entries < 0.05)
		return;
	k->explains = "kernel_cpu";
	add(k, sh(c, ns < parent ? ns : parent),
	    "Allocator churn: %.3f brk/mmap/munmap calls per entry removed (%llu calls, %s): the "
	    "deleter allocates and frees memory per entry; reusing buffers removes these calls.",
	    (double)alloc / (double)c->entries, (unsigned long long)alloc,
	    trace_fmt_ns(ns, b1, sizeof b1));
}

/* The catalogue. In this order: equal shares keep it in the ranking. */
static const struct finding_rule {
	const char *id;
	void (*fn)(const struct finding_ctx *, struct finding_sink *);
	bool explains; /* an explaining rule (after the partition's) */
} finding_rules[] = {
	{ "cpu_quota", cpu_quota, false },
	{ "cpu_oversubscription", cpu_oversubscription, false },
	{ "cpu_contention", cpu_contention, false },
	{ "fs_worker_cpu", fs_worker_cpu, false },
	{ "memcg_reclaim", memcg_reclaim, false },
	{ "memory_reclaim", memory_reclaim, false },
	{ "directory_lock_contention", directory_lock, false },
	{ "lock_contention", other_locks, false },
	{ "device_throttled", device_reads, false },
	{ "metadata_reads", metadata_reads, false },
	{ "journal_commit_waits", journal, false },
	{ "writeback_throttle", writeback_throttle, false },
	{ "discard_io", discard, false },
	{ "xfs_inodegc", xfs_inodegc, false },
	{ "xfs_log_waits", xfs_log, false },
	{ "btrfs_waits", btrfs, false },
	{ "fuse_daemon", fuse_daemon, false },
	{ "overlayfs_copy_up", overlayfs, false },
	{ "extent_freeing", extent_freeing, false },
	{ "page_faults", page_faults, false },
	{ "ptrace_stops", ptrace_stops, false },
	{ "kernel_cpu", kernel_cpu, false },
	{ "user_cpu", user_cpu, false },
	{ "other_waits", plain_causes, false },
	{ "subsystems", subsystems, false },
	{ "states", states, false },
	{ "idle_waits", idle_waits, false },
	{ "scattered_inode_order", scattered_inodes, true },
	{ "small_getdents_batches", small_getdents, true },
	{ "allocator_churn", allocator_churn, true },
};

/* causes by share, largest first; what is not a cause last */
static int cmp_share(const void *a, const void *b)
{
	const struct trace_finding *x = a, *y = b;
	if (x->cause != y->cause)
		return x->cause ? -1 : 1;
	return x->share < y->share ? 1 : x->share > y->share ? -1 : 0;
}

double trace_findings_total(const struct trace_finding *f, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		if (!f[i].explains)
			t += f[i].share;
	return t;
}

/* Other load on the CPUs is context, not the delete's cause: it ranks
 * first only when it is most of the time and no cause of the delete's own
 * (its CPU aside, which any delete spends) holds half of the rest;
 * otherwise it goes after every other cause. */
#define CONTEXT_FIRST_SHARE 0.5
static bool baseline(const struct trace_finding *f)
{
	return !strcmp(f->id, "kernel_cpu") || !strcmp(f->id, "user_cpu") ||
	       !strcmp(f->id, "minor_parts");
}

static void demote_context(struct trace_finding *f, int n)
{
	int i = 0;

	while (i < n &&
	       (strcmp(f[i].id, "cpu_contention") || !strstr(f[i].text, "while other tasks held")))
		i++;
	if (i >= n)
		return;
	bool explained = false;
	for (int j = 0; j < n; j++)
		if (j != i && f[j].cause && !baseline(&f[j]) && f[j].share >= 0.5 * (1 - f[i].share))
			explained = true;
	if (f[i].share > CONTEXT_FIRST_SHARE && !explained)
		return;
	struct trace_finding ctx = f[i];
	for (; i + 1 < n && f[i + 1].cause; i++)
		f[i] = f[i + 1];
	f[i] = ctx;
}

/* Ranked by what removing the cause would save: the deleter's own kernel
 * CPU (the unlinks' work, which any delete spends) saves nothing, so a
 * removable cause of at least this share of the whole ranks before it. */
#define REMOVABLE_FIRST_SHARE 0.1
static void demote_baseline(struct trace_finding *f, int n)
{
	int b = 0;

	while (b < n && strcmp(f[b].id, "kernel_cpu"))
		b++;
	if (b >= n)
		return;
	int last = b;
	for (int j = b + 1; j < n && f[j].cause; j++)
		if (!baseline(&f[j]) && strcmp(f[j].id, "cpu_contention") &&
		    f[j].share >= REMOVABLE_FIRST_SHARE)
			last = j;
	if (last == b)
		return;
	struct trace_finding k = f[b];
	memmove(&f[b], &f[b + 1], (size_t)(last - b) * sizeof *f);
	f[last] = k;
}

/* Parts under this share of the time that is not idle are merged into one
 * "minor_parts" finding. */
#define MINOR_SHARE 0.01
#define MINOR_LOCK_SHARE 0.05

/* The catalogue's findings on the partition C, ranked and merged: at most
 * MAX (findings.h's trace_findings). */
static int rank_findings(const struct finding_ctx *c, struct trace_finding *out, int max)
{
	struct trace_finding top[3 * TRACE_MAX_FINDINGS + PROBE_LOCK_TYPES], sub[8];
	struct finding_sink kt = { .out = top, .max = (int)(sizeof top / sizeof *top) };
	struct finding_sink ks = { .out = sub, .max = (int)(sizeof sub / sizeof *sub) };

	if (max <= 0 || c->base <= 1)
		return 0;
	for (size_t i = 0; i < sizeof finding_rules / sizeof *finding_rules; i++) {
		struct finding_sink *k = finding_rules[i].explains ? &ks : &kt;
		k->id = finding_rules[i].id;
		k->explains = NULL;
		finding_rules[i].fn(c, k);
	}
	qsort(top, kt.n, sizeof *top, cmp_share);
	/* the parts under 1% of the time that is not idle (a pool of idle
	 * workers must not hide a cause): one finding, named by the largest */
	double busy = 1 - sh(c, c->idle);
	int n = 0, minor = 0;
	double mshare = 0;
	char names[400] = "";
	for (int i = 0; i < kt.n; i++) {
		/* lock types and btrfs tree locks under 5%: contention with kernel
		 * workers that any delete meets (btrfs delayed nodes and tree
		 * locks), not a cause */
		double floor = !strcmp(top[i].id, "lock_contention") ||
					       !strcmp(top[i].id, "btrfs_tree_locks") ?
				       MINOR_LOCK_SHARE :
				       MINOR_SHARE;
		if (top[i].share >= floor * busy || kt.n == 1 || !top[i].cause) {
			top[n++] = top[i];
			continue;
		}
		if (top[i].share <= 0)
			continue;
		size_t l = strlen(names);
		if (minor < 4 && l + 40 < sizeof names)
			snprintf(names + l, sizeof names - l, "%s%s %.1f%%", minor ? ", " : "",
				 top[i].id, 100 * top[i].share);
		mshare += top[i].share;
		minor++;
	}
	if (minor) {
		/* ranked by its share among the causes, before what is not a
		 * cause: the merged parts can outweigh a cause of their own */
		int at = n;
		while (at > 0 && (!top[at - 1].cause || top[at - 1].share < mshare))
			at--;
		memmove(&top[at + 1], &top[at], (size_t)(n - at) * sizeof *top);
		struct trace_finding *f = &top[at];
		n++;
		f->id = "minor_parts";
		f->explains = NULL;
		f->share = mshare;
		f->cause = true;
		snprintf(f->text, sizeof f->text,
			 "Smaller parts: %d under 1%% each, lock types under 5%% (%s%s).", minor,
			 names, minor > 4 ? ", ..." : "");
	}
	demote_baseline(top, n);
	demote_context(top, n);
	/* each top-level finding, then what explains it (never more than it);
	 * cut at MAX */
	int m = 0;
	for (int i = 0; i < n && m < max; i++) {
		out[m++] = top[i];
		for (int j = 0; j < ks.n && m < max; j++)
			if (!strcmp(sub[j].explains, top[i].id)) {
				out[m] = sub[j];
				if (out[m].share > top[i].share)
					out[m].share = top[i].share;
				m++;
			}
	}
	return m;
}

int trace_findings(const struct trace_result *r, struct trace_finding *out, int max)
{
	struct finding_ctx c;

	if (!r->total || max <= 0)
		return 0;
	ctx_init(&c, r);
	return rank_findings(&c, out, max);
}

void trace_verdict_compute(const struct trace_result *r, struct trace_verdict *v)
{
	struct finding_ctx c;

	memset(v, 0, sizeof *v);
	if (!r->total)
		return;
	ctx_init(&c, r);
	v->whole_ns = c.base > 1 ? c.base : 0;
	v->helper_ns = c.helpers;
	v->unaccounted_ns = c.unaccounted;
	v->n = rank_findings(&c, v->findings, TRACE_MAX_FINDINGS);
	v->total_share = trace_findings_total(v->findings, v->n);
}
