// SPDX-License-Identifier: GPL-3.0-or-later
/* Ranks as thread groups of the test's process, each with its own engine,
 * deleting TOP/t together over an in-process transport (the plain one or
 * the seeded simulation's), under a watchdog: a run that does not end
 * fails with each rank's state (what it waits for, its queues, the
 * messages not yet taken) instead of hanging. Shared by the ranks' tests
 * and the simulation. Include it after Criterion and support/tree.h. */
#ifndef TESTS_SUPPORT_CLUSTER_H
#define TESTS_SUPPORT_CLUSTER_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctl/steer.h"
#include "engine/engine.h"
#include "lib/strbuf.h"
#include "ranks/rank.h"
#include "ranks/transport.h"

#define CLUSTER_MAX_RANKS 8

/* One rank: its engine, and rank 0's operand or the serving. */
struct member {
	struct transport *t;
	struct rank *r;
	const char *top;
	char operand[4096];
	int threads;
	bool eager;
	bool ok, all_ok;
	uint64_t given_on;
	struct engine_totals tot;
	struct rank_totals sum;
	/* the watchdog may describe R while this is set (under lock) */
	pthread_mutex_t *lock;
	bool describable;
};

static inline void *cluster_member_main(void *arg)
{
	struct member *m = arg;
	char *files[1] = { m->operand };
	struct rank *r = rank_new(m->t, 1, files);
	rank_set_eager(r, m->eager);
	struct engine_config cfg = { .max_threads = m->threads, .force = true };
	struct engine *e = engine_create(&cfg, m->threads);
	/* The rm face's loop in small: the budget's share reaches the engine
	 * through the steering, applied every few milliseconds. */
	struct steer *steer = steer_new(e, 0);
	rank_attach(r, e, steer);
	pthread_mutex_lock(m->lock);
	m->r = r;
	m->describable = true;
	pthread_mutex_unlock(m->lock);
	if (m->t->rank == 0) {
		int dfd = open(m->top, O_RDONLY | O_DIRECTORY);
		struct stat st;
		cr_assert_eq(fstatat(dfd, "t", &st, AT_SYMLINK_NOFOLLOW), 0);
		m->ok = engine_begin_tree(e, dfd, "t", m->operand, &st);
		while (m->ok && !engine_wait(e, 10))
			steer_apply(steer);
		m->ok = m->ok && engine_end_tree(e);
		close(dfd);
	} else {
		engine_begin_serve(e, rank_stop_flag(r));
		while (!engine_wait(e, 10))
			steer_apply(steer);
		engine_end_serve(e);
		m->ok = true;
	}
	engine_totals(e, &m->tot);
	m->given_on = engine_given_on(e);
	if (m->tot.errors)
		m->ok = false;
	m->all_ok = rank_finish(r, m->ok);
	rank_totals(r, &m->sum);
	pthread_mutex_lock(m->lock);
	m->describable = false;
	pthread_mutex_unlock(m->lock);
	rank_free(r);
	steer_free(steer);
	engine_destroy(e);
	return NULL;
}

/* The transports of a run: the plain in-process one, or the simulation's
 * from SIM (not NULL). */
struct cluster_net {
	struct local_world *local;
	struct sim_world *sim;
};

/* The report of a run that did not end within its time. */
static inline void cluster_report(struct member *m, int n, pthread_mutex_t *lock, struct strbuf *out)
{
	pthread_mutex_lock(lock);
	for (int i = 0; i < n; i++) {
		if (m[i].describable) {
			rank_describe(m[i].r, out);
		} else {
			char line[96];
			snprintf(line, sizeof line, "rank %d: not running (%s)\n", i,
				 m[i].r ? "ended" : "not started");
			sb_add(out, line, strlen(line));
		}
	}
	pthread_mutex_unlock(lock);
}

/* N ranks of THREADS workers each delete TOP/t over NET; rank R > 0 spells
 * the operand as TOP/../NAME/t (its own spelling of the same tree). A run
 * not over within WATCHDOG_S seconds fails with every rank's state, and
 * WHAT (the seed, for the simulation). */
static inline void run_cluster_on(struct cluster_net *net, const char *top, struct member *m, int n,
				  int threads, bool eager, unsigned watchdog_s, const char *what)
{
	pthread_t th[CLUSTER_MAX_RANKS];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const char *name = strrchr(top, '/') + 1;
	cr_assert_leq(n, CLUSTER_MAX_RANKS);
	for (int i = 0; i < n; i++) {
		m[i] = (struct member){ .t = net->sim ? sim_transport(net->sim, i) :
							local_transport(net->local, i),
					.top = top,
					.threads = threads,
					.eager = eager,
					.lock = &lock };
		if (i == 0)
			snprintf(m[i].operand, sizeof m[i].operand, "%s/t", top);
		else
			snprintf(m[i].operand, sizeof m[i].operand, "%s/../%s/t", top, name);
	}
	for (int i = 0; i < n; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, cluster_member_main, &m[i]), 0);
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += watchdog_s;
	for (int i = 0; i < n; i++) {
		if (pthread_timedjoin_np(th[i], NULL, &deadline) == ETIMEDOUT) {
			struct strbuf sb = STRBUF_INIT;
			cluster_report(m, n, &lock, &sb);
			/* the stuck threads stay: the test's process ends with
			 * the failure */
			cr_assert_fail("%s: the ranks did not end within %u s; their state:\n%s",
				       what, watchdog_s, sb_str(&sb));
		}
		transport_close(m[i].t);
	}
}

#endif
