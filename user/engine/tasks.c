// SPDX-License-Identifier: GPL-3.0-or-later
/* The task stack: the directories waiting to be scanned, the slices of
 * shared directories and the release tasks of directories given away, taken
 * last-in first-out (docs/design.md#the-task-stack-and-the-workers), and the
 * workers' waits on it. */
#include "engine/engine_int.h"
#include "lib/clock.h"
#include "lib/xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* A wait shorter than waking an idle worker is one the owner ends itself
 * (a chain's child waits while its parent reads the final, empty
 * getdents64): only longer waits count as time another worker could have
 * gained. */
#define WAIT_MIN_NS 50000

static uint64_t waited_long(uint64_t ns)
{
	return ns >= WAIT_MIN_NS ? ns : 0;
}

/* Room for N more tasks, and for the release task of every directory given
 * away (engine_remote_done never allocates); false if out of memory
 * (nothing pushed). */
static bool push_locked(struct engine *e, size_t n)
{
	if (!try_grow(&e->stack, &e->qcap, e->qlen + n + e->remote_out, 1024))
		return false;
	if (e->qlen == 0 && n > 0)
		e->waiting_since = now_ns();
	return true;
}

/* N tasks were pushed (qlock held): one idle worker for one, all of them
 * for more. */
static void wake_workers(struct engine *e, size_t n)
{
	if (e->idle > 0) {
		if (n == 1)
			pthread_cond_signal(&e->work_cond);
		else
			pthread_cond_broadcast(&e->work_cond);
	}
}

/* Workers that could help with a directory's next slice: those waiting
 * for work and those finishing a slice (of a shared directory; with nothing
 * queued they are next to wait). None while other tasks wait. */
unsigned engine_idle_helpers(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	unsigned n = e->qlen == 0 ? (unsigned)(e->idle + atomic_load(&e->in_chunk)) : 0;
	pthread_mutex_unlock(&e->qlock);
	return n;
}

unsigned engine_idle_workers(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	unsigned n = e->qlen == 0 ? (unsigned)e->idle : 0;
	pthread_mutex_unlock(&e->qlock);
	return n;
}

bool engine_push_chunks(struct engine *e, struct chunk **chunks, size_t n)
{
	pthread_mutex_lock(&e->qlock);
	bool ok = push_locked(e, n);
	for (size_t i = 0; ok && i < n; i++)
		e->stack[e->qlen++] = (uintptr_t)chunks[i] | TASK_CHUNK;
	if (ok)
		wake_workers(e, n);
	pthread_mutex_unlock(&e->qlock);
	return ok;
}

bool engine_push_tasks(struct engine *e, const struct subdir *nodes, size_t n)
{
	if (n == 0)
		return true;
	pthread_mutex_lock(&e->qlock);
	if (!push_locked(e, n)) {
		pthread_mutex_unlock(&e->qlock);
		return false;
	}
	/* Reversed, so that the first one found is the first one taken: with
	 * one thread the traversal order then matches readdir order. */
	for (size_t i = n; i-- > 0;)
		e->stack[e->qlen++] = (uintptr_t)nodes[i].n;
	wake_workers(e, n);
	pthread_mutex_unlock(&e->qlock);
	return true;
}

/* Workers allowed to run (qlock held): the steering's count, and those
 * running in place of workers stuck in the lane. */
static int allowed_workers(const struct engine *e)
{
	int active = atomic_load_explicit(&e->knobs.active_threads, memory_order_relaxed);
	/* Out of memory once: a serial walk from here on holds the
	 * fewest nodes (one path, depth-first) and buffers. */
	if (e->mem_short)
		active = 1;
	return active + e->lane_extra;
}

size_t engine_ag_pick(const uintptr_t *stack, size_t qlen, unsigned ag_shift, unsigned active,
		      unsigned id)
{
	size_t top = qlen - 1;
	if (!ag_shift || active < 2 || (stack[top] & (TASK_CHUNK | TASK_RELEASE)))
		return top;
	size_t low = qlen > ENGINE_AG_LOOK ? qlen - ENGINE_AG_LOOK : 0;
	for (size_t i = qlen; i-- > low;) {
		uintptr_t t = stack[i];
		if (t & (TASK_CHUNK | TASK_RELEASE))
			continue;
		const struct dnode *n = (const struct dnode *)t;
		if (n->ino && (n->ino >> ag_shift) % active == id)
			return i;
	}
	/* none of its own in reach: the top, so that no worker idles while
	 * work waits */
	return top;
}

/* The next task for W (qlock held, the stack not empty): engine_ag_pick's,
 * taken out of the stack. */
static uintptr_t take_task(struct engine *e, const struct worker *w, int active)
{
	size_t i = engine_ag_pick(e->stack, e->qlen, e->ag_shift, (unsigned)active, (unsigned)w->id);
	uintptr_t t = e->stack[i];
	memmove(&e->stack[i], &e->stack[i + 1], (e->qlen - i - 1) * sizeof(*e->stack));
	e->qlen--;
	return t;
}

uintptr_t engine_pop_task(struct worker *w)
{
	struct engine *e = w->e;
	uintptr_t n = 0;
	engine_jitter(e);
	pthread_mutex_lock(&e->qlock);
	if (w->borrowing) {
		/* the place goes back: to another held directory, else to the
		 * idle worker it stood in for */
		w->borrowing = false;
		e->borrowed--;
		if (e->held > 0)
			pthread_cond_broadcast(&e->park_cond);
		else
			pthread_cond_signal(&e->work_cond);
	}
	if (w->busy) {
		/* a task ended: it may have freed what a waiter needs */
		w->busy = false;
		e->busy--;
		e->tasks_ended++;
		if (e->mem_waiters > 0)
			pthread_cond_broadcast(&e->mem_cond);
	}
	for (;;) {
		if (e->shutdown || e->stop)
			break;
		int active = allowed_workers(e);
		if (active != e->seen_active) {
			/* the controller moved the limit: let parked workers re-check */
			e->seen_active = active;
			pthread_cond_broadcast(&e->park_cond);
		}
		if (w->id >= active) {
			/* The wakeup of a task just pushed may have reached this
			 * worker, parked by a cap lowered with nobody told (the
			 * shared budget): pass it on, or the task waits while
			 * every worker allowed to run sleeps. */
			if (e->qlen > 0 && e->idle > 0)
				pthread_cond_signal(&e->work_cond);
			pthread_cond_wait(&e->park_cond, &e->qlock);
			continue;
		}
		/* A held directory goes on before a new one starts: its
		 * listing ages while it waits, and a new one would be held
		 * too at the next lowered count. */
		if (e->qlen > 0 && e->held == 0) {
			n = take_task(e, w, active);
			if (e->qlen == 0)
				e->waited_ns += waited_long(now_ns() - e->waiting_since);
			w->busy = true;
			e->busy++;
			break;
		}
		e->idle++;
		if (e->held > 0)
			pthread_cond_broadcast(&e->park_cond); /* a held directory may go on */
		pthread_cond_wait(&e->work_cond, &e->qlock);
		e->idle--;
	}
	pthread_mutex_unlock(&e->qlock);
	return n;
}

/* A worker past the allowed count in the middle of a directory: a lowered
 * count must take effect within one request, not when the directory ends
 * (on a slow service one directory lasts seconds, and its requests in
 * flight are what the controller counts). It waits, the directory held,
 * until the count rises again or an allowed worker idles, which one does
 * at the end of its task rather than start a new directory
 * (engine_pop_task): then it goes on in that worker's place, so that no
 * more requests are in flight than allowed. Out of memory, or stopping, it
 * never waits. */
__attribute__((noinline)) void engine_hold_over(struct worker *w)
{
	struct engine *e = w->e;
	if (w->id >= e->cfg.max_threads) /* the lane's own is no worker */
		return;
	pthread_mutex_lock(&e->qlock);
	/* A place is kept while its worker idles: once the idle workers took
	 * work again (the count rose), the places are given back. */
	if (w->borrowing && e->borrowed <= e->idle) {
		pthread_mutex_unlock(&e->qlock);
		return;
	}
	if (w->borrowing) {
		w->borrowing = false;
		e->borrowed--;
	}
	e->held++;
	while (w->id >= allowed_workers(e) && !e->shutdown && !e->stop && !e->halt && !e->mem_short) {
		if (e->idle > e->borrowed) {
			w->borrowing = true;
			e->borrowed++;
			break;
		}
		/* timed: a wakeup may come from the stack's side only */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&e->park_cond, &e->qlock, &ts);
	}
	/* the last held one gone: the idle ones may take new directories */
	if (--e->held == 0 && e->qlen > 0 && e->idle > 0)
		pthread_cond_broadcast(&e->work_cond);
	pthread_mutex_unlock(&e->qlock);
}

/* Out of memory in a task. From then on one worker takes tasks (engine_pop_task:
 * mem_short), and the others park as their tasks end, releasing what those
 * tasks held. While another worker is still running a task (and not waiting
 * here itself), wait for some task to end and say to try again. With nobody
 * else at work the memory will not come back: false, and the caller fails
 * what it could not allocate for. One worker never waits (nor does the
 * caller's thread, which engine_pop_task does not count). */
__attribute__((noinline)) bool engine_wait_for_memory(struct worker *w)
{
	struct engine *e = w->e;
	bool retry = false;
	pthread_mutex_lock(&e->qlock);
	e->mem_short = true;
	if (w->busy && e->busy - 1 - e->mem_waiters > 0 && !e->stop && !e->halt) {
		uint64_t seen = e->tasks_ended;
		e->mem_waiters++;
		while (e->tasks_ended == seen && !e->stop && !e->halt && !e->shutdown)
			pthread_cond_wait(&e->mem_cond, &e->qlock);
		e->mem_waiters--;
		retry = e->tasks_ended != seen;
	}
	pthread_mutex_unlock(&e->qlock);
	return retry;
}

uint64_t engine_waited_ns(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	uint64_t ns = e->waited_ns + (e->qlen > 0 ? waited_long(now_ns() - e->waiting_since) : 0);
	pthread_mutex_unlock(&e->qlock);
	return ns;
}
