// SPDX-License-Identifier: GPL-3.0-or-later
/* The steering: the one writer of the engine's worker count and pace. Three
 * parties have a say, each through an input of its own: the controller's
 * policy (the count it chose), the background deleter's politeness (a
 * ceiling, and a pace or a hold while others use the device), and
 * adaptrm-mpi's budget (this rank's share of the workers in flight, and of
 * --max-ops). Once per tick the face calls steer_apply, which gives the
 * engine their minimum (the slowest pace) and remembers which input bound
 * it, for --explain and the JSON time series. The budget's inputs may be
 * set from another thread (the ranks' communication thread); the others
 * come from the face's own loop. */
#ifndef ADAPTRM_CTL_STEER_H
#define ADAPTRM_CTL_STEER_H
#include <stdbool.h>
#include <stdint.h>

struct engine;

/* Which input set the count the engine was last given. */
enum steer_bound {
	STEER_START,  /* nobody has spoken yet: the engine's initial count */
	STEER_POLICY, /* the controller's choice */
	STEER_POLITE, /* the background deleter's ceiling */
	STEER_BUDGET, /* the ranks' shared budget */
};

struct steer;

/* The steering of E, starting from BASE_PACE_NS between two operations
 * (--max-ops; 0: not paced). */
struct steer *steer_new(struct engine *e, uint64_t base_pace_ns);
void steer_free(struct steer *s);

/* The policy's count (0: no word). */
void steer_policy(struct steer *s, int n);
/* The politeness: at most CEILING workers (0: no ceiling) and at least
 * PACE_NS between operations (0: the base pace; ENGINE_PACE_HOLD: none). */
void steer_polite(struct steer *s, int ceiling, uint64_t pace_ns);
/* The ranks' budget: this rank's SHARE of the workers in flight (0: none)
 * and its PACE_NS share of --max-ops (0: the base pace). Any thread. */
void steer_budget(struct steer *s, int share, uint64_t pace_ns);
/* The budget's share, as last set (0: none). */
int steer_budget_share(const struct steer *s);

/* Give the engine the inputs' minimum: the count that runs now. */
int steer_apply(struct steer *s);
/* The count last applied and which input bound it. */
int steer_threads(const struct steer *s);
enum steer_bound steer_bound(const struct steer *s);
const char *steer_bound_name(enum steer_bound b);
/* The politeness's ceiling, 0 if none. */
int steer_polite_ceiling(const struct steer *s);

#endif
