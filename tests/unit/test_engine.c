// SPDX-License-Identifier: GPL-3.0-or-later
/* The engine on small real trees, with knobs turned from another thread
 * while it runs (scripts/check.sh runs this binary under TSan, where it is
 * built on criterion_lite.h: Criterion's own runner cannot start there). */
#ifdef CRITERION_LITE
#include "support/criterion_lite.h"
#else
#include <criterion/criterion.h>
#endif
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/engine_int.h" /* the knobs, turned live */
#include "lib/msg.h"
#include "support/tree.h"

#define TMPL "/tmp/adaptrm-eng.XXXXXX"
static char tmpl[sizeof TMPL];

static void setup(void)
{
	msg_init("adaptrm");
	tree_scratch_new(tmpl, TMPL);
}
static void teardown(void)
{
	tree_scratch_remove(tmpl);
}

static bool remove_t(struct engine *e)
{
	int dfd = open(tmpl, O_RDONLY | O_DIRECTORY);
	struct stat st;
	cr_assert_eq(fstatat(dfd, "t", &st, AT_SYMLINK_NOFOLLOW), 0);
	bool ok = engine_remove_tree(e, dfd, "t", "t", &st);
	close(dfd);
	return ok;
}

/* A test that hangs fails, named, instead of holding the whole run. */
TestSuite(engine, .init = setup, .fini = teardown, .timeout = 120);

Test(engine, counts_parallel)
{
	tree_build(tmpl, 40, 50, 0);
	struct engine_config cfg = { .max_threads = 4, .force = true };
	struct engine *e = engine_create(&cfg, 4);
	cr_assert(remove_t(e));
	struct engine_totals t;
	engine_totals(e, &t);
	cr_assert_eq(t.files, 40 * 50);
	cr_assert_eq(t.dirs, 1 + 40 + 30);
	cr_assert_eq(t.errors, 0);
	engine_destroy(e);
	char p[4096];
	snprintf(p, sizeof p, "%s/t", tmpl);
	cr_assert_eq(access(p, F_OK), -1);
}

struct turner {
	struct engine *e;
	_Atomic int stop;
};
static void *turn_knobs(void *arg)
{
	struct turner *t = arg;
	for (int i = 0; !atomic_load(&t->stop); i++) {
		engine_set_active(t->e, 1 + i % 4);
		struct engine_knobs *k = &t->e->knobs;
		atomic_store(&k->getdents_size, (i & 1) ? 4096 : 65536);
		atomic_store(&k->dir_share, (i % 3) + 0u);
		atomic_store(&k->sort_policy, i % 3);
		usleep(200);
	}
	return NULL;
}

Test(engine, knobs_turned_while_running_parallel)
{
	for (int round = 0; round < 3; round++) {
		tree_build(tmpl, 60, 60, 0);
		struct engine_config cfg = { .max_threads = 4, .force = true };
		struct engine *e = engine_create(&cfg, 2);
		struct turner tu = { .e = e };
		pthread_t th;
		pthread_create(&th, NULL, turn_knobs, &tu);
		bool ok = remove_t(e);
		atomic_store(&tu.stop, 1);
		pthread_join(th, NULL);
		cr_assert(ok, "round %d", round);
		struct engine_totals t;
		engine_totals(e, &t);
		cr_assert_eq(t.files, 60 * 60, "round %d files %llu", round,
			     (unsigned long long)t.files);
		cr_assert_eq(t.dirs, 1 + 60 + 30);
		engine_destroy(e);
	}
}

/* An entry that cannot be removed fails the tree; its siblings still go. */
Test(engine, failure_propagates_parallel)
{
	/* A mount point cannot be removed (EBUSY), even by root; the files
	 * under it are hidden by the empty tmpfs. */
	tree_build(tmpl, 10, 10, 0);
	char p[4096];
	snprintf(p, sizeof p, "%s/t/d3", tmpl);
	if (mount("tmpfs", p, "tmpfs", 0, "size=1M") != 0)
		cr_skip_test("cannot mount tmpfs (not root?)");
	struct engine_config cfg = { .max_threads = 2, .force = true };
	struct engine *e = engine_create(&cfg, 2);
	cr_assert_not(remove_t(e));
	struct engine_totals t;
	engine_totals(e, &t);
	cr_assert_eq(t.files, 9 * 10);
	cr_assert_geq(t.errors, 1);
	engine_destroy(e);
	cr_assert_eq(access(p, F_OK), 0, "the failed directory must stay");
	snprintf(p, sizeof p, "%s/t/d4", tmpl);
	cr_assert_eq(access(p, F_OK), -1, "siblings must go");
	snprintf(p, sizeof p, "%s/t/d3", tmpl);
	umount2(p, MNT_DETACH);
}

static int nthreads(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The thread count once it is WANT, or what it is after a few seconds: a
 * joined thread may still be on its way out of the kernel (and under
 * qemu-user out of the emulator) when its join returns. */
static int nthreads_settled(int want)
{
	int n = nthreads();
	for (int i = 0; i < 5000 && n != want; i++) {
		usleep(1000);
		n = nthreads();
	}
	return n;
}

/* Worker threads start when first made active, not all at engine_create: a
 * small delete must not pay for max_threads clones. Lowering the count
 * parks workers (they stay); raising it again reuses them. */
Test(engine, workers_start_when_first_made_active)
{
	int base = nthreads();
	struct engine_config cfg = { .max_threads = 16, .force = true };
	struct engine *e = engine_create(&cfg, 2);
	cr_assert_eq(nthreads(), base + 2);
	engine_set_active(e, 5);
	cr_assert_eq(nthreads(), base + 5);
	engine_set_active(e, 1);
	cr_assert_eq(nthreads(), base + 5);
	engine_set_active(e, 3);
	cr_assert_eq(nthreads(), base + 5);
	tree_build(tmpl, 20, 20, 0);
	cr_assert(remove_t(e));
	struct engine_totals t;
	engine_totals(e, &t);
	cr_assert_eq(t.files, 20 * 20);
	cr_assert_eq(t.dirs, 1 + 20 + 30);
	engine_destroy(e);
	cr_assert_eq(nthreads_settled(base), base);
}

/* The engine counts per plan (struct plan_stats) what the controller's
 * trials compare: on tmpfs, where sharing pays and inode order is known not
 * to, a big read is work a helper could take (PLAN_SHARED), and nothing is
 * counted under a plan a trial would be asked about. */
Test(engine, plan_counters_apart)
{
	if (mount("tmpfs", tmpl, "tmpfs", 0, "size=16M") != 0)
		cr_skip_test("cannot mount tmpfs (not root?)");
	tree_build(tmpl, 1, 3000, 0);
	struct engine_config cfg = { .max_threads = 1, .force = true };
	struct engine *e = engine_create(&cfg, 1);
	bool ok = remove_t(e);
	struct engine_totals t;
	engine_totals(e, &t);
	engine_destroy(e);
	umount2(tmpl, MNT_DETACH);
	cr_assert(ok);
	cr_assert_eq(t.files, 3000);
	cr_assert_geq(t.plan[PLAN_SHARED].reads, 1);
	cr_assert_eq(t.plan[PLAN_UNSHARED].reads, 0);
	for (int p = PLAN_READDIR; p < PLAN_COUNT; p++)
		cr_assert_eq(t.plan[p].reads + t.plan[p].unlinks, 0);
}

/* -v into a pipe nobody reads, SIGPIPE ignored: the first failed
 * write of stdout stops the removing, and the rest of the tree drains
 * silently (every node freed: LeakSanitizer checks the ASan build), the
 * tree reported as not removed. */
Test(engine, verbose_into_a_closed_pipe_stops_parallel)
{
	tree_build(tmpl, 20, 200, 0);
	int p[2];
	cr_assert_eq(pipe(p), 0);
	close(p[0]);
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	dup2(p[1], STDOUT_FILENO);
	close(p[1]);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGPIPE, &ign, &old);

	struct engine_config cfg = { .max_threads = 2, .force = true, .verbose = true };
	struct engine *e = engine_create(&cfg, 2);
	bool ok = remove_t(e);
	struct engine_totals t;
	engine_totals(e, &t);
	engine_destroy(e);

	fflush(stdout);
	clearerr(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	sigaction(SIGPIPE, &old, NULL);
	cr_assert_not(ok);
	cr_assert(t.files < 1000, "%llu of 4000 files removed after the pipe closed",
		  (unsigned long long)t.files);
	cr_assert_eq(t.errors, 0);
	char path[4096];
	snprintf(path, sizeof path, "%s/t", tmpl);
	cr_assert_eq(access(path, F_OK), 0, "the tree must stay");
}
