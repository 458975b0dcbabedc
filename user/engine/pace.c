/* --max-ops: the engine's unlinks and rmdirs spaced at least an interval
 * apart over all its workers, for a purge that must stay polite on a shared
 * server. One shared "next start" time, claimed lock-free: a worker takes
 * the next slot and sleeps until it comes, in steps short enough to notice
 * a stop. An idle spell earns no burst. */
#include "engine/engine_int.h"
#include "lib/clock.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PACE_STEP_NS (50 * 1000 * 1000ull)

void engine_pace_set(struct engine *e, uint64_t interval_ns)
{
	atomic_store(&e->knobs.op_interval_ns, interval_ns);
	atomic_fetch_add(&e->pace_seq, 1);
	syscall(SYS_futex, &e->pace_seq, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* Until the hold is lifted (engine_pace_set), asleep on pace_seq, which is
 * read before op_interval_ns so that a lift between the two fails the wait
 * at once. A stop is seen within a step. */
static uint64_t held(struct engine *e)
{
	for (;;) {
		if (atomic_load_explicit(&e->stop, memory_order_relaxed))
			return 0;
		unsigned seq = atomic_load(&e->pace_seq);
		uint64_t iv = atomic_load(&e->knobs.op_interval_ns);
		if (iv != ENGINE_PACE_HOLD)
			return iv;
		struct timespec step = { 0, PACE_STEP_NS };
		syscall(SYS_futex, &e->pace_seq, FUTEX_WAIT_PRIVATE, seq, &step, NULL, 0);
	}
}

void engine_pace_slow(struct engine *e, uint64_t interval_ns)
{
	/* Without worker threads, the tick that lifts a hold runs between
	 * this thread's own tasks: no hold then. */
	if (interval_ns == ENGINE_PACE_HOLD)
		interval_ns = atomic_load_explicit(&e->nstarted, memory_order_relaxed) ? held(e) : 0;
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
