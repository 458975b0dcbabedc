// SPDX-License-Identifier: GPL-3.0-or-later
/* Listed paths dealt to threads by parent directory (pathlist.h): each
 * thread has a byte ring of length-prefixed paths that the reader fills and
 * blocks on when full, so memory stays bounded by the rings and the longest
 * path, whatever the list's length. */
#include "lib/xalloc.h"
#include "listdel/pathlist.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RING_BYTES (256u << 10) /* per thread: ~4,000 paths of 60 bytes */

struct ring {
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	char *buf;
	size_t cap, head, used;
	bool closed;
};

struct worker {
	struct ring q;
	struct pathdel del;
	pthread_t tid;
	bool started;
	char *path; /* the path taken off the ring */
	size_t path_cap;
};

struct pathdel_pool {
	unsigned n;
	uint64_t div;
	struct worker *w;
	struct pathdel inline_del; /* one thread: no ring, no thread */
};

static void ring_copy_in(struct ring *q, size_t at, const void *src, size_t n)
{
	at %= q->cap;
	size_t first = q->cap - at < n ? q->cap - at : n;
	memcpy(q->buf + at, src, first);
	memcpy(q->buf, (const char *)src + first, n - first);
}

static void ring_copy_out(const struct ring *q, size_t at, void *dst, size_t n)
{
	at %= q->cap;
	size_t first = q->cap - at < n ? q->cap - at : n;
	memcpy(dst, q->buf + at, first);
	memcpy((char *)dst + first, q->buf, n - first);
}

/* Queue a path; waits while the ring is full. A path longer than the ring
 * waits for it to empty, then grows it. */
static void ring_put(struct ring *q, const char *path, size_t len)
{
	size_t need = sizeof(len) + len;
	pthread_mutex_lock(&q->lock);
	while (q->used > 0 && q->used + need > q->cap)
		pthread_cond_wait(&q->nonfull, &q->lock);
	if (need > q->cap) {
		free(q->buf);
		q->cap = 2 * need;
		q->buf = xmalloc(q->cap);
		q->head = 0;
	}
	ring_copy_in(q, q->head + q->used, &len, sizeof(len));
	ring_copy_in(q, q->head + q->used + sizeof(len), path, len);
	bool was_empty = q->used == 0;
	q->used += need;
	if (was_empty)
		pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

/* Take the next path into W's buffer: its length, or -1 once the ring is
 * closed and empty. */
static long ring_take(struct worker *w)
{
	struct ring *q = &w->q;
	pthread_mutex_lock(&q->lock);
	while (q->used == 0 && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	if (q->used == 0) {
		pthread_mutex_unlock(&q->lock);
		return -1;
	}
	size_t len;
	ring_copy_out(q, q->head, &len, sizeof(len));
	if (len + 1 > w->path_cap) {
		w->path_cap = 2 * (len + 1);
		w->path = xrealloc(w->path, w->path_cap);
	}
	ring_copy_out(q, q->head + sizeof(len), w->path, len);
	w->path[len] = '\0';
	size_t need = sizeof(len) + len;
	q->head = (q->head + need) % q->cap;
	q->used -= need;
	pthread_cond_signal(&q->nonfull);
	pthread_mutex_unlock(&q->lock);
	return (long)len;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	long len;
	while ((len = ring_take(w)) >= 0)
		pathdel_unlink(&w->del, w->path, (size_t)len);
	return NULL;
}

struct pathdel_pool *pathdel_pool_new(unsigned nthreads, uint64_t hash_div,
				      const struct pathdel_opts *o, struct prune_spool *spool)
{
	struct pathdel_pool *p = xcalloc(1, sizeof(*p));
	p->n = nthreads ? nthreads : 1;
	p->div = hash_div ? hash_div : 1;
	if (p->n == 1) {
		pathdel_init(&p->inline_del, o, spool);
		return p;
	}
	p->w = xcalloc(p->n, sizeof(*p->w));
	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];
		pthread_mutex_init(&w->q.lock, NULL);
		pthread_cond_init(&w->q.nonempty, NULL);
		pthread_cond_init(&w->q.nonfull, NULL);
		w->q.cap = RING_BYTES;
		w->q.buf = xmalloc(w->q.cap);
		pathdel_init(&w->del, o, spool);
		w->started = pthread_create(&w->tid, NULL, worker_main, w) == 0;
		if (!w->started) /* no thread: its paths go inline, by the caller */
			w->q.closed = true;
	}
	return p;
}

void pathdel_pool_add(struct pathdel_pool *p, const char *path, size_t len)
{
	if (p->n == 1) {
		pathdel_unlink(&p->inline_del, path, len);
		return;
	}
	struct worker *w = &p->w[(pathlist_parent_hash(path, len) / p->div) % p->n];
	if (!w->started)
		pathdel_unlink(&w->del, path, len);
	else
		ring_put(&w->q, path, len);
}

static void add_counts(struct pathdel_counts *to, const struct pathdel_counts *from)
{
	to->files += from->files;
	to->dirs += from->dirs;
	to->listed_dirs += from->listed_dirs;
	to->errors += from->errors;
}

void pathdel_pool_finish(struct pathdel_pool *p, struct pathdel_counts *n)
{
	if (p->n == 1) {
		add_counts(n, &p->inline_del.n);
		pathdel_destroy(&p->inline_del);
		free(p);
		return;
	}
	for (unsigned i = 0; i < p->n; i++) {
		struct ring *q = &p->w[i].q;
		pthread_mutex_lock(&q->lock);
		q->closed = true;
		pthread_cond_signal(&q->nonempty);
		pthread_mutex_unlock(&q->lock);
	}
	for (unsigned i = 0; i < p->n; i++) {
		struct worker *w = &p->w[i];
		if (w->started)
			pthread_join(w->tid, NULL);
		add_counts(n, &w->del.n);
		pathdel_destroy(&w->del);
		pthread_mutex_destroy(&w->q.lock);
		pthread_cond_destroy(&w->q.nonempty);
		pthread_cond_destroy(&w->q.nonfull);
		free(w->q.buf);
		free(w->path);
	}
	free(p->w);
	free(p);
}
