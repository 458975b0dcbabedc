// SPDX-License-Identifier: GPL-3.0-or-later
/* The in-process transport: ranks are thread groups of one process, each
 * with a mailbox; sums meet in the world. For the protocol's tests without
 * mpirun (tests/unit/test_dist.c). */
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "ranks/transport.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SUM_MAX 256

struct message {
	struct message *next;
	int src, tag;
	size_t len;
	char data[];
};

struct mailbox {
	struct message *head, *tail;
};

struct local_world {
	pthread_mutex_t lock;
	int size;
	struct mailbox *boxes;
	/* The sum in progress: every rank adds to acc; the last one moves it
	 * to result. A rank starts the next only after taking this one, so
	 * one result buffer is enough. */
	uint64_t acc[SUM_MAX], result[SUM_MAX];
	size_t n;
	int joined;
	uint64_t round, done_round;
};

struct local_end {
	struct transport t;
	struct local_world *w;
	uint64_t my_round; /* the round this rank's sum joined (0: none) */
};

static bool local_send(struct transport *t, int dest, int tag, const void *buf, size_t len)
{
	struct local_world *w = ((struct local_end *)t)->w;
	if (dest < 0 || dest >= w->size)
		return false;
	struct message *m = malloc(sizeof(*m) + len);
	if (!m)
		return false;
	m->next = NULL;
	m->src = t->rank;
	m->tag = tag;
	m->len = len;
	if (len)
		memcpy(m->data, buf, len);
	pthread_mutex_lock(&w->lock);
	struct mailbox *b = &w->boxes[dest];
	if (b->tail)
		b->tail->next = m;
	else
		b->head = m;
	b->tail = m;
	pthread_mutex_unlock(&w->lock);
	return true;
}

static bool local_recv(struct transport *t, int *src, int *tag, struct strbuf *buf)
{
	struct local_world *w = ((struct local_end *)t)->w;
	pthread_mutex_lock(&w->lock);
	struct mailbox *b = &w->boxes[t->rank];
	struct message *m = b->head;
	if (m) {
		b->head = m->next;
		if (!b->head)
			b->tail = NULL;
	}
	pthread_mutex_unlock(&w->lock);
	if (!m)
		return false;
	*src = m->src;
	*tag = m->tag;
	sb_reset(buf);
	sb_add(buf, m->data, m->len);
	free(m);
	return true;
}

static bool local_sum_start(struct transport *t, const uint64_t *in, size_t n)
{
	struct local_end *end = (struct local_end *)t;
	struct local_world *w = end->w;
	if (n > SUM_MAX)
		return false;
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

static bool local_sum_test(struct transport *t, uint64_t *out)
{
	struct local_end *end = (struct local_end *)t;
	struct local_world *w = end->w;
	pthread_mutex_lock(&w->lock);
	bool done = end->my_round && w->done_round == end->my_round;
	if (done) {
		memcpy(out, w->result, w->n * sizeof(*out));
		end->my_round = 0;
	}
	pthread_mutex_unlock(&w->lock);
	return done;
}

static void local_close(struct transport *t)
{
	free(t);
}

static const struct transport_ops local_ops = {
	.send = local_send,
	.recv = local_recv,
	.sum_start = local_sum_start,
	.sum_test = local_sum_test,
	.close = local_close,
};

struct local_world *local_world_new(int size)
{
	struct local_world *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	w->size = size;
	w->boxes = xcalloc((size_t)size, sizeof(*w->boxes));
	return w;
}

struct transport *local_transport(struct local_world *w, int rank)
{
	struct local_end *end = xcalloc(1, sizeof(*end));
	end->t = (struct transport){ .ops = &local_ops, .rank = rank, .size = w->size };
	end->w = w;
	return &end->t;
}

void local_world_free(struct local_world *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->size; i++) {
		struct message *m = w->boxes[i].head;
		while (m) {
			struct message *next = m->next;
			free(m);
			m = next;
		}
	}
	free(w->boxes);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
