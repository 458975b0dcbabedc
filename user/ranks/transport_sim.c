// SPDX-License-Identifier: GPL-3.0-or-later
/* The seeded simulation's transport (transport.h): ranks are thread groups
 * of one process, as in transport_local.c, but the network is hostile
 * within what MPI promises. Each message gets a random delay; a receiver
 * takes, among the messages whose delay has passed, a random one that is
 * the oldest of its sender and tag (MPI's only ordering guarantee); a sum
 * completes only after a random number of tests; and the communication
 * thread and the workers pause at random. The choices of a rank's
 * communication thread come from its own generator, seeded from the
 * world's seed and the rank, so they do not depend on how the ranks'
 * threads interleave; the workers' pauses share one generator. */
#include "lib/clock.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "ranks/transport.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUM_MAX 256

struct sim_msg {
	struct sim_msg *next;
	int src, tag;
	uint64_t due_ns;
	size_t len;
	char data[];
};

struct sim_world {
	pthread_mutex_t lock;
	int size;
	uint64_t seed;
	struct sim_params p;
	/* each receiver's messages in the order they were sent */
	struct sim_msg **boxes;
	uint64_t worker_rng;
	/* the sum in progress, as transport_local.c's */
	uint64_t acc[SUM_MAX], result[SUM_MAX];
	size_t n;
	int joined;
	uint64_t round, done_round;
};

struct sim_end {
	struct transport t;
	struct sim_world *w;
	uint64_t rng;
	uint64_t my_round;
	unsigned lag; /* tests of the sum out still to fail */
};

/* xorshift64*: small, and a seed of any value works once mixed. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static uint64_t mix(uint64_t seed, uint64_t salt)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + salt * 0xbf58476d1ce4e5b9ull + 1;
	next_rand(&s);
	return s ? s : 1;
}

static unsigned below(uint64_t *s, unsigned n)
{
	return n ? (unsigned)(next_rand(s) % n) : 0;
}

static void pause_us(unsigned us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

/* A pause drawn from S, sometimes. */
static void maybe_pause(const struct sim_params *p, uint64_t *s)
{
	if (below(s, 1000) < p->pause_per_mille)
		pause_us(below(s, p->max_pause_us + 1));
}

static bool sim_send(struct transport *t, int dest, int tag, const void *buf, size_t len)
{
	struct sim_end *end = (struct sim_end *)t;
	struct sim_world *w = end->w;
	if (dest < 0 || dest >= w->size)
		return false;
	maybe_pause(&w->p, &end->rng);
	struct sim_msg *m = malloc(sizeof(*m) + len);
	if (!m)
		return false;
	*m = (struct sim_msg){ .src = t->rank, .tag = tag, .len = len };
	/* a quarter go at once, so that quick exchanges happen too */
	if (below(&end->rng, 4))
		m->due_ns = now_ns() + 1000ull * below(&end->rng, w->p.max_delay_us + 1);
	else
		m->due_ns = 0;
	if (len)
		memcpy(m->data, buf, len);
	pthread_mutex_lock(&w->lock);
	struct sim_msg **pp = &w->boxes[dest];
	while (*pp)
		pp = &(*pp)->next;
	*pp = m;
	pthread_mutex_unlock(&w->lock);
	return true;
}

/* M may be taken: its delay is over and no older message of its sender and
 * tag waits before it (lock held). */
static bool eligible(struct sim_msg *box, struct sim_msg *m, uint64_t now)
{
	if (m->due_ns > now)
		return false;
	for (struct sim_msg *o = box; o != m; o = o->next)
		if (o->src == m->src && o->tag == m->tag)
			return false;
	return true;
}

static bool sim_recv(struct transport *t, int *src, int *tag, struct strbuf *buf)
{
	struct sim_end *end = (struct sim_end *)t;
	struct sim_world *w = end->w;
	maybe_pause(&w->p, &end->rng);
	uint64_t now = now_ns();
	pthread_mutex_lock(&w->lock);
	struct sim_msg **box = &w->boxes[t->rank];
	unsigned n = 0;
	for (struct sim_msg *m = *box; m; m = m->next)
		n += eligible(*box, m, now);
	struct sim_msg *got = NULL;
	if (n) {
		unsigned pick = below(&end->rng, n);
		for (struct sim_msg **pp = box; *pp; pp = &(*pp)->next) {
			if (!eligible(*box, *pp, now) || pick--)
				continue;
			got = *pp;
			*pp = got->next;
			break;
		}
	}
	pthread_mutex_unlock(&w->lock);
	if (!got)
		return false;
	*src = got->src;
	*tag = got->tag;
	sb_reset(buf);
	sb_add(buf, got->data, got->len);
	free(got);
	return true;
}

static bool sim_sum_start(struct transport *t, const uint64_t *in, size_t n)
{
	struct sim_end *end = (struct sim_end *)t;
	struct sim_world *w = end->w;
	if (n > SUM_MAX)
		return false;
	maybe_pause(&w->p, &end->rng);
	end->lag = below(&end->rng, w->p.max_sum_lag + 1);
	pthread_mutex_lock(&w->lock);
	if (w->joined == 0) {
		memset(w->acc, 0, sizeof w->acc);
		w->n = n;
		w->round++;
	}
	for (size_t i = 0; i < n; i++)
		w->acc[i] += in[i];
	end->my_round = w->round;
	if (++w->joined == w->size) {
		memcpy(w->result, w->acc, sizeof w->result);
		w->done_round = w->round;
		w->joined = 0;
	}
	pthread_mutex_unlock(&w->lock);
	return true;
}

static bool sim_sum_test(struct transport *t, uint64_t *out)
{
	struct sim_end *end = (struct sim_end *)t;
	struct sim_world *w = end->w;
	pthread_mutex_lock(&w->lock);
	bool done = end->my_round && w->done_round == end->my_round;
	if (done && end->lag > 0) {
		end->lag--;
		done = false;
	}
	if (done) {
		memcpy(out, w->result, w->n * sizeof(*out));
		end->my_round = 0;
	}
	pthread_mutex_unlock(&w->lock);
	return done;
}

static void sim_jitter(void *arg)
{
	struct sim_world *w = arg;
	pthread_mutex_lock(&w->lock);
	bool now = below(&w->worker_rng, 1000) < w->p.pause_per_mille;
	unsigned us = below(&w->worker_rng, w->p.max_pause_us + 1);
	pthread_mutex_unlock(&w->lock);
	if (now)
		pause_us(us);
}

static void describe_box(struct sim_world *w, int rank, struct strbuf *out)
{
	char line[160];
	for (struct sim_msg *m = w->boxes[rank]; m; m = m->next) {
		snprintf(line, sizeof line,
			 "  message to rank %d from rank %d, tag %d, %zu bytes%s\n", rank, m->src,
			 m->tag, m->len, m->due_ns > now_ns() ? " (delayed)" : "");
		sb_add(out, line, strlen(line));
	}
}

static void sim_describe(struct transport *t, struct strbuf *out)
{
	struct sim_world *w = ((struct sim_end *)t)->w;
	pthread_mutex_lock(&w->lock);
	describe_box(w, t->rank, out);
	pthread_mutex_unlock(&w->lock);
}

static void sim_close(struct transport *t)
{
	free(t);
}

static const struct transport_ops sim_ops = {
	.send = sim_send,
	.recv = sim_recv,
	.sum_start = sim_sum_start,
	.sum_test = sim_sum_test,
	.close = sim_close,
	.describe = sim_describe,
};

struct sim_world *sim_world_new(int size, uint64_t seed, const struct sim_params *p)
{
	struct sim_world *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	w->size = size;
	w->seed = seed;
	w->p = *p;
	w->boxes = xcalloc((size_t)size, sizeof(*w->boxes));
	w->worker_rng = mix(seed, (uint64_t)size + 1000);
	return w;
}

struct transport *sim_transport(struct sim_world *w, int rank)
{
	struct sim_end *end = xcalloc(1, sizeof(*end));
	/* sums every 2 ms: termination and the budget's windows come quickly */
	end->t = (struct transport){ .ops = &sim_ops,
				     .rank = rank,
				     .size = w->size,
				     .sum_period_ns = 2000000 };
	end->t.jitter = sim_jitter;
	end->t.jitter_arg = w;
	end->w = w;
	end->rng = mix(w->seed, (uint64_t)rank);
	return &end->t;
}

void sim_world_describe(struct sim_world *w, struct strbuf *out)
{
	pthread_mutex_lock(&w->lock);
	for (int i = 0; i < w->size; i++)
		describe_box(w, i, out);
	pthread_mutex_unlock(&w->lock);
}

void sim_world_free(struct sim_world *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->size; i++) {
		struct sim_msg *m = w->boxes[i];
		while (m) {
			struct sim_msg *next = m->next;
			free(m);
			m = next;
		}
	}
	free(w->boxes);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
