/* The --trace verdict (trace/findings.c) and the wait-site classification
 * (trace/waits.c): one synthetic snapshot per rule, built so that this rule
 * claims its part of the busy time (the rest is "running in the kernel"),
 * its id, share and wording; the explaining findings; the parts under 1%
 * merged; the shares summing to 1 on random snapshots; known kernel stacks
 * classified as offcputime and perf name them. */
#include <criterion/criterion.h>
#include "probes/hist.h"
#include "trace/findings.h"
#include "trace/report.h"
#include "trace/waits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MS 1000000ull

static void add_n(struct probe_hist *h, int n, uint64_t value)
{
	for (int i = 0; i < n; i++)
		hist_add_value(h, value);
}

/* Busy syscall time without calls: the shares get a base; what no rule
 * claims is running in the kernel. */
static void set_busy(struct probe_snapshot *s, uint64_t ns)
{
	s->sc[SYS_write].lat.total += ns;
}

static struct trace_wait_site *site(struct trace_result *r, const char *name, int cause,
				    uint64_t count, uint64_t ns)
{
	static struct trace_wait_site sites[16];
	if (!r->sites) {
		memset(sites, 0, sizeof sites);
		r->sites = sites;
	}
	struct trace_wait_site *w = &r->sites[r->nsites++];
	snprintf(w->site, sizeof w->site, "%s", name);
	w->cause = cause;
	w->state = PROBE_OFFCPU_BLOCKED;
	w->count = count;
	w->total_ns = w->blocked_ns = ns;
	r->wait_ns[cause] += ns;
	r->have_sites = true;
	return w;
}

static void caller(struct trace_result *r, const char *name, unsigned flags, uint64_t n, uint64_t ns)
{
	r->callers[r->ncallers] = (struct probe_caller){ .flags = flags, .count = n, .total_ns = ns };
	snprintf(r->caller_names[r->ncallers], sizeof r->caller_names[0], "%s", name);
	r->ncallers++;
}

/* the delete's device, DISCARD: mounted with discard */
static struct probe_dev_stat *traced_dev(struct trace_result *r, struct probe_snapshot *s,
					 uint32_t dev, bool traced, bool discard)
{
	s->devs[s->ndevs].dev = dev;
	r->devs[r->ndevs] = (struct trace_dev){ .dev = dev, .traced = traced, .discard = discard };
	snprintf(r->devs[r->ndevs].name, sizeof r->devs[0].name, "loop%u", dev & 0xff);
	r->ndevs++;
	return &s->devs[s->ndevs++].st;
}

static void build_directory_lock(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->lock[PROBE_LCB_F_WRITE].wait, 20, 10 * MS);
	r->max_threads = 4;
}

/* with callers: the rwsem write waits of do_unlinkat are the directory's */
static void build_directory_lock_callers(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->lock[PROBE_LCB_F_WRITE].wait, 20, 10 * MS);
	caller(r, "do_unlinkat+0x160", PROBE_LCB_F_WRITE, 14, 140 * MS);
	caller(r, "xfs_ilock+0x20", PROBE_LCB_F_WRITE, 6, 60 * MS);
	r->max_threads = 8;
}

static void build_other_lock(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->lock[0].wait, 10, 10 * MS);
	caller(r, "xfs_buf_lock+0x2d", 0, 10, 100 * MS);
}

static void build_metadata_reads(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "__ext4_get_inode_loc+0x1b2", TC_META_READ, 900, 600 * MS);
	struct probe_dev_stat *d = traced_dev(r, s, 7 << 20, true, false);
	add_n(&d->bio_lat, 900, 2 * MS);
	d->jbd2_commits = 5;
	site(r, "jbd2_log_wait_commit+0xee", TC_JOURNAL, 5, 50 * MS);
}

static void build_journal_space(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "jbd2_log_wait_commit+0xee (space)", TC_JOURNAL, 30, 300 * MS);
	struct probe_dev_stat *d = traced_dev(r, s, 7 << 20, true, false);
	d->jbd2_commits = 29;
	d->jbd2_handles = 4000;
	/* another filesystem's commits and discards: not this delete's */
	struct probe_dev_stat *o = traced_dev(r, s, 7 << 20 | 1, false, true);
	o->jbd2_commits = 100;
	o->bio_discards = 50;
}

static void build_discard(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "blkdev_issue_discard+0x50", TC_DISCARD, 10, 100 * MS);
	struct probe_dev_stat *d = traced_dev(r, s, 7 << 20, true, true);
	d->bio_discards = 4;
	d->ext4_discards = 4; /* the same discards: counted once */
	d->bio_discard_bytes = 4 << 20;
}

/* ext4 with -o discard issues the discards in the commit: the commit waits
 * are discard waits */
static void build_discard_in_commit(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "jbd2_log_wait_commit+0xee", TC_JOURNAL, 10, 400 * MS);
	struct probe_dev_stat *d = traced_dev(r, s, 7 << 20, true, true);
	d->ext4_discards = 300;
	d->jbd2_commits = 10;
}

static void build_xfs_inodegc(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "destroy_inode+0x3b", TC_XFS_INODEGC, 148, 300 * MS);
	s->misc.xfs_inodegc_throttles = 148;
}

static void build_xfs_log(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "xlog_grant_head_wait+0xd9", TC_XFS_LOG, 5, 100 * MS);
	add_n(&s->misc.xfs_log_grant, 5, 20 * MS);
}

static void build_btrfs(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->lock[PROBE_LCB_F_READ].wait, 100, 2 * MS);
	caller(r, "__btrfs_tree_read_lock+0x28", PROBE_LCB_F_READ, 100, 200 * MS);
	add_n(&s->misc.btrfs_tree_lock, 100, 2 * MS);
	r->max_threads = 4;
}

/* btrfs, one thread: millions of uncontended tree-lock takes are no finding */
static void build_btrfs_uncontended(struct trace_result *r, struct probe_snapshot *s)
{
	add_n(&s->sc[SYS_unlinkat].lat, 1000, 30000);
	s->misc.btrfs_tree_lock.count = 0; /* takes under 10 us are not counted */
}

static void build_writeback(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "folio_wait_writeback+0x2a", TC_WRITEBACK, 10, 100 * MS);
}

static void build_reclaim(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "shrink_folio_list+0x300", TC_RECLAIM, 10, 100 * MS);
}

static void build_page_faults(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "filemap_fault+0x783", TC_PAGE_FAULT, 10, 100 * MS);
}

static void build_block_io(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "submit_bio_wait+0x74", TC_BLOCK_IO, 30, 300 * MS);
}

static void build_peer_waits(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "anon_pipe_read+0x393", TC_PEER, 68, 60 * MS);
}

static void build_other_waits(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	site(r, "fuse_dev_do_read+0x3c1", TC_OTHER, 10, 100 * MS);
}

static void build_run_queue(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	s->misc.busy_runq_ns = 150 * MS;
	s->misc.busy_preempt_ns = 50 * MS;
	add_n(&s->misc.runq, 15, 10 * MS);
	add_n(&s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 5, 10 * MS);
	s->misc.runq_traced_ns = 0; /* kworkers held the CPU */
	r->max_threads = 9;	    /* many threads, but not runnable at once */
}

static void build_oversubscription(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	s->misc.busy_preempt_ns = 200 * MS;
	add_n(&s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 20, 10 * MS);
	s->misc.runq_traced_ns = 180 * MS;
	r->max_threads = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) + 2;
}

static void build_kernel_cpu(struct trace_result *r, struct probe_snapshot *s)
{
	add_n(&s->sc[SYS_unlinkat].lat, 1000, 20000);
}

static void build_nothing(struct trace_result *r, struct probe_snapshot *s)
{
}

/* The synthetic cases: the finding expected first (NULL: none at all), its
 * share and a phrase of its text; how many findings in all. */
static const struct synth_case {
	const char *name;
	void (*build)(struct trace_result *, struct probe_snapshot *);
	const char *id;
	double share;
	const char *phrase;
	int nfindings;
} synth_cases[] = {
	{ "directory_lock", build_directory_lock, "kernel_cpu", 0.8, "Running in the kernel", 2 },
	{ "directory_lock_callers", build_directory_lock_callers, "kernel_cpu", 0.8,
	  "Running in the kernel", 3 },
	{ "other_lock", build_other_lock, "kernel_cpu", 0.9, "Running", 2 },
	{ "metadata_reads", build_metadata_reads, "inode_table_reads", 0.6,
	  "Metadata reads: the threads waited 600.00 ms for inode-table and directory blocks", 3 },
	{ "journal_space", build_journal_space, "kernel_cpu", 0.7, "Running", 2 },
	{ "discard", build_discard, "kernel_cpu", 0.9, "Running", 2 },
	{ "discard_in_commit", build_discard_in_commit, "kernel_cpu", 0.6, "Running", 2 },
	{ "xfs_inodegc", build_xfs_inodegc, "kernel_cpu", 0.7, "Running", 2 },
	{ "xfs_log", build_xfs_log, "kernel_cpu", 0.9, "Running", 2 },
	{ "btrfs", build_btrfs, "kernel_cpu", 0.8, "Running", 2 },
	{ "btrfs_uncontended", build_btrfs_uncontended, "kernel_cpu", 1.0,
	  "Running in the kernel: 30.00 ms of the syscall time is CPU work in the kernel, the "
	  "filesystem's own cost (unlinkat: 1000 calls",
	  1 },
	{ "writeback", build_writeback, "kernel_cpu", 0.9, "Running", 2 },
	{ "reclaim", build_reclaim, "kernel_cpu", 0.9, "Running", 2 },
	{ "page_faults", build_page_faults, "kernel_cpu", 0.9, "Running", 2 },
	{ "block_io", build_block_io, "kernel_cpu", 0.7, "Running", 2 },
	{ "other_waits", build_other_waits, "kernel_cpu", 0.9, "Running", 2 },
	{ "peer_waits", build_peer_waits, "kernel_cpu", 0.94, "Running", 2 },
	{ "run_queue", build_run_queue, "kernel_cpu", 0.8, "Running", 2 },
	{ "oversubscription", build_oversubscription, "kernel_cpu", 0.8, "Running", 2 },
	{ "kernel_cpu", build_kernel_cpu, "kernel_cpu", 1.0, "(unlinkat: 1000 calls, mean 20.00 us",
	  1 },
	{ "nothing", build_nothing, NULL, 0, NULL, 0 },
};
#define NSYNTH ((int)(sizeof synth_cases / sizeof *synth_cases))

static const struct synth_case *find_case(const char *name)
{
	for (int i = 0; i < NSYNTH; i++)
		if (!strcmp(synth_cases[i].name, name))
			return &synth_cases[i];
	cr_assert_fail("no case %s", name);
	return NULL;
}

static int run_case(const struct synth_case *c, struct trace_finding *f, int max)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };

	c->build(&r, s);
	int n = trace_findings(&r, f, max);
	free(s);
	return n;
}

/* The case's findings: the first as expected, the shares summing to 1. */
static int check_case(const char *name, struct trace_finding *f)
{
	const struct synth_case *c = find_case(name);
	int n = run_case(c, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, c->nfindings, "%s: %d findings, expected %d (first %s)", name, n,
		     c->nfindings, n ? f[0].id : "-");
	if (!c->id)
		return n;
	cr_assert_float_eq(trace_findings_total(f, n), 1.0, 1e-9, "%s: total %g", name,
			   trace_findings_total(f, n));
	cr_assert_str_eq(f[0].id, c->id);
	cr_assert_float_eq(f[0].share, c->share, 1e-9, "%s: share %g", name, f[0].share);
	cr_assert(strstr(f[0].text, c->phrase), "%s: '%s' not in '%s'", name, c->phrase, f[0].text);
	return n;
}

/* The finding ID among F's: its share and a phrase of its text. */
static const struct trace_finding *expect(const struct trace_finding *f, int n, const char *id,
					  double share, const char *phrase)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id)) {
			cr_assert_float_eq(f[i].share, share, 1e-9, "%s: share %g", id, f[i].share);
			cr_assert(!phrase || strstr(f[i].text, phrase), "%s: '%s' not in '%s'", id,
				  phrase, f[i].text);
			return &f[i];
		}
	cr_assert_fail("no finding %s (first %s)", id, n ? f[0].id : "-");
	return NULL;
}

static bool has(const struct trace_finding *f, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].id, id))
			return true;
	return false;
}

Test(findings, directory_lock_contention)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("directory_lock", f);
	expect(f, n, "directory_lock_contention", 0.2,
	       "Directory-lock contention: the threads waited 200.00 ms for the parent directory's "
	       "i_rwsem");
	cr_assert(strstr(f[1].text, "fewer workers unlinking in one directory"));
}

/* Callers split rwsem write waits: do_unlinkat's are the directory's. */
Test(findings, directory_lock_from_callers)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("directory_lock_callers", f);
	expect(f, n, "directory_lock_contention", 0.14, "140.00 ms");
	expect(f, n, "lock_contention", 0.06, "on rwsem:W: 20 waits, 60.00 ms in total");
}

/* Semaphore callers are named past down(): xfs_buf_lock, as perf does. */
Test(findings, lock_contention)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("other_lock", f);
	expect(f, n, "lock_contention", 0.1,
	       "Lock contention on semaphore: 10 waits, 100.00 ms "
	       "in total (p99 ");
	expect(f, n, "lock_contention", 0.1, "mostly from xfs_buf_lock+0x2d.");
}

Test(findings, inode_table_reads)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("metadata_reads", f);
	cr_assert(strstr(f[0].text, "900 block requests on the delete's devices"), "%s", f[0].text);
	expect(f, n, "journal_commit_waits", 0.05, "50.00 ms for journal commits");
	expect(f, n, "kernel_cpu", 0.35, NULL);
}

/* Journal space, with another filesystem's commits and discards apart. */
Test(findings, journal_commit_waits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("journal_space", f);
	expect(f, n, "journal_commit_waits", 0.3,
	       "Journal waits: the threads waited 300.00 ms for journal space (checkpoints) (30 "
	       "waits); the delete's journal committed 29 transactions");
	const struct trace_finding *j = expect(f, n, "journal_commit_waits", 0.3, "A bigger journal");
	(void)j;
	cr_assert(!has(f, n, "discard_io"), "another device's discards blamed");
}

Test(findings, discard_io)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("discard", f);
	expect(f, n, "discard_io", 0.1,
	       "Online discard: the threads waited 100.00 ms on discards "
	       "(4 discard requests, 4.0 MiB, on the delete's devices); mount without discard");
}

Test(findings, discard_io_in_journal_commits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("discard_in_commit", f);
	expect(f, n, "discard_io", 0.4,
	       "issued by the journal commits they waited for (300 "
	       "discard requests");
	cr_assert(!has(f, n, "journal_commit_waits"));
}

Test(findings, xfs_inodegc)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("xfs_inodegc", f);
	expect(f, n, "xfs_inodegc", 0.3,
	       "XFS inode GC: the threads waited 300.00 ms in "
	       "destroy_inode for background inode inactivation to catch up (148 waits, 148 "
	       "inode-GC throttles)");
}

Test(findings, xfs_log_waits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("xfs_log", f);
	expect(f, n, "xfs_log_waits", 0.1,
	       "XFS log space: the threads waited 100.00 ms for log "
	       "space or log forces (top site xlog_grant_head_wait+0xd9; 5 log-grant waits");
}

Test(findings, btrfs_waits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("btrfs", f);
	expect(f, n, "btrfs_waits", 0.2,
	       "Btrfs waits: 200.00 ms on contended tree locks (100 "
	       "waits over 10 us)");
	cr_assert(!has(f, n, "lock_contention"));
}

Test(findings, btrfs_single_thread_no_lock_finding)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("btrfs_uncontended", f);
	cr_assert(!has(f, n, "btrfs_waits") && !has(f, n, "lock_contention"));
}

Test(findings, writeback_waits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("writeback", f);
	expect(f, n, "writeback_waits", 0.1, "top site folio_wait_writeback+0x2a");
}

Test(findings, page_reclaim)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("reclaim", f);
	expect(f, n, "page_reclaim", 0.1, "direct reclaim");
}

Test(findings, page_faults)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("page_faults", f);
	expect(f, n, "page_faults", 0.1, "filemap_fault+0x783");
}

Test(findings, blocked_on_io)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("block_io", f);
	expect(f, n, "blocked_on_io", 0.3, "Blocked on block I/O: the threads waited 300.00 ms");
}

Test(findings, other_waits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("other_waits", f);
	expect(f, n, "other_waits", 0.1, "top site fuse_dev_do_read+0x3c1");
}

Test(findings, peer_waits)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("peer_waits", f);
	expect(f, n, "peer_waits", 0.06,
	       "Waiting for another process: the threads waited 60.00 ms "
	       "reading or writing pipes and sockets (68 waits, top site anon_pipe_read+0x393)");
}

/* Many threads, but the run-queue delay was behind kworkers: no
 * oversubscription. */
Test(findings, run_queue_delay)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("run_queue", f);
	expect(f, n, "run_queue_delay", 0.2,
	       "Waiting to run: the threads waited 200.00 ms for a "
	       "CPU (150.00 ms after wakeups, 50.00 ms preempted), 100% of it behind tasks that "
	       "are not traced");
	cr_assert(!has(f, n, "cpu_oversubscription"));
}

Test(findings, cpu_oversubscription)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	int n = check_case("oversubscription", f);
	expect(f, n, "cpu_oversubscription", 0.2, "90% of it behind other traced threads");
}

Test(findings, kernel_cpu)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	check_case("kernel_cpu", f);
}
Test(findings, nothing_on_an_empty_trace)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	check_case("nothing", f);
}

/* Scattered inode order explains the journal waits: listed right after
 * them, with their share, not counted again. */
Test(findings, scattered_inode_order)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 1000 * MS);
	site(&r, "jbd2_log_wait_commit+0xee (space)", TC_JOURNAL, 30, 530 * MS);
	add_n(&s->misc.ext4_ino_jump, 2000, 60000);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(f[0].id, "journal_commit_waits");
	cr_assert_str_eq(f[1].id, "scattered_inode_order");
	cr_assert_str_eq(f[1].explains, "journal_commit_waits");
	cr_assert_float_eq(f[1].share, 0.53, 1e-9);
	cr_assert(strstr(f[1].text, "only 0% of 2000 consecutive ext4 unlinks stay within 64 inodes"));
	cr_assert_float_eq(trace_findings_total(f, n), 1.0, 1e-9);
	free(s);
}

Test(findings, small_getdents_batches)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 700 * MS);
	s->sc[SYS_getdents64].lat.total = 300 * MS;
	add_n(&s->misc.getdents_bytes, 10, 0);
	add_n(&s->misc.getdents_bytes, 100, 4096);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(f[1].id, "small_getdents_batches");
	cr_assert_str_eq(f[1].explains, "kernel_cpu");
	cr_assert_float_eq(f[1].share, 0.3, 1e-9);
	cr_assert(strstr(f[1].text,
			 "100 reads returned 4.0 KiB each on average (10.0 reads per directory"));
	free(s);
}

Test(findings, allocator_churn)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	add_n(&s->sc[SYS_unlinkat].lat, 1000, 50000);
	add_n(&s->sc[SYS_mmap].lat, 200, 100000);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(f[0].id, "kernel_cpu");
	cr_assert_str_eq(f[1].id, "allocator_churn");
	cr_assert_float_eq(f[1].share, 20.0 / 70, 1e-9);
	cr_assert(strstr(f[1].text, "Allocator churn: 0.200 brk/mmap/munmap calls per entry removed "
				    "(200 calls, 20.00 ms)"),
		  "%s", f[1].text);
	free(s);
}

/* Parts under 1% (lock types under 5%) are one finding; the total stays 1. */
Test(findings, minor_parts_merged)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 1000 * MS);
	site(&r, "folio_wait_writeback+0x2a", TC_WRITEBACK, 1, 5 * MS);
	site(&r, "filemap_fault+0x1", TC_PAGE_FAULT, 1, 3 * MS);
	add_n(&s->lock[PROBE_LCB_F_MUTEX | PROBE_LCB_F_SPIN].wait, 10, 3 * MS);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(f[1].id, "minor_parts");
	cr_assert_float_eq(f[1].share, 0.038, 1e-9);
	cr_assert(strstr(f[1].text, "lock_contention 3.0%, writeback_waits 0.5%, page_faults 0.3%"),
		  "%s", f[1].text);
	free(s);
}

/* Waits measured longer than the busy time (they overlap): scaled down
 * together, nothing left running, the total still 1. */
Test(findings, overlapping_waits_scaled)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 100 * MS);
	site(&r, "__ext4_get_inode_loc+0x1", TC_META_READ, 10, 150 * MS);
	add_n(&s->lock[PROBE_LCB_F_WRITE].wait, 10, 5 * MS);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 2);
	expect(f, n, "inode_table_reads", 0.75, NULL);
	expect(f, n, "directory_lock_contention", 0.25, NULL);
	cr_assert_float_eq(trace_findings_total(f, n), 1.0, 1e-9);
	free(s);
}

/* The property: on random snapshots, every share is in [0, 1] and the
 * top-level shares sum to 1. */
Test(findings, shares_sum_to_one_on_random_snapshots)
{
	struct probe_snapshot *s = malloc(sizeof *s);
	struct trace_finding f[TRACE_MAX_FINDINGS];
	unsigned seed = 17;

	for (int iter = 0; iter < 500; iter++) {
		struct trace_result r = { .mode = "command", .total = s };
		memset(s, 0, sizeof *s);
		r.max_threads = 1 + rand_r(&seed) % 16;
		set_busy(s, 1 + (uint64_t)rand_r(&seed) % (900 * MS));
		int nsc = 1 + rand_r(&seed) % 5;
		for (int i = 0; i < nsc; i++)
			add_n(&s->sc[rand_r(&seed) % 300].lat, 1 + rand_r(&seed) % 50,
			      1000 + (uint64_t)rand_r(&seed) % (50 * MS));
		for (int i = rand_r(&seed) % 4; i > 0; i--)
			add_n(&s->lock[rand_r(&seed) % PROBE_LOCK_TYPES].wait,
			      1 + rand_r(&seed) % 20, (uint64_t)rand_r(&seed) % (20 * MS));
		for (int i = rand_r(&seed) % 6; i > 0; i--)
			site(&r, "x+0x1", rand_r(&seed) % TC_COUNT, 1 + rand_r(&seed) % 9,
			     (uint64_t)rand_r(&seed) % (400 * MS));
		if (rand_r(&seed) % 2)
			caller(&r, "do_unlinkat+0x160", PROBE_LCB_F_WRITE, 3,
			       (uint64_t)rand_r(&seed) % (9 * MS));
		s->misc.busy_runq_ns = rand_r(&seed) % 3 ? 0 : (uint64_t)rand_r(&seed) % (300 * MS);
		s->misc.busy_preempt_ns = rand_r(&seed) % 3 ? 0 :
							      (uint64_t)rand_r(&seed) % (300 * MS);
		s->misc.runq_traced_ns = (uint64_t)rand_r(&seed) % (300 * MS);
		add_n(&s->misc.ext4_ino_jump, rand_r(&seed) % 2 ? 2000 : 0, 60000);
		int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
		cr_assert_gt(n, 0);
		for (int i = 0; i < n; i++)
			cr_assert(f[i].share >= 0 && f[i].share <= 1 + 1e-12, "%s %g", f[i].id,
				  f[i].share);
		cr_assert_float_eq(trace_findings_total(f, n), 1.0, 1e-9, "iteration %d: %g", iter,
				   trace_findings_total(f, n));
		r.sites = NULL;
	}
	free(s);
}

/* Ranked by share, largest first; cut at MAX. */
Test(findings, ranked_by_share_and_cut_at_max)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 1000 * MS);
	site(&r, "a+0x1", TC_META_READ, 1, 100 * MS);
	site(&r, "b+0x1", TC_JOURNAL, 1, 300 * MS);
	site(&r, "c+0x1", TC_XFS_LOG, 1, 200 * MS);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 4);
	for (int i = 1; i < n; i++)
		cr_assert_geq(f[i - 1].share, f[i].share, "%s before %s", f[i - 1].id, f[i].id);
	cr_assert_eq(trace_findings(&r, f, 2), 2);
	free(s);
}

/* ---- classification of kernel stacks (innermost first) ---- */

static int classify(const char *site_expected, const char *lock_expected, bool space_expected,
		    int n, const char *const *frames)
{
	int site;
	const char *lock;
	bool space;
	int c = trace_classify(frames, n, &site, &lock, &space);
	cr_assert_str_eq(frames[site], site_expected);
	if (lock_expected)
		cr_assert(lock && !strcmp(lock, lock_expected), "lock %s", lock ? lock : "-");
	else
		cr_assert_null(lock);
	cr_assert_eq(space, space_expected);
	return c;
}
#define CLASSIFY(site, lock, space, ...) \
	classify(site, lock, space, sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(char *), \
		 (const char *const[]){ __VA_ARGS__ })

Test(classify, ext4_inode_table_read)
{
	cr_assert_eq(CLASSIFY("__ext4_get_inode_loc+0x1b2", NULL, false, "__schedule+0x3a",
			      "schedule+0x27", "io_schedule+0x46", "bit_wait_io+0x11",
			      "__wait_on_bit+0x42", "out_of_line_wait_on_bit+0x8b",
			      "__wait_on_buffer+0x30", "__ext4_get_inode_loc+0x1b2",
			      "__ext4_iget+0x10c", "ext4_lookup+0x10d", "__lookup_slow+0x81"),
		     TC_META_READ);
}

Test(classify, jbd2_checkpoint_is_journal_space)
{
	cr_assert_eq(CLASSIFY("jbd2_log_wait_commit+0xee", NULL, true, "__schedule+0x3a",
			      "schedule+0x27", "jbd2_log_wait_commit+0xee",
			      "jbd2_log_do_checkpoint+0x2a1", "__jbd2_log_wait_for_space+0x9b",
			      "start_this_handle+0x381", "jbd2__journal_start+0xf9",
			      "__ext4_journal_start_sb+0x103", "ext4_evict_inode+0x11c"),
		     TC_JOURNAL);
	cr_assert_eq(CLASSIFY("jbd2_log_wait_commit+0xee", NULL, false, "schedule+0x27",
			      "jbd2_log_wait_commit+0xee", "ext4_sync_fs+0x1cf"),
		     TC_JOURNAL);
}

Test(classify, xfs_inodegc_flush)
{
	cr_assert_eq(CLASSIFY("destroy_inode+0x3b", NULL, false, "__schedule+0x3a", "schedule+0x27",
			      "schedule_timeout+0x9e", "__wait_for_common+0x93",
			      "__flush_work+0x222", "destroy_inode+0x3b", "do_unlinkat+0x1f5"),
		     TC_XFS_INODEGC);
	cr_assert_eq(CLASSIFY("xfs_inodegc_flush+0x9c", NULL, false, "schedule+0x27",
			      "__flush_work+0x222", "xfs_inodegc_flush+0x9c"),
		     TC_XFS_INODEGC);
}

Test(classify, xlog_grant)
{
	cr_assert_eq(CLASSIFY("xlog_grant_head_wait+0xd9", NULL, false, "schedule+0x27",
			      "xlog_grant_head_wait+0xd9", "xlog_grant_head_check+0xd3",
			      "xfs_log_reserve+0xbe", "xfs_trans_reserve+0x12a"),
		     TC_XFS_LOG);
}

/* a semaphore is named by down's caller, as perf names it */
Test(classify, semaphore_named_past_down)
{
	cr_assert_eq(CLASSIFY("xfs_buf_lock+0x2d", "semaphore", false, "__schedule+0x3a",
			      "schedule+0x27", "schedule_timeout+0x9e", "__down_common+0x15f",
			      "down+0x4f", "xfs_buf_lock+0x2d", "xfs_buf_find_lock+0x5a"),
		     TC_LOCK);
}

Test(classify, directory_rwsem)
{
	cr_assert_eq(CLASSIFY("do_unlinkat+0x160", "rwsem:W", false, "schedule+0x27",
			      "rwsem_down_write_slowpath+0x23b", "down_write+0x5c",
			      "do_unlinkat+0x160", "__x64_sys_unlinkat+0x3b"),
		     TC_DIR_LOCK);
	cr_assert_eq(CLASSIFY("xfs_ilock+0x9d", "rwsem:R", false, "schedule+0x27",
			      "rwsem_down_read_slowpath+0x1c0", "down_read+0x48", "xfs_ilock+0x9d"),
		     TC_LOCK);
}

Test(classify, btrfs_tree_lock_discard_writeback_reclaim_other)
{
	cr_assert_eq(CLASSIFY("__btrfs_tree_lock+0x28", "rwsem:W", false, "schedule+0x27",
			      "rwsem_down_write_slowpath+0x23b", "down_write_nested+0x5c",
			      "__btrfs_tree_lock+0x28", "btrfs_search_slot+0x2f4"),
		     TC_BTRFS);
	cr_assert_eq(CLASSIFY("submit_bio_wait+0x74", NULL, false, "io_schedule+0x46",
			      "submit_bio_wait+0x74", "blkdev_issue_discard+0x50",
			      "ext4_issue_discard+0x9f"),
		     TC_DISCARD);
	cr_assert_eq(CLASSIFY("folio_wait_writeback+0x2a", NULL, false, "io_schedule+0x46",
			      "folio_wait_bit_common+0x13b", "folio_wait_writeback+0x2a",
			      "__filemap_fdatawait_range+0xac"),
		     TC_WRITEBACK);
	cr_assert_eq(CLASSIFY("shrink_folio_list+0x300", NULL, false, "schedule+0x27",
			      "shrink_folio_list+0x300", "shrink_lruvec+0x5a",
			      "try_to_free_pages+0xd1"),
		     TC_RECLAIM);
	cr_assert_eq(CLASSIFY("anon_pipe_read+0x393", NULL, false, "schedule+0x27",
			      "anon_pipe_read+0x393", "vfs_read+0x397"),
		     TC_PEER);
	cr_assert_eq(CLASSIFY("request_wait_answer+0x1c1", NULL, false, "schedule+0x27",
			      "request_wait_answer+0x1c1", "fuse_simple_request+0x1a0"),
		     TC_OTHER);
}

Test(classify, lock_callers)
{
	cr_assert_eq(trace_caller_cause("do_unlinkat+0x160", PROBE_LCB_F_WRITE), TC_DIR_LOCK);
	cr_assert_eq(trace_caller_cause("do_unlinkat+0x160", PROBE_LCB_F_READ), TC_LOCK);
	cr_assert_eq(trace_caller_cause("__btrfs_tree_read_lock+0x28", PROBE_LCB_F_READ), TC_BTRFS);
	cr_assert_eq(trace_caller_cause("xfs_buf_lock+0x2d", 0), TC_LOCK);
}

/* --no-callers: D waits without stacks are said to be unplaced, not "other". */
Test(findings, waits_without_stacks)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 1000 * MS);
	site(&r, "(no stack)", TC_OTHER, 22, 100 * MS);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	expect(f, n, "other_waits", 0.1,
	       "Blocked where no stack was recorded: the threads waited "
	       "100.00 ms (22 waits); without --no-callers");
	free(s);
}

/* The delete's devices: an operand's filesystem (the operand is gone, its
 * parent directory is not) is traced; another device is not. */
#include <sys/stat.h>
#include <sys/sysmacros.h>
Test(scope, operands_device_is_the_deletes)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	char *argv[] = { "rm", "-rf", "/tmp/adaptrm-gone-operand/x", "/tmp/adaptrm-gone-2", NULL };
	struct trace_result r = { .mode = "command", .argv = argv, .total = s };
	struct stat st;

	cr_assert_eq(stat("/tmp", &st), 0);
	uint32_t tmpdev = PROBE_MKDEV(major(st.st_dev), minor(st.st_dev));
	s->devs[0].dev = tmpdev;
	s->devs[0].st.jbd2_commits = 3;
	s->devs[1].dev = PROBE_MKDEV(4000, 4000);
	s->devs[1].st.bio_discards = 9;
	s->ndevs = 2;
	trace_collect_waits(NULL, &r);
	cr_assert_eq(r.ndevs, 2);
	cr_assert_eq(r.devs[0].dev, tmpdev);
	cr_assert(r.devs[0].traced, "/tmp's device not traced");
	cr_assert(!r.devs[1].traced, "an unrelated device traced");
	cr_assert_eq(r.nsites, 0);
	trace_free_waits(&r);
	free(s);
}
