// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict's partition (findings_int.h), and the sink its rules
 * add their findings to: finding_ctx_init() splits the traced threads'
 * whole time (thread seconds while each lives) into parts: on CPU in user
 * space, in the kernel inside and outside system calls (split by what the
 * sampled kernel stacks were doing), runnable (throttled by a CPU quota,
 * behind the traced threads' own excess, behind other tasks), blocked and
 * sleeping by class of wait site, and idle (waiting for children, events or
 * timers). The catalogue's rows (findings.c) claim these parts. */
#include "probes/hist.h"
#include "trace/findings_int.h"
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

const char *const finding_lock_names[NLOCKS] = { "rwsem:W",  "rwsem:R",	 "mutex", "semaphore",
						 "pcpu-sem", "rt-mutex", "other" };
const char *const finding_read_kinds[NREADS] = { "inode_table", "directory_block", "bitmap",
						 "extent_tree", "btree",	   NULL };
const char *const finding_btrfs_kinds[NBTRFS] = { "tree_lock", "transaction", "delayed_items",
						  "space", NULL };

/* The rules' sink lives with the partition they read, not in the engine:
 * the engine (findings.c) calls the rules, so a sink there would put the
 * files in a loop. */
struct trace_finding *finding_add(struct finding_sink *k, double share, const char *fmt, ...)
{
	const struct finding_rule *row = k->rule;
	va_list ap;

	if (k->n >= k->max)
		return NULL;
	struct trace_finding *f = &k->out[k->n++];
	f->id = k->id;
	f->explains = k->explains;
	f->share = share;
	f->cause = !(row->flags & FR_NOT_CAUSE);
	f->title = row->title ? row->title : "";
	f->remedy = row->remedy ? row->remedy : "";
	f->confirm = row->confirm ? row->confirm : "";
	va_start(ap, fmt);
	vsnprintf(f->evidence, sizeof f->evidence, fmt, ap);
	va_end(ap);
	return f;
}

static void add_dev(struct probe_dev_stat *d, const struct probe_dev_stat *x)
{
	unsigned long long *a = (void *)d;
	const unsigned long long *b = (const void *)x;
	for (size_t w = 0; w < sizeof *d / 8; w++)
		a[w] += b[w];
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
			c->lock[index_of(finding_lock_names, NLOCKS, w->lock)] += ns;
			break;
		case TC_META_READ:
			c->reads[index_of(finding_read_kinds, NREADS, w->detail)] += ns;
			c->read_waits += w->count;
			c->read_wait_ns += ns;
			break;
		case TC_BTRFS:
			c->btrfs[index_of(finding_btrfs_kinds, NBTRFS, w->detail)] += ns;
			break;
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
	/* A wrapper (sh -c, a script) waiting for its deleting child, or any
	 * traced process waiting for another while another process unlinks,
	 * is the other's time, which its own threads hold. */
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

void finding_ctx_init(struct finding_ctx *c, const struct trace_result *r)
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

const char *finding_top_site(const struct finding_ctx *c, int cause, const char *kind)
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

uint64_t finding_cause_waits(const struct finding_ctx *c, int cause)
{
	uint64_t n = 0;
	for (int i = 0; i < c->r->nsites; i++)
		if (c->r->sites[i].cause == cause && !claimed_apart(&c->r->sites[i]))
			n += c->r->sites[i].count;
	return n;
}

double finding_reads_sum(const struct finding_ctx *c)
{
	double t = c->buf_reads;
	for (int i = 0; i < NREADS; i++)
		t += c->reads[i];
	return t;
}
