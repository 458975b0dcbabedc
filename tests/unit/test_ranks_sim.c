// SPDX-License-Identifier: GPL-3.0-or-later
/* The ranks' protocol under the seeded simulation (ranks/transport_sim.c):
 * each seed draws a small tree or a flat directory, a failed subtree now and
 * then, 2 to 4 ranks of 1 or 2 workers, eager or idle stealing, and the
 * network's delays, reorderings and pauses. Every run must end (a watchdog
 * reports each rank's state otherwise), with the tree gone or, where a
 * subtree could not go, every rank failed and the ancestors kept, and every
 * rank's counts adding up to the tree's.
 *
 * ADAPTRM_SIM_SEEDS=N runs N seeds (make soak-ranks SEEDS=N),
 * ADAPTRM_SIM_FIRST=S starts at seed S, ADAPTRM_SIM_SEED=S replays one,
 * ADAPTRM_SIM_SHAPE=tree|flat|failed draws only that shape,
 * ADAPTRM_SIM_WATCHDOG=S fails a run not over in S seconds (60). A failure
 * names its seed. */
#ifdef CRITERION_LITE
#include "support/criterion_lite.h"
#else
#include <criterion/criterion.h>
#endif
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/msg.h"
#include "support/cluster.h"
#include "support/tree.h"

/* tmpfs: the runs are many and small, and sharing a directory between
 * ranks pays there, so flat directories are cut into slices. */
#define TMPL "/dev/shm/adaptrm-sim.XXXXXX"
static char tmpl[sizeof TMPL];
static char mounted[4096];

static void setup(void)
{
	msg_init("adaptrm");
	tree_scratch_new(tmpl, TMPL);
}
static void teardown(void)
{
	if (mounted[0])
		umount2(mounted, MNT_DETACH);
	tree_scratch_remove(tmpl);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : dflt;
}

/* The seeds make check runs: a minute or so on the test machine; fewer
 * under a sanitizer, which runs them several times slower. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEFAULT_SEEDS 300
#else
#define DEFAULT_SEEDS 2000
#endif

static uint64_t draw(uint64_t *s, uint64_t n)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (*s * 0x2545f4914f6cdd1dull) % n;
}

enum shape { TREE, FLAT, FAILED_SUBTREE, NSHAPES };

struct plan {
	enum shape shape;
	int ranks, threads;
	bool eager;
	int ndirs, nfiles, flat;
	struct sim_params net;
};

static struct plan plan_of(uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	struct plan p = { 0 };
	p.shape = (enum shape)draw(&s, NSHAPES);
	const char *only = getenv("ADAPTRM_SIM_SHAPE");
	if (only && *only)
		p.shape = !strcmp(only, "flat")	  ? FLAT :
			  !strcmp(only, "failed") ? FAILED_SUBTREE :
						    TREE;
	if (p.shape == FAILED_SUBTREE && geteuid() != 0)
		p.shape = TREE; /* a mount point inside the tree needs root */
	p.ranks = 2 + (int)draw(&s, 3);
	p.threads = 1 + (int)draw(&s, 2);
	p.eager = draw(&s, 2);
	p.ndirs = 2 + (int)draw(&s, 8);
	p.nfiles = (int)draw(&s, 6);
	/* mostly a batch or a few, sometimes many (the reader's passes) */
	p.flat = draw(&s, 8) ? 520 + (int)draw(&s, 1500) : 4000 + (int)draw(&s, 6000);
	p.net = (struct sim_params){ .max_delay_us = (unsigned)draw(&s, 600),
				     .pause_per_mille = (unsigned)draw(&s, 120),
				     .max_pause_us = 300,
				     .max_sum_lag = (unsigned)draw(&s, 6) };
	return p;
}

enum { SUBFILES = 3 };

static void build(const struct plan *p, uint64_t *files, uint64_t *dirs)
{
	char path[4096];
	if (p->shape == FLAT) {
		snprintf(path, sizeof path, "%s/t", tmpl);
		cr_assert_eq(mkdir(path, 0755), 0);
		for (int f = 0; f < p->flat; f++) {
			snprintf(path, sizeof path, "%s/t/f%d", tmpl, f);
			tree_touch(path);
		}
		*files = (uint64_t)p->flat;
		*dirs = 1;
		return;
	}
	tree_build(tmpl, p->ndirs, p->nfiles, SUBFILES);
	*files = (uint64_t)(p->ndirs * (p->nfiles + SUBFILES));
	*dirs = 1 + 2 * (uint64_t)p->ndirs + 30;
	if (p->shape == FAILED_SUBTREE) {
		snprintf(mounted, sizeof mounted, "%s/t/d1", tmpl);
		cr_assert_eq(mount("none", mounted, "tmpfs", 0, "size=64k"), 0);
	}
}

static bool exists(const char *rel)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", tmpl, rel);
	struct stat st;
	return lstat(p, &st) == 0;
}

/* What the seeds exercised, said at the end and checked over many. */
static struct {
	uint64_t runs[NSHAPES], steals, given_on, slice_files;
} seen;

/* What a failed subtree's run left, removed in this process: system()
 * would fork a threaded process, which can hang under qemu-user. */
static int remove_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* One seed's run and its checks; SHAPE (if not NSHAPES) instead of the
 * seed's own. */
static void run_seed_as(uint64_t seed, enum shape shape)
{
	struct plan p = plan_of(seed);
	if (shape != NSHAPES)
		p.shape = shape;
	uint64_t files, dirs;
	build(&p, &files, &dirs);
	char what[160];
	static const char *const names[] = { "tree", "flat", "failed" };
	snprintf(what, sizeof what,
		 "seed %llu (replay: ADAPTRM_SIM_SHAPE=%s ADAPTRM_SIM_SEED=%llu "
		 ".output/tests/test_ranks_sim)",
		 (unsigned long long)seed, names[p.shape], (unsigned long long)seed);
	struct member m[CLUSTER_MAX_RANKS];
	struct cluster_net net = { .sim = sim_world_new(p.ranks, seed, &p.net) };
	unsigned watchdog = (unsigned)env_u64("ADAPTRM_SIM_WATCHDOG", 60);
	/* A failed subtree's every rank says why it failed: thousands of
	 * runs' worth of the same line would bury the log (a failure's report
	 * goes through the runner, not stderr). */
	int saved = -1;
	if (p.shape == FAILED_SUBTREE) {
		saved = dup(2);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		close(null);
	}
	run_cluster_on(&net, tmpl, m, p.ranks, p.threads, p.eager, watchdog, what);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	sim_world_free(net.sim);
	uint64_t got_files = 0, got_dirs = 0;
	seen.runs[p.shape]++;
	seen.steals += m[0].sum.steals;
	for (int i = 0; i < p.ranks; i++) {
		got_files += m[i].tot.files;
		got_dirs += m[i].tot.dirs;
		seen.given_on += m[i].given_on;
		if (p.shape == FLAT && i > 0)
			seen.slice_files += m[i].tot.files;
		/* every rank leaves with the same sums */
		cr_assert_eq(m[i].sum.files, m[0].sum.files, "%s: rank %d's sum", what, i);
		cr_assert_eq(m[i].sum.dirs, m[0].sum.dirs, "%s: rank %d's sum", what, i);
		cr_assert_eq(m[i].sum.failed, m[0].sum.failed, "%s: rank %d's sum", what, i);
		cr_assert_eq(m[i].sum.ranks, (uint64_t)p.ranks, "%s", what);
	}
	cr_assert_eq(m[0].sum.files, got_files, "%s: the sum is not the ranks' counts", what);
	cr_assert_eq(m[0].sum.dirs, got_dirs, "%s: the sum is not the ranks' counts", what);
	if (p.shape == FAILED_SUBTREE) {
		for (int i = 0; i < p.ranks; i++)
			cr_assert_not(m[i].all_ok, "%s: rank %d said all went well", what, i);
		cr_assert(exists("t/d1"), "%s: the mount point went", what);
		cr_assert_not(exists("t/d0"), "%s: a removable subtree stayed", what);
		cr_assert_not(exists("t/chain"), "%s: a removable subtree stayed", what);
		umount2(mounted, MNT_DETACH);
		mounted[0] = '\0';
		char top[4200];
		snprintf(top, sizeof top, "%s/t", tmpl);
		cr_assert_eq(nftw(top, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0, "%s: rm -rf t",
			     what);
		return;
	}
	for (int i = 0; i < p.ranks; i++)
		cr_assert(m[i].all_ok, "%s: rank %d failed", what, i);
	cr_assert_eq(got_files, files, "%s: files removed", what);
	cr_assert_eq(got_dirs, dirs, "%s: directories removed", what);
	cr_assert_not(exists("t"), "%s: the tree stayed", what);
}

static void run_seed(uint64_t seed)
{
	run_seed_as(seed, NSHAPES);
}

TestSuite(sim, .init = setup, .fini = teardown);

Test(sim, seeded_runs_end_with_the_tree_gone_and_the_counts_adding_up)
{
	const char *one = getenv("ADAPTRM_SIM_SEED");
	if (one && *one) {
		uint64_t seed = strtoull(one, NULL, 10);
		fprintf(stderr, "sim: replaying seed %llu\n", (unsigned long long)seed);
		run_seed(seed);
		return;
	}
	uint64_t first = env_u64("ADAPTRM_SIM_FIRST", 1);
	uint64_t n = env_u64("ADAPTRM_SIM_SEEDS", DEFAULT_SEEDS);
	for (uint64_t seed = first; seed < first + n; seed++) {
		run_seed(seed);
		if ((seed - first + 1) % 2000 == 0)
			fprintf(stderr, "sim: %llu seeds clean\n",
				(unsigned long long)(seed - first + 1));
	}
	fprintf(stderr,
		"sim: seeds %llu..%llu clean: %llu trees, %llu flat directories, %llu failed "
		"subtrees; %llu donations taken, %llu of them given on, %llu files of flat "
		"directories unlinked by ranks other than the owner\n",
		(unsigned long long)first, (unsigned long long)(first + n - 1),
		(unsigned long long)seen.runs[TREE], (unsigned long long)seen.runs[FLAT],
		(unsigned long long)seen.runs[FAILED_SUBTREE], (unsigned long long)seen.steals,
		(unsigned long long)seen.given_on, (unsigned long long)seen.slice_files);
	/* Over hundreds of seeds each hand-off happens many times whatever
	 * the machine's load: a search that never made one searched nothing. */
	if (n >= 500) {
		cr_assert_gt(seen.steals, 0, "no seed stole anything");
		cr_assert_gt(seen.given_on, 0, "no seed gave a stolen directory on");
		cr_assert_gt(seen.slice_files, 0, "no seed shared a flat directory in slices");
	}
}

/* The search's first find, kept: seed 100 drawn as a flat directory (3
 * ranks of 2 workers, eager). The shared budget lowers a rank's cap to one
 * worker without waking anyone; the one task that comes next (a slice's
 * report on rank 0, a slice on a thief) is pushed with one signal, and
 * when that reached the worker the cap parks, the task waited with every
 * allowed worker asleep: rank 0 waited for its operand for ever. Without
 * the parked worker's hand-off (engine/tasks.c) its replays hang, not every
 * one (the scheduler still picks which thread runs), so it is replayed
 * twenty times. */
Test(sim, the_lost_wakeup_of_seed_100_stays_found)
{
	for (int i = 0; i < 20; i++)
		run_seed_as(100, FLAT);
}
