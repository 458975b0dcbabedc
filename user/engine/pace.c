// SPDX-License-Identifier: GPL-3.0-or-later
/* --max-ops: the engine's unlinks and rmdirs spaced at least an interval
 * apart over all its workers, for a purge that must stay polite on a shared
 * server. One shared "next start" time, claimed lock-free: a worker takes
 * the next slot and sleeps until it comes, in steps short enough to notice
 * a stop. An idle spell earns no burst. */
#include "engine/engine_int.h"
#include "lib/clock.h"

#include <time.h>

#define PACE_STEP_NS (50 * 1000 * 1000ull)
/* A held worker looks this often: a hold lifted for a short burst must be
 * seen within it. */
#define PACE_HOLD_STEP_NS (500 * 1000ull)

void engine_pace_slow(struct engine *e, uint64_t interval_ns)
{
	while (interval_ns == ENGINE_PACE_HOLD) {
		/* Without worker threads, the tick that lifts a hold runs
		 * between this thread's own tasks: no hold then. */
		if (atomic_load_explicit(&e->stop, memory_order_relaxed) ||
		    !atomic_load_explicit(&e->nstarted, memory_order_relaxed))
			return;
		nanosleep(&(struct timespec){ 0, PACE_HOLD_STEP_NS }, NULL);
		interval_ns = atomic_load_explicit(&e->knobs.op_interval_ns, memory_order_relaxed);
	}
	if (!interval_ns)
		return;
	uint64_t now = now_ns();
	uint64_t next = atomic_load_explicit(&e->op_next, memory_order_relaxed), start;
	do {
		start = next > now ? next : now;
	} while (!atomic_compare_exchange_weak_explicit(&e->op_next, &next, start + interval_ns,
							memory_order_relaxed, memory_order_relaxed));
	while (start > now && !atomic_load_explicit(&e->stop, memory_order_relaxed)) {
		uint64_t wait = start - now < PACE_STEP_NS ? start - now : PACE_STEP_NS;
		nanosleep(&(struct timespec){ (time_t)(wait / 1000000000u),
					      (long)(wait % 1000000000u) },
			  NULL);
		now = now_ns();
	}
}
