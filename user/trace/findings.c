/* The --trace verdict (findings.h): ctx_init() partitions the busy syscall
 * time into parts (running, each lock type, each wait cause, run queue,
 * preempted) that sum to it; each rule of finding_rules[] claims parts and
 * words a finding with its evidence and, where something can be done, what;
 * the explaining rules (inode order, getdents batches, allocator) add
 * findings that explain a part another rule claimed. trace_findings() runs
 * the table, merges the parts under 1% into one, and ranks. */
#include "trace/findings.h"
#include "probes/hist.h"
#include "trace/report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct finding_ctx {
	const struct trace_result *r;
	const struct probe_snapshot *s;
	const struct probe_misc *m;
	double base;	  /* busy syscall time (ns, at least 1): every share's base */
	uint64_t entries; /* files and directories removed */
	/* the partition of base (ns; scaled down together if the measured
	 * waits exceed the busy time) */
	double dir_lock, lock[PROBE_LOCK_TYPES], btrfs_lock, cause[TC_COUNT], runq, preempt, running;
	double journal_space; /* the part of cause[TC_JOURNAL] waiting for journal space */
	/* events of the traced devices */
	struct probe_dev_stat dev;
	bool discard_mount;	 /* a traced filesystem is mounted with discard */
	uint64_t other_discards; /* discards on devices that are not the delete's */
	long cpus;
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
	va_start(ap, fmt);
	vsnprintf(k->out[k->n].text, sizeof k->out[k->n].text, fmt, ap);
	va_end(ap);
	k->n++;
}

/* Share of the unlinked-inode jumps below TRACE_INO_NEAR (64: a few 4 KiB
 * inode-table blocks of 256-byte inodes), from the log2 histogram: the
 * buckets below TRACE_INO_NEAR's own (a power of two starts a bucket). */
double trace_ino_near_share(const struct probe_hist *h)
{
	uint64_t near = 0;
	for (int b = 0; b < PROBE_HIST_BUCKETS && b < hist_bucket(TRACE_INO_NEAR); b++)
		near += h->b[b];
	return h->count ? (double)near / (double)h->count : 1;
}

static void add_dev(struct probe_dev_stat *d, const struct probe_dev_stat *x)
{
	unsigned long long *a = (void *)d;
	const unsigned long long *b = (const void *)x;
	for (size_t w = 0; w < sizeof *d / 8; w++)
		a[w] += b[w];
}

/* Lock waits: by type, less the parts whose callers are directory
 * operations or btrfs tree locks (in each type, the callers' proportion;
 * without callers, every rwsem write wait is taken as the directory's). */
static void split_locks(struct finding_ctx *c)
{
	const struct trace_result *r = c->r;
	double seen[PROBE_LOCK_TYPES] = { 0 }, dir[PROBE_LOCK_TYPES] = { 0 },
	       bt[PROBE_LOCK_TYPES] = { 0 };

	for (int i = 0; i < r->ncallers; i++) {
		unsigned t = r->callers[i].flags & (PROBE_LOCK_TYPES - 1);
		double ns = (double)r->callers[i].total_ns;
		int cause = trace_caller_cause(r->caller_names[i], t);
		seen[t] += ns;
		if (cause == TC_DIR_LOCK)
			dir[t] += ns;
		else if (cause == TC_BTRFS)
			bt[t] += ns;
	}
	for (int t = 0; t < PROBE_LOCK_TYPES; t++) {
		double w = (double)c->s->lock[t].wait.total;
		double fd = seen[t] > 0 ? dir[t] / seen[t] : t == PROBE_LCB_F_WRITE && !r->ncallers;
		double fb = seen[t] > 0 ? bt[t] / seen[t] : 0;
		c->dir_lock += w * fd;
		c->btrfs_lock += w * fb;
		c->lock[t] = w * (1 - fd - fb);
		if (c->lock[t] < 0)
			c->lock[t] = 0;
	}
}

static void ctx_init(struct finding_ctx *c, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	const struct probe_misc *m = &s->misc;

	memset(c, 0, sizeof *c);
	c->r = r;
	c->s = s;
	c->m = m;
	c->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->base = (double)trace_busy_ns(s);
	if (c->base <= 0)
		c->base = 1;
	uint64_t files = s->sc[PROBE_NR_UNLINKAT].lat.count - m->unlinkat_dir.count +
			 s->sc[SYS_unlink].lat.count;
	uint64_t dirs = m->unlinkat_dir.count + s->sc[SYS_rmdir].lat.count;
	c->entries = files + dirs;

	split_locks(c);
	for (int k = 0; k < TC_COUNT; k++)
		c->cause[k] = (double)r->wait_ns[k];
	/* lock waits seen only as wait sites (no contention events) */
	c->dir_lock += c->cause[TC_DIR_LOCK];
	c->cause[TC_DIR_LOCK] = 0;
	double jsum = 0, jspace = 0;
	for (int i = 0; i < r->nsites; i++)
		if (r->sites[i].cause == TC_JOURNAL) {
			jsum += (double)r->sites[i].blocked_ns;
			if (strstr(r->sites[i].site, "(space)"))
				jspace += (double)r->sites[i].blocked_ns;
		}
	c->runq = (double)m->busy_runq_ns;
	c->preempt = (double)m->busy_preempt_ns;

	double sum = c->dir_lock + c->btrfs_lock + c->runq + c->preempt;
	for (int t = 0; t < PROBE_LOCK_TYPES; t++)
		sum += c->lock[t];
	for (int k = 0; k < TC_COUNT; k++)
		sum += c->cause[k];
	if (sum > c->base) { /* overlapping measurements: scale the waits down */
		double f = c->base / sum;
		c->dir_lock *= f;
		c->btrfs_lock *= f;
		c->runq *= f;
		c->preempt *= f;
		for (int t = 0; t < PROBE_LOCK_TYPES; t++)
			c->lock[t] *= f;
		for (int k = 0; k < TC_COUNT; k++)
			c->cause[k] *= f;
		sum = c->base;
	}
	c->running = c->base - sum;
	c->journal_space = jsum > 0 ? c->cause[TC_JOURNAL] * jspace / jsum : 0;

	for (int i = 0; i < r->ndevs; i++) {
		const struct probe_dev_stat *d = probe_dev_find(s, r->devs[i].dev);
		if (!d)
			continue;
		if (r->devs[i].traced) {
			add_dev(&c->dev, d);
			c->discard_mount |= r->devs[i].discard;
		} else {
			c->other_discards += d->bio_discards ? d->bio_discards : d->ext4_discards;
		}
	}
}

static double sh(const struct finding_ctx *c, double ns)
{
	return ns / c->base;
}

/* the top wait site of CAUSE, or "" */
static const char *top_site(const struct finding_ctx *c, int cause)
{
	for (int i = 0; i < c->r->nsites; i++)
		if (c->r->sites[i].cause == cause)
			return c->r->sites[i].site;
	return "";
}

static uint64_t cause_waits(const struct finding_ctx *c, int cause)
{
	uint64_t n = 0;
	for (int i = 0; i < c->r->nsites; i++)
		if (c->r->sites[i].cause == cause)
			n += c->r->sites[i].count;
	return n;
}

/* ---- the partition's rules ---- */

static void kernel_cpu(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_snapshot *s = c->s;
	char b1[32], b2[32], b3[32], b4[32];
	int top = -1;

	if (c->running <= 0)
		return;
	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		if (!trace_is_wait_syscall(nr) && s->sc[nr].lat.count &&
		    (top < 0 || s->sc[nr].lat.total > s->sc[top].lat.total))
			top = nr;
	if (top < 0) {
		add(k, sh(c, c->running),
		    "Running in the kernel: %s of the syscall time is "
		    "CPU work in the kernel, the filesystem's own cost.",
		    trace_fmt_ns(c->running, b1, sizeof b1));
		return;
	}
	const struct probe_hist *lat = &s->sc[top].lat;
	add(k, sh(c, c->running),
	    "Running in the kernel: %s of the syscall time is CPU work in the kernel, "
	    "the filesystem's own cost (%s: %llu calls, mean %s, p99 %s).",
	    trace_fmt_ns(c->running, b1, sizeof b1), trace_syscall_name(top, b4, sizeof b4),
	    (unsigned long long)lat->count, trace_fmt_ns(hist_mean(lat), b2, sizeof b2),
	    trace_fmt_ns(trace_quantile(lat, 0.99), b3, sizeof b3));
}

/* the parent directory's i_rwsem, taken for write by every unlink */
static void directory_lock(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *w = &c->s->lock[PROBE_LCB_F_WRITE].wait;
	char b1[32], b2[32];

	if (c->dir_lock <= 0)
		return;
	add(k, sh(c, c->dir_lock),
	    "Directory-lock contention: the threads waited %s for the parent directory's "
	    "i_rwsem, which every unlink takes for write (%llu rwsem write waits, p99 %s), "
	    "with up to %u threads; fewer workers unlinking in one directory (one "
	    "directory per worker) removes this wait.",
	    trace_fmt_ns(c->dir_lock, b1, sizeof b1), (unsigned long long)w->count,
	    trace_fmt_ns(trace_quantile(w, 0.99), b2, sizeof b2), c->r->max_threads);
}

/* every other lock type: one finding each, named by its top caller */
static void other_locks(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], b2[32];

	for (int t = 0; t < PROBE_LOCK_TYPES; t++) {
		const struct probe_hist *h = &c->s->lock[t].wait;
		const char *caller = NULL;
		if (c->lock[t] <= 0)
			continue;
		for (int i = 0; i < c->r->ncallers && !caller; i++)
			if ((int)c->r->callers[i].flags == t &&
			    trace_caller_cause(c->r->caller_names[i], t) == TC_LOCK)
				caller = c->r->caller_names[i];
		add(k, sh(c, c->lock[t]),
		    "Lock contention on %s: %llu waits, %s in total (p99 %s)%s%s.",
		    probe_lock_type_name(t), (unsigned long long)h->count,
		    trace_fmt_ns(c->lock[t], b1, sizeof b1),
		    trace_fmt_ns(trace_quantile(h, 0.99), b2, sizeof b2),
		    caller ? ", mostly from " : "", caller ? caller : "");
	}
	if (c->cause[TC_LOCK] > 0)
		add(k, sh(c, c->cause[TC_LOCK]),
		    "Lock waits seen at wait sites: %s blocked in sleeping locks (top site %s).",
		    trace_fmt_ns(c->cause[TC_LOCK], b1, sizeof b1), top_site(c, TC_LOCK));
}

static void metadata_reads(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *bl = &c->dev.bio_lat;
	char b1[32], b2[32];

	if (c->cause[TC_META_READ] <= 0)
		return;
	add(k, sh(c, c->cause[TC_META_READ]),
	    "Metadata reads: the threads waited %s for inode-table and directory blocks "
	    "read from the device (%llu waits, top site %s; %llu block requests on the "
	    "delete's devices, p50 %s): a cold cache. Unlinking in inode order reads each "
	    "inode-table block once (GNU rm sorts big directories); past that only a "
	    "faster device or a warm cache helps.",
	    trace_fmt_ns(c->cause[TC_META_READ], b1, sizeof b1),
	    (unsigned long long)cause_waits(c, TC_META_READ), top_site(c, TC_META_READ),
	    (unsigned long long)bl->count, trace_fmt_ns(trace_quantile(bl, 0.5), b2, sizeof b2));
}

/* with online discard, ext4 issues the discards in the commit: the commit
 * waits are then discard waits */
static bool discard_in_commit(const struct finding_ctx *c)
{
	return c->discard_mount && (c->dev.bio_discards || c->dev.ext4_discards);
}

static void journal(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_dev_stat *d = &c->dev;
	double space = c->journal_space, commit = c->cause[TC_JOURNAL] - space;
	char b1[32], b2[32], what[160], stats[256] = "";

	if (discard_in_commit(c))
		commit = 0;
	if (space + commit <= 0)
		return;
	if (space > 0 && commit > 0)
		snprintf(what, sizeof what, "%s for journal space (checkpoints) and %s for commits",
			 trace_fmt_ns(space, b1, sizeof b1), trace_fmt_ns(commit, b2, sizeof b2));
	else if (space > 0)
		snprintf(what, sizeof what, "%s for journal space (checkpoints)",
			 trace_fmt_ns(space, b1, sizeof b1));
	else
		snprintf(what, sizeof what, "%s for journal commits",
			 trace_fmt_ns(commit, b2, sizeof b2));
	if (d->jbd2_commits)
		snprintf(stats, sizeof stats,
			 "; the delete's journal committed %llu transactions "
			 "(average %.1f ms locked, %.1f ms flushing, %.1f ms logging, %llu handles, "
			 "%llu blocks)",
			 d->jbd2_commits, trace_jiffies_ms(d->jbd2_locked, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_flushing, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_logging, d->jbd2_commits), d->jbd2_handles,
			 d->jbd2_blocks);
	add(k, sh(c, space + commit), "Journal waits: the threads waited %s (%llu waits)%s.%s",
	    what, (unsigned long long)cause_waits(c, TC_JOURNAL), stats,
	    space >= commit ?
		    " A bigger journal (tune2fs -J size=, or mkfs.ext4 -J size=) "
		    "makes checkpoints rarer; unlinking in inode order dirties fewer blocks per "
		    "transaction." :
		    "");
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
	char b1[32];

	if (c->cause[TC_XFS_INODEGC] <= 0)
		return;
	add(k, sh(c, c->cause[TC_XFS_INODEGC]),
	    "XFS inode GC: the threads waited %s in destroy_inode for background inode "
	    "inactivation to catch up (%llu waits, %llu inode-GC throttles): xfs throttles "
	    "unlinkers to the speed of its inodegc workers.",
	    trace_fmt_ns(c->cause[TC_XFS_INODEGC], b1, sizeof b1),
	    (unsigned long long)cause_waits(c, TC_XFS_INODEGC), c->m->xfs_inodegc_throttles);
}

static void xfs_log(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	char b1[32], b2[32];

	if (c->cause[TC_XFS_LOG] <= 0)
		return;
	add(k, sh(c, c->cause[TC_XFS_LOG]),
	    "XFS log space: the threads waited %s for log space or log forces (top site %s; "
	    "%llu log-grant waits, %s); a bigger log (mkfs.xfs -l size=) gives the unlinks "
	    "more room.",
	    trace_fmt_ns(c->cause[TC_XFS_LOG], b1, sizeof b1), top_site(c, TC_XFS_LOG),
	    (unsigned long long)m->xfs_log_grant.count,
	    trace_fmt_ns((double)m->xfs_log_grant.total, b2, sizeof b2));
}

static void btrfs(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	double ns = c->btrfs_lock + c->cause[TC_BTRFS];
	char b1[32], b2[32];

	if (ns <= 0)
		return;
	add(k, sh(c, ns),
	    "Btrfs waits: %s on contended tree locks (%llu waits over 10 us) and on "
	    "space reservation (%llu tickets, %s)%s",
	    trace_fmt_ns(ns, b1, sizeof b1), (unsigned long long)m->btrfs_tree_lock.count,
	    (unsigned long long)m->btrfs_reserve.count,
	    trace_fmt_ns((double)m->btrfs_reserve.total, b2, sizeof b2),
	    c->r->max_threads > 1 ?
		    "; workers in one directory serialize on the same "
		    "b-tree leaves: fewer workers per directory." :
		    "; with one deleting thread the holders are btrfs's own workers "
		    "(transaction commit, delayed items): nothing to change in the deleter.");
}

/* the remaining wait causes: nothing to do in the deleter about any */
static void plain_causes(const struct finding_ctx *c, struct finding_sink *k)
{
	static const struct {
		int cause;
		const char *id, *what;
	} t[] = {
		{ TC_WRITEBACK, "writeback_waits",
		  "Writeback: the threads waited %s for pages or "
		  "inodes under writeback (%llu waits, top site %s)." },
		{ TC_RECLAIM, "page_reclaim",
		  "Memory reclaim: the threads spent %s blocked in "
		  "direct reclaim or compaction (%llu waits, top site %s): free memory ran short." },
		{ TC_PAGE_FAULT, "page_faults",
		  "Page faults: the threads waited %s in page "
		  "faults (%llu waits, top site %s)." },
		{ TC_BLOCK_IO, "blocked_on_io",
		  "Blocked on block I/O: the threads waited %s for "
		  "block requests (%llu waits, top site %s)." },
		{ TC_PEER, "peer_waits",
		  "Waiting for another process: the threads waited %s "
		  "reading or writing pipes and sockets (%llu waits, top site %s): the other "
		  "end of a pipeline, not the filesystem." },
		{ TC_OTHER, "other_waits",
		  "Other waits: the threads waited %s at sites the "
		  "table does not know (%llu waits, top site %s)." },
	};
	char b1[32];

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		if (c->cause[t[i].cause] <= 0)
			continue;
		k->id = t[i].id;
		if (t[i].cause == TC_OTHER && !strcmp(top_site(c, TC_OTHER), "(no stack)")) {
			add(k, sh(c, c->cause[TC_OTHER]),
			    "Blocked where no stack was recorded: the threads waited %s (%llu waits); "
			    "without --no-callers the report names the wait sites and their causes.",
			    trace_fmt_ns(c->cause[TC_OTHER], b1, sizeof b1),
			    (unsigned long long)cause_waits(c, TC_OTHER));
			continue;
		}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		add(k, sh(c, c->cause[t[i].cause]), t[i].what,
		    trace_fmt_ns(c->cause[t[i].cause], b1, sizeof b1),
		    (unsigned long long)cause_waits(c, t[i].cause), top_site(c, t[i].cause));
#pragma GCC diagnostic pop
	}
}

/* waiting for a CPU: oversubscription when other traced threads held it */
static void run_queue(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	double ns = c->runq + c->preempt;
	double all = (double)(m->runq.total + m->offcpu[PROBE_OFFCPU_PREEMPTED].total);
	double own = all > 0 ? (double)m->runq_traced_ns / all : 0;
	char b1[32], b2[32], b3[32];

	if (ns <= 0)
		return;
	if (own >= 0.5 && c->r->max_threads > (uint32_t)c->cpus) {
		k->id = "cpu_oversubscription";
		add(k, sh(c, ns),
		    "CPU oversubscription: the threads waited %s for a CPU (%s after wakeups, %s "
		    "preempted), %.0f%% of it behind other traced threads: %u threads on %ld CPUs; "
		    "fewer workers (one per CPU) would not wait.",
		    trace_fmt_ns(ns, b1, sizeof b1), trace_fmt_ns(c->runq, b2, sizeof b2),
		    trace_fmt_ns(c->preempt, b3, sizeof b3), 100 * own, c->r->max_threads, c->cpus);
		return;
	}
	k->id = "run_queue_delay";
	add(k, sh(c, ns),
	    "Waiting to run: the threads waited %s for a CPU (%s after wakeups, %s preempted), "
	    "%.0f%% of it behind tasks that are not traced (kernel workers, other processes).",
	    trace_fmt_ns(ns, b1, sizeof b1), trace_fmt_ns(c->runq, b2, sizeof b2),
	    trace_fmt_ns(c->preempt, b3, sizeof b3), 100 * (1 - own));
}

/* ---- the explaining rules ---- */

/* ext4 unlink order: far jumps between consecutive inodes dirty a new
 * inode-table block and bitmap per unlink; they explain the journal waits */
static void scattered_inodes(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *jh = &c->m->ext4_ino_jump;
	double near = trace_ino_near_share(jh);

	if (jh->count < 1000 || near >= 0.5)
		return;
	k->explains = c->cause[TC_JOURNAL] > 0 ? "journal_commit_waits" : "kernel_cpu";
	add(k, sh(c, c->cause[TC_JOURNAL] > 0 ? c->cause[TC_JOURNAL] : 0),
	    "Unlinks in scattered inode order: only %.0f%% of %llu consecutive ext4 "
	    "unlinks stay within %d inodes of the previous one (p50 jump %.0f inodes), "
	    "so nearly every unlink dirties another inode-table block and bitmap for "
	    "the journal to write; unlinking a big directory in inode order (GNU rm "
	    "sorts past 10,000 entries) touches each block once.",
	    100.0 * near, (unsigned long long)jh->count, TRACE_INO_NEAR, trace_quantile(jh, 0.5));
}

/* more than two non-empty reads per directory, each well under a 64 KiB
 * buffer (an empty read is a directory's end) */
static void small_getdents(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *gb = &c->m->getdents_bytes;
	uint64_t eofs = gb->b[0], full = gb->count - gb->b[0];
	double per_call = full ? (double)gb->total / (double)full : 0;
	double ns = (double)c->s->sc[PROBE_NR_GETDENTS64].lat.total;
	char b1[32];

	if (full < 50 || eofs == 0 || (double)full / (double)eofs <= 2 || per_call >= 16384)
		return;
	k->explains = "kernel_cpu";
	add(k, sh(c, ns < c->running ? ns : c->running),
	    "Small getdents64 batches: %llu reads returned %.1f KiB each on average "
	    "(%.1f reads per directory, %s in getdents64); a 64 KiB or larger "
	    "buffer needs several times fewer calls.",
	    (unsigned long long)full, per_call / 1024, (double)full / (double)eofs,
	    trace_fmt_ns(ns, b1, sizeof b1));
}

static void allocator_churn(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_sc_stat *sc = c->s->sc;
	uint64_t alloc = sc[SYS_brk].lat.count + sc[SYS_mmap].lat.count + sc[SYS_munmap].lat.count;
	double ns =
		(double)(sc[SYS_brk].lat.total + sc[SYS_mmap].lat.total + sc[SYS_munmap].lat.total);
	char b1[32];

	if (c->entries < 100 || alloc < 100 || (double)alloc / (double)c->entries < 0.05)
		return;
	k->explains = "kernel_cpu";
	add(k, sh(c, ns < c->running ? ns : c->running),
	    "Allocator churn: %.3f brk/mmap/munmap calls per entry removed "
	    "(%llu calls, %s): the deleter allocates and frees memory per entry; "
	    "reusing buffers removes these calls.",
	    (double)alloc / (double)c->entries, (unsigned long long)alloc,
	    trace_fmt_ns(ns, b1, sizeof b1));
}

/* In this order: equal shares keep it in the ranking. */
static const struct finding_rule {
	const char *id;
	void (*fn)(const struct finding_ctx *, struct finding_sink *);
	bool explains; /* an explaining rule (after the partition's) */
} finding_rules[] = {
	{ "directory_lock_contention", directory_lock, false },
	{ "lock_contention", other_locks, false },
	{ "inode_table_reads", metadata_reads, false },
	{ "journal_commit_waits", journal, false },
	{ "discard_io", discard, false },
	{ "xfs_inodegc", xfs_inodegc, false },
	{ "xfs_log_waits", xfs_log, false },
	{ "btrfs_waits", btrfs, false },
	{ "other_waits", plain_causes, false },
	{ "run_queue_delay", run_queue, false },
	{ "kernel_cpu", kernel_cpu, false },
	{ "scattered_inode_order", scattered_inodes, true },
	{ "small_getdents_batches", small_getdents, true },
	{ "allocator_churn", allocator_churn, true },
};

static int cmp_share(const void *a, const void *b)
{
	const struct trace_finding *x = a, *y = b;
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

/* Parts under this share are merged into one "other_waits" finding. */
#define MINOR_SHARE 0.01
#define MINOR_LOCK_SHARE 0.05

int trace_findings(const struct trace_result *r, struct trace_finding *out, int max)
{
	struct trace_finding top[3 * TRACE_MAX_FINDINGS + PROBE_LOCK_TYPES], sub[8];
	struct finding_sink kt = { .out = top, .max = (int)(sizeof top / sizeof *top) };
	struct finding_sink ks = { .out = sub, .max = (int)(sizeof sub / sizeof *sub) };
	struct finding_ctx c;

	if (!r->total || trace_busy_ns(r->total) == 0 || max <= 0)
		return 0;
	ctx_init(&c, r);
	for (size_t i = 0; i < sizeof finding_rules / sizeof *finding_rules; i++) {
		struct finding_sink *k = finding_rules[i].explains ? &ks : &kt;
		k->id = finding_rules[i].id;
		k->explains = NULL;
		finding_rules[i].fn(&c, k);
	}
	qsort(top, kt.n, sizeof *top, cmp_share);
	/* the parts under 1%: one finding, named by the largest ones */
	int n = 0, minor = 0;
	double mshare = 0;
	char names[400] = "";
	for (int i = 0; i < kt.n; i++) {
		/* other lock types and btrfs tree locks under 5%: contention
		 * with kernel workers that any delete meets (btrfs delayed
		 * nodes and tree locks), not a cause */
		double floor = !strcmp(top[i].id, "lock_contention") ||
					       !strcmp(top[i].id, "btrfs_waits") ?
				       MINOR_LOCK_SHARE :
				       MINOR_SHARE;
		if (top[i].share >= floor || kt.n == 1) {
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
		struct trace_finding *f = &top[n++];
		f->id = "minor_parts";
		f->explains = NULL;
		f->share = mshare;
		snprintf(f->text, sizeof f->text,
			 "Smaller parts: %d under 1%% each, lock types "
			 "under 5%% (%s%s).",
			 minor, names, minor > 4 ? ", ..." : "");
	}
	/* each top-level finding, then what explains it; cut at MAX */
	int m = 0;
	for (int i = 0; i < n && m < max; i++) {
		out[m++] = top[i];
		for (int j = 0; j < ks.n && m < max; j++)
			if (!strcmp(sub[j].explains, top[i].id))
				out[m++] = sub[j];
	}
	return m;
}
