/* The --trace verdict's rules (trace/findings.c): one synthetic snapshot per
 * rule, built so that this rule fires and no other (the few that need
 * syscall calls also fire the baseline), its id, share and wording; the
 * ranking; nothing on an empty trace. */
#include <criterion/criterion.h>
#include "probes/hist.h"
#include "trace/findings.h"
#include "trace/report.h"

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

/* Busy syscall time without calls: the shares get a base, and the baseline
 * rule (which needs a syscall with calls) stays quiet. */
static void set_busy(struct probe_snapshot *s, uint64_t ns)
{
	s->sc[SYS_write].lat.total += ns;
}

static void build_directory_lock(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->lock[PROBE_LCB_F_WRITE].wait, 20, 10 * MS);
	r->max_threads = 4;
}

static void build_other_lock(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->lock[PROBE_LCB_F_MUTEX].wait, 10, 10 * MS);
}

static void build_small_getdents(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 700 * MS);
	s->sc[SYS_getdents64].lat.total = 300 * MS;
	add_n(&s->misc.getdents_bytes, 10, 0);
	add_n(&s->misc.getdents_bytes, 100, 4096);
}

static void build_allocator_churn(struct trace_result *r, struct probe_snapshot *s)
{
	add_n(&s->sc[SYS_unlinkat].lat, 1000, 50000);
	add_n(&s->sc[SYS_mmap].lat, 200, 100000);
}

static void build_journal(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 10, 10 * MS);
	s->misc.jbd2_commits = 5;
	s->misc.jbd2_locked = 10;
	s->misc.jbd2_handles = 700;
	add_n(&s->misc.bio_lat, 50, 100000);
}

static void build_scattered(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->misc.ext4_ino_jump, 2000, 60000);
}

static void build_xfs_log(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->misc.xfs_log_grant, 5, 20 * MS);
	s->misc.xfs_inodegc_throttles = 3;
}

static void build_btrfs(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->misc.btrfs_tree_lock, 100, MS);
	add_n(&s->misc.btrfs_reserve, 2, 50 * MS);
}

static void build_discard(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	s->misc.bio_discards = 4;
	s->misc.bio_discard_bytes = 4 << 20;
}

static void build_blocked_on_io(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->misc.offcpu[PROBE_OFFCPU_BLOCKED], 30, 10 * MS);
	add_n(&s->misc.bio_lat, 50, 100000);
}

static void build_oversubscription(struct trace_result *r, struct probe_snapshot *s)
{
	set_busy(s, 1000 * MS);
	add_n(&s->misc.offcpu[PROBE_OFFCPU_PREEMPTED], 20, 10 * MS);
	r->max_threads = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) + 2;
}

static void build_syscall_cost(struct trace_result *r, struct probe_snapshot *s)
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
	{ "directory_lock", build_directory_lock, "directory_lock_contention", 0.2,
	  "Directory-lock contention: 20 waits for an rwsem held for write (200.00 ms in total", 1 },
	{ "other_lock", build_other_lock, "lock_contention", 0.1,
	  "Lock contention on mutex: 10 waits, 100.00 ms in total", 1 },
	{ "small_getdents", build_small_getdents, "small_getdents_batches", 0.3,
	  "100 reads returned 4.0 KiB each on average (10.0 reads per directory", 1 },
	{ "allocator_churn", build_allocator_churn, "syscall_cost", 50.0 / 70,
	  "Baseline: unlinkat itself", 2 },
	{ "journal", build_journal, "journal_commit_waits", 0.1,
	  "Journal commit waits: 5 jbd2 commits ran during the delete", 1 },
	{ "scattered", build_scattered, "scattered_inode_order", 0.01,
	  "only 0% of 2000 consecutive ext4 unlinks stay within 64 inodes", 1 },
	{ "xfs_log", build_xfs_log, "xfs_log_waits", 0.1,
	  "XFS log pressure: 5 waits for log space (100.00 ms in total) and 3 inode-GC", 1 },
	{ "btrfs", build_btrfs, "btrfs_waits", 0.2,
	  "Btrfs waits: 100.00 ms on extent-buffer tree locks (100 waits) and 100.00 ms on 2", 1 },
	{ "discard", build_discard, "discard_io", 0,
	  "Online discard: 4 discard requests (4.0 MiB)", 1 },
	{ "blocked_on_io", build_blocked_on_io, "blocked_on_io", 0.3,
	  "Blocked on I/O: the threads spent 300.00 ms in D state outside lock waits (30 waits", 1 },
	{ "oversubscription", build_oversubscription, "cpu_oversubscription", 0.2,
	  "CPU oversubscription: runnable threads waited 200.00 ms for a CPU", 1 },
	{ "syscall_cost", build_syscall_cost, "syscall_cost", 1.0,
	  "Baseline: unlinkat itself, lock waits aside, takes 100% of the syscall time (1000 calls", 1 },
	{ "nothing", build_nothing, NULL, 0, NULL, 0 },
};
#define NSYNTH ((int)(sizeof synth_cases / sizeof *synth_cases))

static int run_case(const struct synth_case *c, struct trace_finding *f, int max)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };

	c->build(&r, s);
	int n = trace_findings(&r, f, max);
	free(s);
	return n;
}

static void check_case(const char *name)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];
	const struct synth_case *c = NULL;

	for (int i = 0; i < NSYNTH; i++)
		if (!strcmp(synth_cases[i].name, name))
			c = &synth_cases[i];
	cr_assert(c, "no case %s", name);
	int n = run_case(c, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, c->nfindings, "%s: %d findings, expected %d (first %s)", name, n,
		     c->nfindings, n ? f[0].id : "-");
	if (!c->id)
		return;
	cr_assert_str_eq(f[0].id, c->id);
	cr_assert_float_eq(f[0].share, c->share, 1e-12, "%s: share %g", name, f[0].share);
	cr_assert(strstr(f[0].text, c->phrase), "%s: '%s' not in '%s'", name, c->phrase, f[0].text);
}

Test(findings, directory_lock_contention) { check_case("directory_lock"); }
Test(findings, lock_contention) { check_case("other_lock"); }
Test(findings, small_getdents_batches) { check_case("small_getdents"); }
Test(findings, journal_commit_waits) { check_case("journal"); }
Test(findings, scattered_inode_order) { check_case("scattered"); }
Test(findings, xfs_log_waits) { check_case("xfs_log"); }
Test(findings, btrfs_waits) { check_case("btrfs"); }
Test(findings, discard_io) { check_case("discard"); }
Test(findings, blocked_on_io) { check_case("blocked_on_io"); }
Test(findings, cpu_oversubscription) { check_case("oversubscription"); }
Test(findings, syscall_cost) { check_case("syscall_cost"); }
Test(findings, nothing_on_an_empty_trace) { check_case("nothing"); }

/* Allocator churn needs entries removed, hence calls: the baseline comes
 * first (unlinkat's 50 ms of 70), the churn second (mmap's 20 ms). */
Test(findings, allocator_churn)
{
	struct trace_finding f[TRACE_MAX_FINDINGS];

	check_case("allocator_churn");
	run_case(&synth_cases[3], f, TRACE_MAX_FINDINGS);
	cr_assert_str_eq(f[1].id, "allocator_churn");
	cr_assert_float_eq(f[1].share, 20.0 / 70, 1e-12);
	cr_assert(strstr(f[1].text, "Allocator churn: 0.200 brk/mmap/munmap calls per entry removed "
				    "(200 calls, 20.00 ms)"), "%s", f[1].text);
}

/* One rule, several findings: each other lock type over 5 % is its own. */
Test(findings, lock_contention_per_lock_type)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	set_busy(s, 1000 * MS);
	add_n(&s->lock[PROBE_LCB_F_MUTEX].wait, 10, 10 * MS);
	add_n(&s->lock[PROBE_LCB_F_SPIN].wait, 30, 10 * MS);
	add_n(&s->lock[0].wait, 100, 100000);	/* 1 %: below the threshold */
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(f[0].id, "lock_contention");
	cr_assert(strstr(f[0].text, "on spinlock: 30 waits"), "%s", f[0].text);
	cr_assert_str_eq(f[1].id, "lock_contention");
	cr_assert(strstr(f[1].text, "on mutex: 10 waits"), "%s", f[1].text);
	free(s);
}

/* Every case's snapshot at once (10 s busy: the lock, journal, I/O and
 * oversubscription cases fall under their thresholds, 7 rules fire):
 * ranked by share, largest first, and cut at MAX. */
Test(findings, ranked_by_share_and_cut_at_max)
{
	struct probe_snapshot *s = calloc(1, sizeof *s);
	struct trace_result r = { .mode = "command", .total = s, .max_threads = 1 };
	struct trace_finding f[TRACE_MAX_FINDINGS];

	for (int i = 0; i < NSYNTH; i++)
		synth_cases[i].build(&r, s);
	int n = trace_findings(&r, f, TRACE_MAX_FINDINGS);
	cr_assert_eq(n, 7);
	for (int i = 1; i < n; i++)
		cr_assert_geq(f[i - 1].share, f[i].share, "%s before %s", f[i - 1].id, f[i].id);
	cr_assert_eq(trace_findings(&r, f, 3), 3);
	free(s);
}
