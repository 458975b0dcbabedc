// SPDX-License-Identifier: GPL-3.0-or-later
/* The scale-out protocol without mpirun: ranks as thread groups of this
 * process over the in-process transport, each with its own engine
 * (user/ranks/rank.c, user/engine/steal.c). Forced steals after every
 * directory, re-steals, a failed subtree, a directory swapped under a thief,
 * and termination. Also run under TSan (scripts/check.sh). */
#ifdef CRITERION_LITE
#include "support/criterion_lite.h"
#else
#include <criterion/criterion.h>
#endif
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl/steer.h"
#include "engine/engine.h"
#include "lib/msg.h"
#include "lib/strbuf.h"
#include "ranks/rank.h"
#include "ranks/transport.h"
#include "support/cluster.h"
#include "support/tree.h"

#define TMPL "/tmp/adaptrm-dist.XXXXXX"
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

/* The trees here give each directory a subdirectory of 3 files, so that a
 * stolen subtree has a level of its own. */
enum { SUBFILES = 3 };

static bool exists(const char *rel)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", tmpl, rel);
	struct stat st;
	return lstat(p, &st) == 0;
}

/* N ranks of THREADS workers each delete TMPL/t over the plain in-process
 * transport, under the harness's watchdog (support/cluster.h). */
static void run_cluster(struct member *m, int n, int threads, bool eager)
{
	struct cluster_net net = { .local = local_world_new(n) };
	run_cluster_on(&net, tmpl, m, n, threads, eager, 100, "dist");
	local_world_free(net.local);
}

/* A test that hangs fails, named, instead of holding the whole run. */
TestSuite(dist, .init = setup, .fini = teardown, .timeout = 120);

Test(dist, forced_steals_delete_everything_once)
{
	tree_build(tmpl, 40, 20, SUBFILES);
	struct member m[4];
	run_cluster(m, 4, 2, true);
	uint64_t files = 0, dirs = 0;
	for (int i = 0; i < 4; i++) {
		cr_assert(m[i].all_ok, "rank %d", i);
		cr_assert_eq(m[i].tot.errors, 0);
		files += m[i].tot.files;
		dirs += m[i].tot.dirs;
		/* every rank leaves with the same sum */
		cr_assert_eq(m[i].sum.files, 40 * 23);
		cr_assert_eq(m[i].sum.dirs, 1 + 40 * 2 + 30);
	}
	cr_assert_eq(files, 40 * 23);
	cr_assert_eq(dirs, 1 + 40 * 2 + 30);
	cr_assert_geq(m[0].sum.steals, 1, "nothing was stolen");
	cr_assert_not(exists("t"));
}

/* A thief's subtree stolen again: the reports go back along the chain. */
Test(dist, re_steals_report_back_along_the_chain)
{
	uint64_t given_on = 0;
	for (int round = 0; round < 10 && !given_on; round++) {
		tree_build(tmpl, 40, 5, SUBFILES);
		struct member m[4];
		run_cluster(m, 4, 1, true);
		for (int i = 0; i < 4; i++) {
			cr_assert(m[i].all_ok, "round %d rank %d", round, i);
			given_on += m[i].given_on;
		}
		cr_assert_eq(m[0].sum.files, 40 * 8);
		cr_assert_not(exists("t"));
	}
	cr_assert_geq(given_on, 1, "no directory was given on in 10 rounds");
}

/* One big directory, nothing else to steal: slices of its names go to the
 * other ranks (tmpfs: sharing a directory pays there). */
Test(dist, a_flat_directory_is_shared_in_slices)
{
	uint64_t elsewhere = 0;
	for (int round = 0; round < 10 && !elsewhere; round++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/t", tmpl);
		cr_assert_eq(mkdir(p, 0755), 0);
		for (int f = 0; f < 20000; f++) {
			snprintf(p, sizeof p, "%s/t/f%05d", tmpl, f);
			tree_touch(p);
		}
		struct member m[3];
		run_cluster(m, 3, 2, true);
		for (int i = 0; i < 3; i++) {
			cr_assert(m[i].all_ok, "round %d rank %d", round, i);
			if (i > 0)
				elsewhere += m[i].tot.files;
		}
		cr_assert_eq(m[0].sum.files, 20000);
		cr_assert_not(exists("t"));
	}
	cr_assert_geq(elsewhere, 1, "no slice went to another rank in 10 rounds");
}

Test(dist, idle_ranks_steal_and_terminate)
{
	for (int round = 0; round < 3; round++) {
		tree_build(tmpl, 30, 30, SUBFILES);
		struct member m[3];
		run_cluster(m, 3, 1, false);
		for (int i = 0; i < 3; i++)
			cr_assert(m[i].all_ok, "round %d rank %d", round, i);
		cr_assert_eq(m[0].sum.files, 30 * 33);
		cr_assert_not(exists("t"));
	}
}

Test(dist, a_failed_subtree_fails_every_rank_and_keeps_ancestors)
{
	if (geteuid() != 0)
		return; /* needs a mount point inside the tree */
	tree_build(tmpl, 20, 10, SUBFILES);
	char p[4096];
	snprintf(p, sizeof p, "%s/t/d3", tmpl);
	cr_assert_eq(mount("none", p, "tmpfs", 0, "size=1m"), 0);
	struct member m[4];
	run_cluster(m, 4, 2, true);
	for (int i = 0; i < 4; i++)
		cr_assert_not(m[i].all_ok, "rank %d said all went well", i);
	cr_assert(exists("t"));
	cr_assert(exists("t/d3"));
	cr_assert_not(exists("t/d4"));
	cr_assert_not(exists("t/chain"));
}

/* ------------------------------------------------------------------ */
/* The thief's checks, with donations made by hand                     */

struct reported {
	pthread_mutex_t lock;
	int n;
	uint64_t token;
	bool failed;
};

static void on_done(void *arg, int donor, uint64_t token, bool failed)
{
	struct reported *r = arg;
	pthread_mutex_lock(&r->lock);
	r->n++;
	r->token = token;
	r->failed = failed;
	pthread_mutex_unlock(&r->lock);
}

static uint64_t ino_of(const char *rel)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", tmpl, rel);
	struct stat st;
	cr_assert_eq(lstat(p, &st), 0, "%s", p);
	return st.st_ino;
}

static void put_name(struct strbuf *sb, uint64_t ino, const char *name)
{
	uint16_t len = (uint16_t)strlen(name);
	sb_add(sb, &ino, 8);
	sb_add(sb, &len, 2);
	sb_add(sb, name, len);
}

/* A donation of TMPL/t/a/b (inode B_INO) under the root TMPL/t, the way
 * down through a (inode A_INO). The format is steal.c's. */
static void donation(struct strbuf *sb, uint64_t a_ino, uint64_t b_ino)
{
	uint32_t head[4] = { 0x31736461u, 1, 1, 0 };
	uint64_t root = ino_of("t");
	sb_add(sb, head, sizeof head);
	sb_add(sb, &root, 8);
	put_name(sb, a_ino, "a");
	uint64_t token = 42;
	sb_add(sb, &token, 8);
	put_name(sb, b_ino, "b");
}

struct server {
	struct engine *e;
	atomic_bool stop;
};
static void *serve_main(void *arg)
{
	struct server *s = arg;
	engine_serve(s->e, &s->stop);
	return NULL;
}

/* An engine serving on its own thread, as a rank's, rooted at "t" in the
 * test's directory; its reports go to REP. */
struct serving {
	char base[4096];
	int pfd;
	struct engine_root root;
	struct server s;
	pthread_t th;
};

static void serving_start(struct serving *v, struct reported *rep)
{
	snprintf(v->base, sizeof v->base, "%s/t", tmpl);
	v->pfd = open(tmpl, O_PATH | O_DIRECTORY);
	struct stat st;
	cr_assert_eq(fstatat(v->pfd, "t", &st, AT_SYMLINK_NOFOLLOW), 0);
	v->root = (struct engine_root){ .pfd = v->pfd,
					.base = "t",
					.display = v->base,
					.dev = st.st_dev,
					.ino = st.st_ino };
	struct engine_config cfg = { .max_threads = 2, .force = true };
	v->s.e = engine_create(&cfg, 2);
	atomic_init(&v->s.stop, false);
	engine_set_remote(v->s.e, on_done, rep);
	pthread_create(&v->th, NULL, serve_main, &v->s);
}

static void serving_stop(struct serving *v)
{
	atomic_store(&v->s.stop, true);
	pthread_join(v->th, NULL);
	engine_destroy(v->s.e);
	close(v->pfd);
}

static bool reports_reach(struct reported *rep, int n)
{
	for (int i = 0; i < 10000; i++) {
		pthread_mutex_lock(&rep->lock);
		int got = rep->n;
		pthread_mutex_unlock(&rep->lock);
		if (got >= n)
			return true;
		usleep(1000);
	}
	return false;
}

/* Adopt MSG in a serving engine; wait for its one report. */
static void adopt(const struct strbuf *msg, struct reported *rep, bool expect_adopted)
{
	struct serving v;
	serving_start(&v, rep);
	cr_assert_eq(engine_adopt(v.s.e, 1, msg->buf, msg->len, &v.root), expect_adopted);
	reports_reach(rep, 1);
	serving_stop(&v);
}

static void build_ab(void)
{
	char p[4096];
	snprintf(p, sizeof p, "mkdir -p '%s/t/a/b/c' '%s/elsewhere/b'", tmpl, tmpl);
	cr_assert_eq(system(p), 0);
	snprintf(p, sizeof p, "%s/t/a/b/c/f", tmpl);
	tree_touch(p);
	snprintf(p, sizeof p, "%s/elsewhere/b/keep", tmpl);
	tree_touch(p);
}

/* t/a/b is moved away (to "moved") and another directory takes its name. */
static void swap_b(void)
{
	char from[4096], to[4096];
	snprintf(from, sizeof from, "%s/t/a/b", tmpl);
	snprintf(to, sizeof to, "%s/moved", tmpl);
	cr_assert_eq(rename(from, to), 0);
	snprintf(from, sizeof from, "%s/elsewhere/b", tmpl);
	snprintf(to, sizeof to, "%s/t/a/b", tmpl);
	cr_assert_eq(rename(from, to), 0);
}

/* A slice of names in TMPL/t/a/b (inode B_INO), the way through a. */
static void slice(struct strbuf *sb, uint64_t a_ino, uint64_t b_ino, const char *const *names)
{
	uint32_t n = 0;
	while (names[n])
		n++;
	uint32_t head[4] = { 0x31736461u, n, 2, 1 };
	uint64_t root = ino_of("t"), token = 43;
	sb_add(sb, head, sizeof head);
	sb_add(sb, &root, 8);
	put_name(sb, a_ino, "a");
	put_name(sb, b_ino, "b");
	sb_add(sb, &token, 8);
	for (uint32_t i = 0; i < n; i++) {
		sb_addc(sb, DT_REG);
		put_name(sb, 0, names[i]);
	}
}

Test(dist, a_slice_of_names_is_unlinked_in_the_verified_directory_only)
{
	build_ab();
	char p[4096];
	snprintf(p, sizeof p, "%s/t/a/b/x", tmpl);
	tree_touch(p);
	snprintf(p, sizeof p, "%s/t/a/b/y", tmpl);
	tree_touch(p);
	const char *names[] = { "x", "y", NULL };
	struct strbuf msg = STRBUF_INIT;
	slice(&msg, ino_of("t/a"), ino_of("t/a/b"), names);
	struct reported rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	adopt(&msg, &rep, true);
	cr_assert_eq(rep.n, 1);
	cr_assert_eq(rep.token, 43);
	cr_assert_not(rep.failed);
	cr_assert_not(exists("t/a/b/x"));
	cr_assert_not(exists("t/a/b/y"));
	cr_assert(exists("t/a/b/c/f"), "more than the slice went");
	/* the same slice into a directory swapped for another: refused */
	sb_reset(&msg);
	slice(&msg, ino_of("t/a"), ino_of("t/a/b"), names);
	swap_b();
	snprintf(p, sizeof p, "%s/t/a/b/x", tmpl);
	tree_touch(p);
	rep.n = 0;
	adopt(&msg, &rep, true);
	cr_assert_eq(rep.n, 1);
	cr_assert(rep.failed, "a slice went into a swapped directory");
	cr_assert(exists("t/a/b/x"));
	cr_assert(exists("t/a/b/keep"));
	sb_free(&msg);
}

Test(dist, a_thief_empties_what_it_is_given_and_leaves_the_directory_to_its_donor)
{
	build_ab();
	struct strbuf msg = STRBUF_INIT;
	donation(&msg, ino_of("t/a"), ino_of("t/a/b"));
	struct reported rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	adopt(&msg, &rep, true);
	cr_assert_eq(rep.n, 1);
	cr_assert_eq(rep.token, 42);
	cr_assert_not(rep.failed);
	cr_assert(exists("t/a/b"), "the thief removed the directory itself");
	cr_assert_not(exists("t/a/b/c"));
	sb_free(&msg);
}

Test(dist, a_directory_swapped_under_a_thief_is_refused)
{
	build_ab();
	struct strbuf msg = STRBUF_INIT;
	donation(&msg, ino_of("t/a"), ino_of("t/a/b"));
	swap_b();
	struct reported rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	adopt(&msg, &rep, true);
	cr_assert_eq(rep.n, 1);
	cr_assert(rep.failed, "a swapped directory was not refused");
	cr_assert(exists("t/a/b/keep"), "the impostor was emptied");
	cr_assert(exists("moved/c/f"));
	sb_free(&msg);
}

Test(dist, a_symlink_on_the_way_down_is_refused)
{
	build_ab();
	struct strbuf msg = STRBUF_INIT;
	donation(&msg, ino_of("t/a"), ino_of("t/a/b"));
	/* a becomes a symlink to a directory whose b has the same inode */
	char from[4096], to[4096];
	snprintf(from, sizeof from, "%s/t/a", tmpl);
	snprintf(to, sizeof to, "%s/real", tmpl);
	cr_assert_eq(rename(from, to), 0);
	cr_assert_eq(symlink(to, from), 0);
	struct reported rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	adopt(&msg, &rep, true);
	cr_assert_eq(rep.n, 1);
	cr_assert(rep.failed, "a symlink on the way was followed");
	cr_assert(exists("real/b/c/f"));
	sb_free(&msg);
}

Test(dist, a_malformed_donation_is_refused_whole)
{
	build_ab();
	struct strbuf msg = STRBUF_INIT;
	donation(&msg, ino_of("t/a"), ino_of("t/a/b"));
	/* the given directory's name ends in a slash; then a cut message */
	struct strbuf bad = STRBUF_INIT;
	sb_add(&bad, msg.buf, msg.len);
	bad.buf[msg.len - 1] = '/';
	struct reported rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	char base[4096];
	snprintf(base, sizeof base, "%s/t", tmpl);
	struct engine_root root = { .pfd = AT_FDCWD, .base = base, .display = base };
	struct engine_config cfg = { .max_threads = 1, .force = true };
	struct engine *e = engine_create(&cfg, 1);
	engine_set_remote(e, on_done, &rep);
	cr_assert_not(engine_adopt(e, 1, bad.buf, bad.len, &root));
	cr_assert_not(engine_adopt(e, 1, bad.buf, bad.len - 3, &root));
	cr_assert_eq(rep.n, 0);
	engine_destroy(e);
	cr_assert(exists("t/a/b/c/f"));
	sb_free(&msg);
	sb_free(&bad);
}

/* Until every worker of E waits for a task (none running one, none parked
 * above the limit): false if that does not happen within about 10 s. */
static bool all_idle(struct engine *e)
{
	for (int i = 0; i < 10000; i++) {
		if (engine_backlog(e) == 0)
			return true;
		usleep(1000);
	}
	return false;
}

/* Until REP has N reports: false if they do not come within about 10 s. */
/* The shared budget lowers a rank's cap to one worker while every worker
 * waits (the rank gave all its work away); then one task comes (a
 * directory's report, a donation). The wakeup may reach the worker the cap
 * now parks: it must pass it on to the one allowed to run, or the task
 * waits forever with everyone asleep. Which waiter a wakeup reaches is the
 * scheduler's choice, so the test sets the stage many times; with the
 * hand-off every round ends, whichever worker wakes. */
Test(dist, a_task_pushed_while_the_cap_parks_its_waker_still_runs)
{
	build_ab();
	char p[4096];
	struct strbuf msg = STRBUF_INIT;
	donation(&msg, ino_of("t/a"), ino_of("t/a/b"));
	struct reported rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct serving v;
	serving_start(&v, &rep);
	int round;
	bool idle = true, ran = true;
	for (round = 0; round < 200; round++) {
		if (round > 0) {
			snprintf(p, sizeof p, "%s/t/a/b/c", tmpl);
			cr_assert_eq(mkdir(p, 0755), 0);
			snprintf(p, sizeof p, "%s/t/a/b/c/f", tmpl);
			tree_touch(p);
		}
		idle = all_idle(v.s.e);
		engine_set_active(v.s.e, 1); /* as the budget's share does: nobody told */
		ran = idle && engine_adopt(v.s.e, 1, msg.buf, msg.len, &v.root) &&
		      reports_reach(&rep, round + 1);
		engine_set_active(v.s.e, 2); /* the parked worker back among the waiting */
		if (!ran)
			break;
	}
	serving_stop(&v);
	sb_free(&msg);
	cr_assert(idle, "round %d: the workers never all waited", round);
	cr_assert(ran, "round %d: the task was never run", round);
	cr_assert_not(rep.failed);
	cr_assert_not(exists("t/a/b/c"));
}
