// SPDX-License-Identifier: GPL-3.0-or-later
/* The steering (see steer.h): the inputs' minimum, applied once a tick. */
#include "ctl/steer.h"
#include "engine/engine.h"
#include "lib/xalloc.h"

#include <stdatomic.h>
#include <stdlib.h>

struct steer {
	struct engine *e;
	uint64_t base_pace; /* --max-ops */
	int policy;	    /* the controller's count (0: none) */
	int ceiling;	    /* the politeness's (0: none) */
	uint64_t polite_pace;
	_Atomic int share; /* the budget's (0: none) */
	_Atomic uint64_t budget_pace;
	int applied;		/* the count last given to the engine */
	uint64_t applied_pace;	/* the pace last given */
	enum steer_bound bound; /* which input set APPLIED */
};

struct steer *steer_new(struct engine *e, uint64_t base_pace_ns)
{
	struct steer *s = xcalloc(1, sizeof *s);
	s->e = e;
	s->base_pace = base_pace_ns;
	s->applied = engine_active_threads(e);
	s->applied_pace = base_pace_ns;
	s->bound = STEER_START;
	return s;
}

void steer_free(struct steer *s)
{
	free(s);
}

void steer_policy(struct steer *s, int n)
{
	s->policy = n;
}

void steer_polite(struct steer *s, int ceiling, uint64_t pace_ns)
{
	s->ceiling = ceiling;
	s->polite_pace = pace_ns;
}

void steer_budget(struct steer *s, int share, uint64_t pace_ns)
{
	atomic_store(&s->share, share);
	atomic_store(&s->budget_pace, pace_ns);
}

int steer_budget_share(const struct steer *s)
{
	return atomic_load(&s->share);
}

/* The slowest of the paces that are set; a hold beats every pace. */
static uint64_t slowest(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int steer_apply(struct steer *s)
{
	int n = s->policy > 0 ? s->policy : s->applied;
	enum steer_bound bound = s->policy > 0 ? STEER_POLICY : s->bound;
	int share = atomic_load(&s->share);
	if (share > 0 && share < n) {
		n = share;
		bound = STEER_BUDGET;
	}
	if (s->ceiling > 0 && s->ceiling <= n) {
		n = s->ceiling;
		bound = STEER_POLITE;
	}
	uint64_t bp = atomic_load(&s->budget_pace);
	uint64_t pace =
		slowest(s->polite_pace ? s->polite_pace : s->base_pace, bp ? bp : s->base_pace);
	if (pace != s->applied_pace) {
		engine_set_pace(s->e, pace);
		s->applied_pace = pace;
	}
	if (n != s->applied || n != engine_active_threads(s->e))
		s->applied = engine_set_active(s->e, n);
	s->bound = bound;
	return s->applied;
}

int steer_threads(const struct steer *s)
{
	return s->applied;
}

enum steer_bound steer_bound(const struct steer *s)
{
	return s->bound;
}

const char *steer_bound_name(enum steer_bound b)
{
	switch (b) {
	case STEER_POLICY: return "policy";
	case STEER_POLITE: return "politeness";
	case STEER_BUDGET: return "budget";
	case STEER_START: break;
	}
	return "start";
}

int steer_polite_ceiling(const struct steer *s)
{
	return s->ceiling;
}
