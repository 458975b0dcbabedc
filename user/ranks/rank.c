// SPDX-License-Identifier: GPL-3.0-or-later
/* One rank of a delete spread over machines: its communication thread and
 * the protocol (rank.h; docs/design.md#scale-out).
 *
 * Messages (tags), all small but WORK:
 *   STEAL   thief -> victim   "give me work"
 *   WORK    victim -> thief   a donation (engine_donate's bytes)
 *   NOWORK  victim -> thief   nothing to give: ask someone else later
 *   DONE    thief -> donor    { u64 token, u8 failed } per directory given
 *   STOP    rank 0 -> all     every operand is done
 */
#include "ranks/rank.h"
#include "cli/rm.h"
#include "ctl/steer.h"
#include "lib/clock.h"
#include "lib/msg.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "ranks/budget.h"
#include "ranks/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum tag {
	TAG_STEAL = 1,
	TAG_WORK,
	TAG_NOWORK,
	TAG_DONE,
	TAG_STOP,
	/* --from-list */
	TAG_PATHS,     /* rank 0 -> r: NUL-separated paths */
	TAG_PATHS_ACK, /* r -> rank 0: a batch taken */
	TAG_PATHS_END, /* rank 0 -> all: no more */
};

/* Batches of paths one rank may have unconsumed: the memory list mode
 * holds stays bounded however long the list. */
#define PATHS_IN_FLIGHT 4

/* The sum's counters. */
enum {
	S_STOPPED,
	S_FAILED,
	S_FILES,
	S_DIRS,
	S_ERRORS,
	S_BUSY,
	S_STEALS,
	/* the shared budget's */
	S_UNLINK_NS,
	S_UNLINKS,
	S_THREADS,
	S_MAX_THREADS,
	S_BACKLOG,
	S_WITH_WORK, /* ranks with a backlog */
	S_CLOCK_US,  /* rank 0's clock (the others add 0) */
	S_LISTED,    /* --from-list: ranks whose unlinks are all done */
	S_COUNT
};

#define BUDGET_EVERY 2 /* sums: a window of about 0.4 s */

#define SUM_PERIOD_NS (200 * 1000 * 1000ull)
#define STEAL_BACKOFF_MIN_NS (100 * 1000ull)
#define STEAL_BACKOFF_MAX_NS (20 * 1000 * 1000ull)
#define NAP_MAX_NS (1000 * 1000ull)
/* A sum waits for every rank's communication thread, which never blocks:
 * one out this long means a rank died or hangs, and the job cannot end. */
#define PEER_SILENCE_NS (60 * 1000 * 1000 * 1000ull)

/* This machine's spelling of one operand, opened when a donation under it
 * first comes. */
struct view {
	const char *arg;
	char *copy, *display;
	struct engine_root root;
	bool opened, usable;
};

struct done_item {
	int donor;
	uint64_t token;
	bool failed;
};

/* A message a main thread hands to the communication thread, or one
 * received for it. */
struct letter {
	struct letter *next;
	int peer, tag;
	size_t len;
	char data[];
};

struct rank {
	struct transport *t;
	_Atomic(struct engine *) engine;
	struct view *views;
	int nviews;

	pthread_t thread;
	atomic_bool leave;   /* the communication thread is to end */
	atomic_bool stop;    /* STOP came: engine_serve returns */
	struct steer *steer; /* where the budget's share goes (rank_attach) */
	atomic_bool done;    /* this rank is done: its sums say stopped */
	atomic_bool failed;  /* ... with an error */
	atomic_bool report;  /* say this rank's state on stderr (rank_report_state) */
	bool eager;	     /* ask for work without waiting to be idle */

	/* DONE reports queued by workers for the thread to send */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* the thread has left: rank_finish returns */
	struct done_item *out;
	size_t nout, cap_out;
	bool left;
	struct rank_totals totals; /* as of the last sum (under lock) */

	/* --from-list (under lock): letters to send, batches received, the
	 * batches each rank holds unconsumed (rank 0), and the counts */
	struct letter *outbox, *outbox_tail, *inbox, *inbox_tail;
	pthread_cond_t mail; /* a batch came, or credit, or the end */
	int *unacked;
	bool paths_end;
	atomic_bool listed; /* this rank's unlinks are done */
	bool all_listed;    /* every rank's are (a sum said) */
	uint64_t list_files, list_dirs, list_errors;

	/* the thread's own */
	struct strbuf msg, reply;
	bool asking; /* a STEAL is out */
	bool stop_sent;
	bool summing; /* a sum is out */
	uint64_t sum_started;
	uint64_t next_ask, backoff, next_sum;
	uint64_t steals;
	unsigned seed;

	/* the shared budget (budget.h) */
	bool budget_on, explain;
	uint64_t max_ops; /* --max-ops over all ranks (0: none) */
	struct budget budget;
	unsigned nsums;	  /* sums taken: the same count on every rank */
	uint64_t backlog; /* what this rank put in the sum out */
	bool busy_sent;	  /* what this rank put in the sum out as S_BUSY */
	bool summed_busy; /* this rank's part of totals.ranks_busy */
};

/* ------------------------------------------------------------------ */
/* The workers' side                                                    */

/* A directory given to this rank is done with (a worker, scan.c). */
static void remote_done(void *arg, int donor, uint64_t token, bool failed)
{
	struct rank *r = arg;
	pthread_mutex_lock(&r->lock);
	if (!try_grow(&r->out, &r->cap_out, r->nout + 1, 64))
		xalloc_die();
	r->out[r->nout++] = (struct done_item){ donor, token, failed };
	pthread_mutex_unlock(&r->lock);
}

/* ------------------------------------------------------------------ */
/* Operands as this machine spells them                                 */

static void open_view(struct view *v)
{
	v->opened = true;
	bool slash;
	const char *base;
	int pfd = rm_open_parent(v->arg, &v->copy, &base, &slash);
	if (pfd < 0 && pfd != AT_FDCWD)
		return;
	struct stat st;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)) {
		if (pfd >= 0)
			close(pfd);
		return;
	}
	v->display = rm_display_name(v->arg);
	v->root = (struct engine_root){ .pfd = pfd,
					.base = base,
					.display = v->display,
					.dev = st.st_dev,
					.ino = st.st_ino };
	v->usable = true;
}

/* The operand whose root is inode INO here. */
static const struct engine_root *find_root(struct rank *r, uint64_t ino)
{
	for (int i = 0; i < r->nviews; i++) {
		struct view *v = &r->views[i];
		if (!v->opened)
			open_view(v);
		if (v->usable && (uint64_t)v->root.ino == ino)
			return &v->root;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */

static void send_or_warn(struct rank *r, int dest, int tag, const void *buf, size_t len)
{
	if (!transport_send(r->t, dest, tag, buf, len))
		warn_errno(0, "rank %d: cannot send to rank %d", r->t->rank, dest);
}

static void on_steal(struct rank *r, struct engine *e, int src)
{
	size_t k = 0;
	if (e && !atomic_load(&r->stop))
		k = engine_donate(e, SIZE_MAX, &r->reply);
	if (k)
		send_or_warn(r, src, TAG_WORK, r->reply.buf, r->reply.len);
	else
		send_or_warn(r, src, TAG_NOWORK, NULL, 0);
}

static void on_work(struct rank *r, struct engine *e, int src)
{
	r->asking = false;
	r->backoff = STEAL_BACKOFF_MIN_NS;
	r->next_ask = 0;
	uint64_t ino;
	if (!e || !engine_donation_root(r->msg.buf, r->msg.len, &ino)) {
		warn_errno(0, "rank %d: malformed work from rank %d", r->t->rank, src);
		return;
	}
	const struct engine_root *root = find_root(r, ino);
	if (!root) {
		warn_errno(0,
			   "rank %d: no operand here is the directory (inode %llu) of rank %d's work",
			   r->t->rank, (unsigned long long)ino, src);
		engine_refuse(e, src, r->msg.buf, r->msg.len);
		return;
	}
	r->steals++;
	engine_adopt(e, src, r->msg.buf, r->msg.len, root);
}

static void on_nowork(struct rank *r)
{
	r->asking = false;
	r->next_ask = now_ns() + r->backoff;
	if (r->backoff < STEAL_BACKOFF_MAX_NS)
		r->backoff *= 2;
}

static void on_done(struct rank *r, struct engine *e, int src)
{
	const char *p = r->msg.buf, *end = p + r->msg.len;
	for (; e && end - p >= 9; p += 9) {
		uint64_t token;
		memcpy(&token, p, 8);
		if (!engine_remote_done(e, token, p[8] != 0))
			warn_errno(0, "rank %d: rank %d reported a directory never given to it",
				   r->t->rank, src);
	}
}

static struct letter *letter_new(int peer, int tag, const void *buf, size_t len)
{
	struct letter *l = xmalloc(sizeof(*l) + len);
	*l = (struct letter){ .peer = peer, .tag = tag, .len = len };
	if (len)
		memcpy(l->data, buf, len);
	return l;
}

static void append(struct letter **head, struct letter **tail, struct letter *l)
{
	if (*tail)
		(*tail)->next = l;
	else
		*head = l;
	*tail = l;
}

/* --from-list's messages, for the main thread: a batch to its inbox, a
 * credit back, the end. */
static void on_paths(struct rank *r, int src, int tag)
{
	pthread_mutex_lock(&r->lock);
	if (tag == TAG_PATHS)
		append(&r->inbox, &r->inbox_tail, letter_new(src, tag, r->msg.buf, r->msg.len));
	else if (tag == TAG_PATHS_ACK && r->unacked)
		r->unacked[src]--;
	else if (tag == TAG_PATHS_END)
		r->paths_end = true;
	pthread_cond_broadcast(&r->mail);
	pthread_mutex_unlock(&r->lock);
}

/* The letters main threads queued. True if any. */
static bool flush_outbox(struct rank *r)
{
	pthread_mutex_lock(&r->lock);
	struct letter *l = r->outbox;
	r->outbox = r->outbox_tail = NULL;
	pthread_mutex_unlock(&r->lock);
	bool any = l != NULL;
	while (l) {
		struct letter *next = l->next;
		send_or_warn(r, l->peer, l->tag, l->data, l->len);
		free(l);
		l = next;
	}
	return any;
}

/* Everything that has arrived. True if anything did. */
static bool serve_messages(struct rank *r)
{
	struct engine *e = atomic_load(&r->engine);
	bool any = false;
	int src, tag;
	while (transport_recv(r->t, &src, &tag, &r->msg)) {
		any = true;
		switch (tag) {
		case TAG_STEAL: on_steal(r, e, src); break;
		case TAG_WORK: on_work(r, e, src); break;
		case TAG_NOWORK: on_nowork(r); break;
		case TAG_DONE: on_done(r, e, src); break;
		case TAG_STOP:
			atomic_store(&r->stop, true);
			if (e)
				engine_serve_wake(e);
			break;
		case TAG_PATHS:
		case TAG_PATHS_ACK:
		case TAG_PATHS_END: on_paths(r, src, tag); break;
		default: warn_errno(0, "rank %d: unknown message %d", r->t->rank, tag);
		}
	}
	return any;
}

/* The DONE reports the workers queued, one message per donor. */
static bool flush_done(struct rank *r)
{
	pthread_mutex_lock(&r->lock);
	size_t n = r->nout;
	struct done_item *items = r->out;
	r->out = NULL;
	r->nout = r->cap_out = 0;
	pthread_mutex_unlock(&r->lock);
	for (size_t i = 0; i < n; i++) {
		if (items[i].donor < 0)
			continue; /* sent with an earlier one */
		int donor = items[i].donor;
		sb_reset(&r->reply);
		for (size_t j = i; j < n; j++) {
			if (items[j].donor != donor)
				continue;
			sb_add(&r->reply, &items[j].token, 8);
			sb_addc(&r->reply, items[j].failed ? 1 : 0);
			items[j].donor = -1;
		}
		send_or_warn(r, donor, TAG_DONE, r->reply.buf, r->reply.len);
	}
	free(items);
	return n > 0;
}

/* An idle rank asks a random peer, one request at a time, backing off while
 * the answer is no. */
static void maybe_ask(struct rank *r)
{
	struct engine *e = atomic_load(&r->engine);
	if (r->t->size < 2 || r->asking || !e || atomic_load(&r->stop) || atomic_load(&r->done))
		return;
	if (!r->eager && (now_ns() < r->next_ask || !engine_wants_work(e)))
		return;
	int victim = (int)(rand_r(&r->seed) % (unsigned)(r->t->size - 1));
	if (victim >= r->t->rank)
		victim++;
	r->asking = true;
	send_or_warn(r, victim, TAG_STEAL, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* The sums: counts for the progress line and the end                   */

/* Busy is having work in hand: a task queued or a worker at one (BACKLOG),
 * or parts of its trees given to other ranks and not done yet. A worker
 * waiting for more work does not make a rank idle while others work. */
static bool busy(struct engine *e, uint64_t backlog)
{
	return backlog > 0 || engine_remote_out(e) > 0;
}

static void start_sum(struct rank *r)
{
	uint64_t v[S_COUNT] = { 0 };
	struct engine *e = atomic_load(&r->engine);
	v[S_STOPPED] = atomic_load(&r->done);
	v[S_FAILED] = atomic_load(&r->failed);
	if (e) {
		struct engine_totals t;
		engine_totals(e, &t);
		v[S_FILES] = t.files;
		v[S_DIRS] = t.dirs;
		v[S_ERRORS] = t.errors;
	}
	v[S_STEALS] = r->steals;
	if (e) {
		struct engine_totals t;
		engine_totals(e, &t);
		v[S_UNLINK_NS] = t.unlink_ns;
		v[S_UNLINKS] = t.unlink_calls;
		v[S_THREADS] = (uint64_t)engine_active_threads(e);
		v[S_MAX_THREADS] = (uint64_t)engine_max_threads(e);
		r->backlog = v[S_BACKLOG] = engine_backlog(e);
		v[S_WITH_WORK] = r->backlog > 0;
		v[S_BUSY] = r->busy_sent = busy(e, r->backlog);
	}
	if (r->t->rank == 0)
		v[S_CLOCK_US] = now_ns() / 1000;
	v[S_LISTED] = atomic_load(&r->listed);
	if (!e) {
		pthread_mutex_lock(&r->lock);
		v[S_FILES] = r->list_files;
		v[S_DIRS] = r->list_dirs;
		v[S_ERRORS] = r->list_errors;
		pthread_mutex_unlock(&r->lock);
	}
	r->summing = transport_sum_start(r->t, v, S_COUNT);
	r->sum_started = now_ns();
}

static void apply_budget(struct rank *r, const uint64_t *v);

/* True when a sum shows every rank stopped: time to leave. */
static bool take_sum(struct rank *r)
{
	uint64_t v[S_COUNT];
	if (!transport_sum_test(r->t, v))
		return false;
	r->summing = false;
	r->next_sum = now_ns() + (r->t->sum_period_ns ? r->t->sum_period_ns : SUM_PERIOD_NS);
	pthread_mutex_lock(&r->lock);
	r->totals = (struct rank_totals){ .files = v[S_FILES],
					  .dirs = v[S_DIRS],
					  .errors = v[S_ERRORS],
					  .ranks = (uint64_t)r->t->size,
					  .ranks_busy = v[S_BUSY],
					  .steals = v[S_STEALS],
					  .sums = r->nsums + 1u,
					  .failed = v[S_FAILED] > 0 };
	r->summed_busy = r->busy_sent;
	if (v[S_LISTED] == (uint64_t)r->t->size && !r->all_listed) {
		r->all_listed = true;
		pthread_cond_broadcast(&r->mail);
	}
	pthread_mutex_unlock(&r->lock);
	if (++r->nsums % BUDGET_EVERY == 0)
		apply_budget(r, v);
	return v[S_STOPPED] == (uint64_t)r->t->size;
}

/* A window of the shared budget closed: the same step on every rank, then
 * this rank's share of the workers in flight and of --max-ops. */
static void apply_budget(struct rank *r, const uint64_t *v)
{
	struct engine *e = atomic_load(&r->engine);
	if (!e || atomic_load(&r->done))
		return;
	uint64_t pace = 0;
	if (r->max_ops)
		pace = 1000000000ull /
		       budget_ops_share(r->max_ops, r->t->size, r->backlog, v[S_WITH_WORK]);
	if (!r->budget_on) {
		steer_budget(r->steer, 0, pace);
		return;
	}
	struct budget_sample s = { .t = (double)v[S_CLOCK_US] / 1e6,
				   .ops = v[S_FILES] + v[S_DIRS],
				   .unlink_ns = v[S_UNLINK_NS],
				   .unlinks = v[S_UNLINKS],
				   .threads = v[S_THREADS],
				   .max_threads = v[S_MAX_THREADS] };
	int old = r->budget.cap;
	if (budget_step(&r->budget, &s) && r->explain && r->t->rank == 0)
		fprintf(stderr,
			"%s: budget: %d -> %d workers in flight over %d ranks (%s; unlink %.0f µs, floor %.0f µs)\n",
			program_name, old, r->budget.cap, r->t->size, budget_why_name(r->budget.why),
			r->budget.last_ns / 1e3, r->budget.floor_ns / 1e3);
	int share = budget_share(&r->budget, r->backlog, v[S_WITH_WORK]);
	steer_budget(r->steer, share > 0 ? share : steer_budget_share(r->steer), pace);
}

/* A sum out for PEER_SILENCE_NS: some rank is gone (a launcher that does not
 * end the job when one of its processes dies) or frozen. Waiting on would
 * be forever, so the job ends with an error. */
static void check_peers(struct rank *r)
{
	if (!r->t->ops->abort || now_ns() - r->sum_started < PEER_SILENCE_NS)
		return;
	warn_errno(0, "rank %d: no word from some rank for %llu s: it died or hangs; ending the job",
		   r->t->rank, (unsigned long long)(PEER_SILENCE_NS / 1000000000ull));
	r->t->ops->abort(r->t);
}

static bool sums(struct rank *r)
{
	if (r->summing) {
		if (take_sum(r))
			return true;
		if (r->summing)
			check_peers(r);
		return false;
	}
	/* once done, sum at once: the last sums end the run */
	if (atomic_load(&r->done) || now_ns() >= r->next_sum)
		start_sum(r);
	return false;
}

/* ------------------------------------------------------------------ */
/* The thread                                                           */

static void nap(uint64_t ns)
{
	struct timespec ts = { 0, (long)ns };
	nanosleep(&ts, NULL);
}

/* The state asked for by rank_report_state, as one write: the ranks'
 * reports interleave by line at worst. */
static void report_state(struct rank *r)
{
	struct strbuf sb = STRBUF_INIT;
	rank_describe(r, &sb);
	fprintf(stderr, "%s: state of %s", program_name, sb_str(&sb));
	sb_free(&sb);
}

static void *comm_main(void *arg)
{
	struct rank *r = arg;
	uint64_t idle_ns = 0;
	for (;;) {
		if (atomic_exchange(&r->report, false))
			report_state(r);
		bool busy = flush_done(r);
		busy |= flush_outbox(r);
		busy |= serve_messages(r);
		if (r->t->rank == 0 && atomic_load(&r->done) && !r->stop_sent) {
			for (int i = 1; i < r->t->size; i++)
				send_or_warn(r, i, TAG_STOP, NULL, 0);
			atomic_store(&r->stop, true);
			r->stop_sent = true;
		}
		maybe_ask(r);
		if (sums(r))
			break;
		if (atomic_load(&r->leave))
			break;
		/* poll fast while messages flow, slower (up to 1 ms) when quiet */
		idle_ns = busy ? 0 : (idle_ns ? idle_ns * 2 : 20000);
		if (idle_ns > NAP_MAX_NS)
			idle_ns = NAP_MAX_NS;
		if (idle_ns)
			nap(idle_ns);
	}
	/* the last DONE reports of a rank that stopped are none: all came back */
	pthread_mutex_lock(&r->lock);
	r->left = true;
	pthread_cond_broadcast(&r->cond);
	pthread_cond_broadcast(&r->mail);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct rank *rank_new(struct transport *t, int nfiles, char **files)
{
	struct rank *r = xcalloc(1, sizeof(*r));
	r->t = t;
	r->nviews = nfiles;
	r->views = xcalloc(nfiles ? (size_t)nfiles : 1, sizeof(*r->views));
	for (int i = 0; i < nfiles; i++)
		r->views[i].arg = files[i];
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	pthread_cond_init(&r->mail, NULL);
	if (t->rank == 0)
		r->unacked = xcalloc((size_t)t->size, sizeof(*r->unacked));
	r->backoff = STEAL_BACKOFF_MIN_NS;
	r->seed = 0x9e3779b9u * (unsigned)(t->rank + 1);
	r->totals.ranks = (uint64_t)t->size;
	budget_init(&r->budget, t->size);
	r->budget_on = true;
	int err = pthread_create(&r->thread, NULL, comm_main, r);
	if (err)
		die(err, "cannot start the communication thread");
	return r;
}

void rank_attach(struct rank *r, struct engine *e, struct steer *steer)
{
	r->steer = steer;
	engine_set_remote(e, remote_done, r);
	if (r->t->jitter)
		engine_set_jitter(e, r->t->jitter, r->t->jitter_arg);
	uint64_t pace = r->max_ops ? 1000000000ull * (uint64_t)r->t->size / r->max_ops ?: 1 : 0;
	steer_budget(steer, r->budget_on ? budget_start_share(r->t->size) : 0, pace);
	atomic_store(&r->engine, e);
}

void rank_set_budget(struct rank *r, bool on, uint64_t max_ops, bool explain)
{
	r->budget_on = on;
	r->max_ops = max_ops;
	r->explain = explain;
}

const atomic_bool *rank_stop_flag(struct rank *r)
{
	return &r->stop;
}

void rank_set_eager(struct rank *r, bool eager)
{
	r->eager = eager;
}

bool rank_finish(struct rank *r, bool ok)
{
	if (!ok)
		atomic_store(&r->failed, true);
	atomic_store(&r->done, true);
	pthread_mutex_lock(&r->lock);
	while (!r->left)
		pthread_cond_wait(&r->cond, &r->lock);
	bool all_ok = !r->totals.failed;
	pthread_mutex_unlock(&r->lock);
	return all_ok;
}

/* ------------------------------------------------------------------ */
/* --from-list: the main threads' side                                  */

void rank_send_paths(struct rank *r, int dest, const char *buf, size_t len)
{
	pthread_mutex_lock(&r->lock);
	while (r->unacked[dest] >= PATHS_IN_FLIGHT && !r->left)
		pthread_cond_wait(&r->mail, &r->lock);
	r->unacked[dest]++;
	append(&r->outbox, &r->outbox_tail, letter_new(dest, TAG_PATHS, buf, len));
	pthread_mutex_unlock(&r->lock);
}

void rank_end_paths(struct rank *r)
{
	pthread_mutex_lock(&r->lock);
	for (int i = 1; i < r->t->size; i++)
		append(&r->outbox, &r->outbox_tail, letter_new(i, TAG_PATHS_END, NULL, 0));
	pthread_mutex_unlock(&r->lock);
}

bool rank_next_paths(struct rank *r, struct strbuf *buf)
{
	pthread_mutex_lock(&r->lock);
	while (!r->inbox && !r->paths_end && !r->left)
		pthread_cond_wait(&r->mail, &r->lock);
	struct letter *l = r->inbox;
	if (l) {
		r->inbox = l->next;
		if (!r->inbox)
			r->inbox_tail = NULL;
		/* the credit goes back as the batch is taken */
		append(&r->outbox, &r->outbox_tail, letter_new(0, TAG_PATHS_ACK, NULL, 0));
	}
	pthread_mutex_unlock(&r->lock);
	if (!l)
		return false;
	sb_reset(buf);
	sb_add(buf, l->data, l->len);
	free(l);
	return true;
}

void rank_list_counts(struct rank *r, uint64_t files, uint64_t dirs, uint64_t errors)
{
	pthread_mutex_lock(&r->lock);
	r->list_files = files;
	r->list_dirs = dirs;
	r->list_errors = errors;
	pthread_mutex_unlock(&r->lock);
}

void rank_paths_done(struct rank *r, uint64_t files, uint64_t dirs, uint64_t errors)
{
	rank_list_counts(r, files, dirs, errors);
	atomic_store(&r->listed, true);
	pthread_mutex_lock(&r->lock);
	while (!r->all_listed && !r->left)
		pthread_cond_wait(&r->mail, &r->lock);
	pthread_mutex_unlock(&r->lock);
}


void rank_totals(struct rank *r, struct rank_totals *t)
{
	pthread_mutex_lock(&r->lock);
	*t = r->totals;
	bool summed = r->summed_busy;
	pthread_mutex_unlock(&r->lock);
	/* This rank's own part as of now, not as of the sum (up to 200 ms
	 * old): the progress line is drawn on this rank. */
	struct engine *e = atomic_load(&r->engine);
	if (e && t->sums && t->ranks_busy >= summed)
		t->ranks_busy = t->ranks_busy - summed + busy(e, engine_backlog(e));
}

void rank_describe(struct rank *r, struct strbuf *out)
{
	char line[512];
	struct engine *e = atomic_load(&r->engine);
	pthread_mutex_lock(&r->lock);
	size_t nout = r->nout;
	bool left = r->left;
	pthread_mutex_unlock(&r->lock);
	/* the communication thread's own fields, read racily: the thread may
	 * be stuck, and a report that is a moment stale still says where */
	snprintf(line, sizeof line,
		 "rank %d: %s; stop %d, done %d, left %d; steal request out %d, sum out %d "
		 "(%u taken); reports queued %zu; donations taken %llu\n",
		 r->t->rank,
		 !e		       ? "no engine (--from-list, or not started yet)" :
		 atomic_load(&r->done) ? "waits for the last sums" :
		 atomic_load(&r->stop) ? "stopping" :
		 r->t->rank == 0       ? "waits for its operand" :
					 "serves what it is given",
		 atomic_load(&r->stop), atomic_load(&r->done), left, r->asking, r->summing,
		 r->nsums, nout, (unsigned long long)r->steals);
	sb_add(out, line, strlen(line));
	if (e)
		engine_describe(e, out);
	if (r->t->ops->describe)
		r->t->ops->describe(r->t, out);
}

void rank_report_state(struct rank *r)
{
	atomic_store(&r->report, true);
}

void rank_free(struct rank *r)
{
	if (!r)
		return;
	atomic_store(&r->leave, true);
	pthread_join(r->thread, NULL);
	for (int i = 0; i < r->nviews; i++) {
		struct view *v = &r->views[i];
		if (v->usable && v->root.pfd >= 0)
			close(v->root.pfd);
		free(v->copy);
		free(v->display);
	}
	free(r->views);
	free(r->out);
	free(r->unacked);
	for (struct letter *l = r->inbox, *next; l; l = next) {
		next = l->next;
		free(l);
	}
	for (struct letter *l = r->outbox, *next; l; l = next) {
		next = l->next;
		free(l);
	}
	pthread_cond_destroy(&r->mail);
	sb_free(&r->msg);
	sb_free(&r->reply);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}
