/* The --trace verdict (findings.h): the quantities several rules share are
 * computed once into a finding_ctx; each rule of finding_rules[] decides,
 * sizes and words its own findings; trace_findings() runs the table and
 * ranks what it found by share. */
#include "trace/findings.h"
#include "probes/hist.h"
#include "trace/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct finding_ctx {
	const struct trace_result *r;
	const struct probe_snapshot *s;
	const struct probe_misc *m;
	double base;		/* busy syscall time (ns, at least 1): every share's base */
	uint64_t entries;	/* files and directories removed */
	double dio;		/* D time outside sleeping-lock waits: I/O and journal, ns */
	double dshare;		/* dio / base */
	bool journal;		/* journal_commit_waits fires (it explains the D time) */
};

struct finding_sink {
	struct trace_finding *out;
	int n, max;
	const char *id;		/* the running rule's: its findings carry it */
};

static void add(struct finding_sink *k, double share, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(struct finding_sink *k, double share, const char *fmt, ...)
{
	va_list ap;

	if (k->n >= k->max)
		return;
	k->out[k->n].id = k->id;
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

static void ctx_init(struct finding_ctx *c, const struct trace_result *r)
{
	const struct probe_snapshot *s = r->total;
	const struct probe_misc *m = &s->misc;

	c->r = r;
	c->s = s;
	c->m = m;
	c->base = (double)trace_busy_ns(s);
	if (c->base <= 0)
		c->base = 1;
	uint64_t files = s->sc[PROBE_NR_UNLINKAT].lat.count - m->unlinkat_dir.count +
			 s->sc[SYS_unlink].lat.count;
	uint64_t dirs = m->unlinkat_dir.count + s->sc[SYS_rmdir].lat.count;
	c->entries = files + dirs;
	/* D time includes sleeping-lock waits (rwsem, mutex sleep in D):
	 * what remains is I/O and journal waits */
	const struct probe_hist *dh = &m->offcpu[PROBE_OFFCPU_BLOCKED];
	uint64_t sleeping_locks = 0;
	for (int k = 0; k < PROBE_LOCK_TYPES; k++)
		if (!(k & PROBE_LCB_F_SPIN) || (k & PROBE_LCB_F_MUTEX))
			sleeping_locks += s->lock[k].wait.total;
	c->dio = dh->total > sleeping_locks ? (double)(dh->total - sleeping_locks) : 0;
	c->dshare = c->dio / c->base;
	c->journal = m->jbd2_commits && c->dshare >= 0.02;
}

/* the parent directory's i_rwsem, taken for write by every unlink */
static void directory_lock(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *w = &c->s->lock[PROBE_LCB_F_WRITE].wait;
	char b1[32], b2[32];

	if (w->count < 10 || w->total / c->base < 0.02)
		return;
	add(k, w->total / c->base,
	    "Directory-lock contention: %llu waits for an rwsem held for write "
	    "(%s in total, p99 %s), the parent directory's i_rwsem that every "
	    "unlink takes, with up to %u threads unlinking; fewer unlinkers per "
	    "directory (one directory per thread) removes this wait.",
	    (unsigned long long)w->count, trace_fmt_ns((double)w->total, b1, sizeof b1),
	    trace_fmt_ns(hist_quantile(w, 0.99), b2, sizeof b2), c->r->max_threads);
}

/* every other lock type with a noticeable share: one finding each */
static void other_locks(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], b2[32];

	for (int t = 0; t < PROBE_LOCK_TYPES; t++) {
		const struct probe_hist *h = &c->s->lock[t].wait;
		if (t == PROBE_LCB_F_WRITE || h->count < 10 || h->total / c->base < 0.05)
			continue;
		add(k, h->total / c->base,
		    "Lock contention on %s: %llu waits, %s in total (p99 %s).",
		    probe_lock_type_name(t), (unsigned long long)h->count,
		    trace_fmt_ns((double)h->total, b1, sizeof b1),
		    trace_fmt_ns(hist_quantile(h, 0.99), b2, sizeof b2));
	}
}

/* more than two non-empty reads per directory, each well under a 64 KiB
 * buffer (an empty read is a directory's end) */
static void small_getdents(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *gb = &c->m->getdents_bytes;
	uint64_t eofs = gb->b[0], full = gb->count - gb->b[0];
	double per_call = full ? (double)gb->total / (double)full : 0;
	uint64_t ns = c->s->sc[PROBE_NR_GETDENTS64].lat.total;
	char b1[32];

	if (full < 50 || eofs == 0 || (double)full / (double)eofs <= 2 || per_call >= 16384)
		return;
	add(k, (double)ns / c->base,
	    "Small getdents64 batches: %llu reads returned %.1f KiB each on average "
	    "(%.1f reads per directory, %s in getdents64); a 64 KiB or larger "
	    "buffer needs several times fewer calls.",
	    (unsigned long long)full, per_call / 1024, (double)full / (double)eofs,
	    trace_fmt_ns((double)ns, b1, sizeof b1));
}

static void allocator_churn(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_sc_stat *sc = c->s->sc;
	uint64_t alloc = sc[SYS_brk].lat.count + sc[SYS_mmap].lat.count + sc[SYS_munmap].lat.count;
	uint64_t alloc_ns = sc[SYS_brk].lat.total + sc[SYS_mmap].lat.total + sc[SYS_munmap].lat.total;
	char b1[32];

	if (c->entries < 100 || alloc < 100 || (double)alloc / (double)c->entries < 0.05)
		return;
	add(k, alloc_ns / c->base,
	    "Allocator churn: %.3f brk/mmap/munmap calls per entry removed "
	    "(%llu calls, %s): the deleter allocates and frees memory per entry; "
	    "reusing buffers removes these calls.",
	    (double)alloc / (double)c->entries, (unsigned long long)alloc,
	    trace_fmt_ns((double)alloc_ns, b1, sizeof b1));
}

static void journal_commits(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	char b1[32];

	if (!c->journal)
		return;
	add(k, c->dshare,
	    "Journal commit waits: %llu jbd2 commits ran during the delete "
	    "(average %.1f ms locked, %.1f ms flushing, %.1f ms logging, %llu "
	    "handles) while the threads spent %s blocked (D) outside lock "
	    "waits; batching or fewer metadata updates per file shortens them.",
	    m->jbd2_commits, trace_jiffies_ms(m->jbd2_locked, m->jbd2_commits),
	    trace_jiffies_ms(m->jbd2_flushing, m->jbd2_commits),
	    trace_jiffies_ms(m->jbd2_logging, m->jbd2_commits), m->jbd2_handles,
	    trace_fmt_ns(c->dio, b1, sizeof b1));
}

/* ext4 unlink order: far jumps between consecutive inodes dirty a new
 * inode-table block and bitmap per unlink (journal, writeback); the share
 * is the D time they cause, at least 1% so that the finding shows */
static void scattered_inodes(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *jh = &c->m->ext4_ino_jump;
	double near = trace_ino_near_share(jh);

	if (jh->count < 1000 || near >= 0.5)
		return;
	add(k, c->dshare > 0.01 ? c->dshare : 0.01,
	    "Unlinks in scattered inode order: only %.0f%% of %llu consecutive ext4 "
	    "unlinks stay within %d inodes of the previous one (p50 jump %.0f inodes), "
	    "so nearly every unlink dirties another inode-table block and bitmap for "
	    "the journal to write; unlinking a big directory in inode order (GNU rm "
	    "sorts past 10,000 entries) touches each block once.",
	    100.0 * near, (unsigned long long)jh->count, TRACE_INO_NEAR,
	    hist_quantile(jh, 0.5));
}

static void xfs_log(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	char b1[32];

	if (!m->xfs_log_grant.count && !m->xfs_inodegc_throttles)
		return;
	add(k, m->xfs_log_grant.total / c->base,
	    "XFS log pressure: %llu waits for log space (%s in total) and %llu "
	    "inode-GC throttles: the log or background inactivation cannot keep "
	    "up with the unlink rate.",
	    (unsigned long long)m->xfs_log_grant.count,
	    trace_fmt_ns((double)m->xfs_log_grant.total, b1, sizeof b1),
	    m->xfs_inodegc_throttles);
}

static void btrfs(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	char b1[32], b2[32];

	if (m->btrfs_tree_lock.total / c->base < 0.02 && !m->btrfs_reserve.count)
		return;
	add(k, (m->btrfs_tree_lock.total + m->btrfs_reserve.total) / c->base,
	    "Btrfs waits: %s on extent-buffer tree locks (%llu waits) and %s on "
	    "%llu space-reservation tickets: threads serialize on the same "
	    "b-tree leaves.",
	    trace_fmt_ns((double)m->btrfs_tree_lock.total, b1, sizeof b1),
	    (unsigned long long)m->btrfs_tree_lock.count,
	    trace_fmt_ns((double)m->btrfs_reserve.total, b2, sizeof b2),
	    (unsigned long long)m->btrfs_reserve.count);
}

static void discard(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;

	if (!m->bio_discards && !m->ext4_discards)
		return;
	add(k, c->dshare,
	    "Online discard: %llu discard requests (%.1f MiB) were issued while "
	    "deleting; mount without -o discard and run fstrim periodically.",
	    m->bio_discards + m->ext4_discards, (double)m->bio_discard_bytes / 1048576.0);
}

/* D time that the journal does not explain */
static void blocked_on_io(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	const struct probe_hist *dh = &m->offcpu[PROBE_OFFCPU_BLOCKED];
	char b1[32], b2[32], b3[32];

	if (c->journal || c->dshare < 0.05 || !m->bio_lat.count)
		return;
	add(k, c->dshare,
	    "Blocked on I/O: the threads spent %s in D state outside lock waits "
	    "(%llu waits, p99 %s) while %llu block I/Os completed (p50 %s): "
	    "metadata read from a cold cache or writeback.",
	    trace_fmt_ns(c->dio, b1, sizeof b1), (unsigned long long)dh->count,
	    trace_fmt_ns(hist_quantile(dh, 0.99), b2, sizeof b2),
	    (unsigned long long)m->bio_lat.count,
	    trace_fmt_ns(hist_quantile(&m->bio_lat, 0.5), b3, sizeof b3));
}

static void oversubscription(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *ph = &c->m->offcpu[PROBE_OFFCPU_PREEMPTED];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char b1[32];

	if (ph->total / c->base < 0.10 || c->r->max_threads <= (uint32_t)cpus)
		return;
	add(k, ph->total / c->base,
	    "CPU oversubscription: runnable threads waited %s for a CPU; %u "
	    "threads ran on %ld CPUs.",
	    trace_fmt_ns((double)ph->total, b1, sizeof b1), c->r->max_threads, cpus);
}

/* the baseline: which syscall does the work, and how much of it is not
 * lock waits */
static void syscall_cost(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_snapshot *s = c->s;
	char b1[32], b2[32], b3[32];
	int top = -1;

	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		if (!trace_is_wait_syscall(nr) && s->sc[nr].lat.count &&
		    (top < 0 || s->sc[nr].lat.total > s->sc[top].lat.total))
			top = nr;
	if (top < 0)
		return;
	uint64_t all_locks = probe_lock_wait_ns(s, 0);
	const struct probe_hist *lat = &s->sc[top].lat;
	double own = lat->total > all_locks ? (double)(lat->total - all_locks) : 0;
	add(k, own / c->base,
	    "Baseline: %s itself, lock waits aside, takes %.0f%% of the syscall "
	    "time (%llu calls, mean %s, p99 %s): the filesystem's own cost per call.",
	    trace_syscall_name(top, b3, sizeof b3), 100.0 * own / c->base,
	    (unsigned long long)lat->count, trace_fmt_ns(hist_mean(lat), b1, sizeof b1),
	    trace_fmt_ns(hist_quantile(lat, 0.99), b2, sizeof b2));
}

/* In this order: equal shares keep it in the ranking. */
static const struct finding_rule {
	const char *id;
	void (*fn)(const struct finding_ctx *, struct finding_sink *);
} finding_rules[] = {
	{ "directory_lock_contention", directory_lock },
	{ "lock_contention", other_locks },
	{ "small_getdents_batches", small_getdents },
	{ "allocator_churn", allocator_churn },
	{ "journal_commit_waits", journal_commits },
	{ "scattered_inode_order", scattered_inodes },
	{ "xfs_log_waits", xfs_log },
	{ "btrfs_waits", btrfs },
	{ "discard_io", discard },
	{ "blocked_on_io", blocked_on_io },
	{ "cpu_oversubscription", oversubscription },
	{ "syscall_cost", syscall_cost },
};

static int cmp_share(const void *a, const void *b)
{
	const struct trace_finding *x = a, *y = b;
	return x->share < y->share ? 1 : x->share > y->share ? -1 : 0;
}

int trace_findings(const struct trace_result *r, struct trace_finding *out, int max)
{
	struct finding_ctx c;
	struct finding_sink k = { .out = out, .max = max };

	ctx_init(&c, r);
	for (size_t i = 0; i < sizeof finding_rules / sizeof *finding_rules; i++) {
		k.id = finding_rules[i].id;
		finding_rules[i].fn(&c, &k);
	}
	qsort(out, k.n, sizeof *out, cmp_share);
	return k.n;
}
