// SPDX-License-Identifier: GPL-3.0-or-later
/* The slow-slice hand-off (see slice.h). */
#include "engine/slice.h"
#include "lib/clock.h"
#include "lib/env.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A slice whose entries took this long each, on average, is freeing data:
 * a big file's extents go in its last iput, after the directory's lock is
 * dropped (fs/namei.c, do_unlinkat), so two workers free two files at once
 * even in one directory, where small files' much shorter unlinks only
 * queue on that lock. Its rest is then worth an idle worker, however few
 * entries are left: a build directory's few big objects would otherwise
 * all go on the one worker that read them while the others wait
 * (docs/lab/log.md#2026-11-26-btrfs-and-small-trees-of-big-files). */
#define HEAVY_ENTRY_NS 100000u
/* Each suspicion in a slice that the CPU clock refutes doubles the entries
 * the next one waits for, up to this many doublings (128 entries). A look
 * costs a syscall, and a loaded machine or a tracer stretches every
 * entry's wall time: without it the syscalls per file would grow with the
 * load. A new slice, as a build directory of big objects, starts short. */
#define HEAVY_BACKOFF_MAX 5u

/* Copy entries [from, to) of ENTS (names at NAMES + name_off) into a chunk
 * of directory D for another worker; NULL if out of memory. */
struct chunk *slice_chunk(struct dnode *d, const struct sort_ent *ents, const char *names,
			  size_t from, size_t to)
{
	size_t bytes = 0;
	for (size_t i = from; i < to; i++)
		bytes += strlen(names + ents[i].name_off) + 1;
	size_t n = to - from;
	struct chunk *c = malloc(sizeof(*c) + n * sizeof(c->ents[0]) + bytes);
	if (!c)
		return NULL;
	char *dst = (char *)&c->ents[n];
	size_t off = 0;
	c->d = d;
	c->n = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		const char *name = names + ents[from + i].name_off;
		size_t len = strlen(name) + 1;
		c->ents[i] = ents[from + i];
		c->ents[i].name_off = (uint32_t)off;
		memcpy(dst + off, name, len);
		off += len;
	}
	return c;
}

/* HEAVY_ENTRY_NS, or the testing variable's value: 0 splits every slice
 * at every look, idle workers or not, so that tests reach the hand-off
 * without depending on timing. Read once. */
static uint64_t heavy_entry_ns(void)
{
	static _Atomic int64_t cached = -1;
	int64_t v = atomic_load_explicit(&cached, memory_order_relaxed);
	if (v < 0) {
		int us = env_int(ENV_HEAVY_US, -1);
		v = us < 0 ? HEAVY_ENTRY_NS : (int64_t)us * 1000;
		atomic_store_explicit(&cached, v, memory_order_relaxed);
	}
	return (uint64_t)v;
}

/* Whether the worker is alone: no other worker may run (the lane may). */
static bool alone(struct engine *e)
{
	return atomic_load_explicit(&e->knobs.active_threads, memory_order_relaxed) <= 1;
}

/* Where a heavy slice's rest goes: half to a worker waiting for work, or
 * the big files to the lane where the worker is alone and the lane is free
 * (not pacing --free-rate). */
static enum heavy_way heavy_target(struct engine *e)
{
	bool lane_free = e->lane && !e->cfg.free_rate;
	if (alone(e))
		return lane_free ? HEAVY_LANE : HEAVY_NONE;
	return engine_idle_workers(e) > 0 ? HEAVY_SHARE : HEAVY_NONE;
}


static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A look at H after DONE entries: how the rest goes. Heavy by the wall
 * clock (cheap) is only a suspicion, as a worker preempted by other load
 * looks the same; the thread's CPU time over the next HEAVY_CHECK entries
 * (a syscall, so only then) confirms it: freeing extents is the thread's
 * own work. Not on a tree found cold, where slow entries are reads and the
 * type's sharing policy decides. */
enum heavy_way slice_heavy_look(struct worker *w, struct heavy_clock *h)
{
	struct engine *e = w->e;
	uint64_t heavy = heavy_entry_ns(), now = now_ns();
	if (heavy == 0) {
		h->seen = (struct engine_slow_slice){ .forced = true,
						      .entries = (unsigned)h->done,
						      .wall_ns = (now - h->t0) / h->done };
		return alone(e) && e->lane && !e->cfg.free_rate ? HEAVY_LANE : HEAVY_SHARE;
	}
	if (!h->cpu0) {
		if (h->done >= (size_t)HEAVY_CHECK << h->refuted && now - h->t0 >= heavy * h->done &&
		    !atomic_load_explicit(&e->cold, memory_order_relaxed)) {
			h->cpu0 = thread_cpu_ns();
			h->at = h->done;
		}
		return HEAVY_NONE;
	}
	uint64_t cpu = thread_cpu_ns() - h->cpu0;
	h->cpu0 = 0;
	if (cpu >= heavy * (h->done - h->at)) {
		h->seen = (struct engine_slow_slice){ .entries = (unsigned)h->done,
						      .wall_ns = (now - h->t0) / h->done,
						      .cpu_ns = cpu / (h->done - h->at),
						      .threshold_ns = heavy };
		return heavy_target(e);
	}
	h->t0 = now; /* a lost CPU, not big files: a fresh, longer window */
	h->done = 0;
	if (h->refuted < HEAVY_BACKOFF_MAX)
		h->refuted++;
	return HEAVY_NONE;
}

/* The first slice handed on keeps what moved it for --explain: one
 * record per run, so that the explanation costs nothing per slice. */
static __attribute__((noinline, cold)) void first_heavy(struct engine *e,
							const struct engine_slow_slice *seen)
{
	if (atomic_exchange_explicit(&e->heavy_claimed, true, memory_order_relaxed))
		return;
	e->heavy_first = *seen;
	atomic_store_explicit(&e->heavy_ready, true, memory_order_release);
}

bool engine_first_slow_slice(struct engine *e, struct engine_slow_slice *out)
{
	if (!atomic_load_explicit(&e->heavy_ready, memory_order_acquire))
		return false;
	*out = e->heavy_first;
	return true;
}

/* A slice's big files go to the lane from now on (HEAVY_LANE), as SEEN
 * moved it. */
static void to_lane(struct worker *w, struct engine_slow_slice *seen)
{
	stat_add(&w->st->heavy_lanes, 1);
	seen->lane = true;
	if (!atomic_load_explicit(&w->e->heavy_claimed, memory_order_relaxed))
		first_heavy(w->e, seen);
}

/* Hand the far half of slice S's rest to another worker as a chunk. Out of
 * memory or room, the slice keeps it. */
static void split_rest(struct worker *w, struct slice *s, const struct engine_slow_slice *seen)
{
	size_t give = (s->hi - s->lo) / 2;
	if (give == 0)
		return;
	size_t from = s->reverse ? s->lo : s->hi - give;
	struct chunk *c = slice_chunk(s->d, s->ents, s->names, from, from + give);
	if (!c)
		return;
	c->plan = w->unlink_plan;
	atomic_fetch_add_explicit(&s->d->refs, 1, memory_order_relaxed);
	if (!engine_push_chunks(w->e, &c, 1)) {
		/* the slice's own reference keeps D alive */
		atomic_fetch_sub_explicit(&s->d->refs, 1, memory_order_relaxed);
		free(c);
		return;
	}
	if (s->reverse)
		s->lo += give;
	else
		s->hi -= give;
	stat_add(&w->st->heavy_splits, 1);
	if (!atomic_load_explicit(&w->e->heavy_claimed, memory_order_relaxed))
		first_heavy(w->e, seen);
}

void slice_hand_on(struct worker *w, struct slice *s, enum heavy_way way,
		   struct engine_slow_slice *seen)
{
	s->lane = way == HEAVY_LANE;
	if (way == HEAVY_SHARE)
		split_rest(w, s, seen);
	else if (way == HEAVY_LANE)
		to_lane(w, seen);
}

void slice_look(struct worker *w, struct slice *s, struct heavy_clock *h)
{
	enum heavy_way way = slice_heavy_look(w, h);
	slice_hand_on(w, s, way, &h->seen);
	if (way == HEAVY_SHARE)
		*h = (struct heavy_clock){ .t0 = now_ns() };
}
