// SPDX-License-Identifier: GPL-3.0-or-later
/* The budget the ranks share (docs/design.md#scale-out): every rank's
 * controller tunes its own node, but all of them deal with one server. Each
 * second the ranks sum their counts (rank.c), and every rank applies this
 * same rule to the same sums, so all compute the same total of workers in
 * flight without a coordinator: grow while the total throughput grows and
 * the unlink latency holds; cut when the latency rises without gain (the
 * server's knee: more in flight only queue there). A rank takes a share by
 * its backlog: alike among the ranks with work. */
#ifndef ADAPTRM_BUDGET_H
#define ADAPTRM_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* Counts since the start, summed over the ranks. */
struct budget_sample {
	double t;		       /* seconds (rank 0's clock) */
	uint64_t ops;		       /* files and directories removed */
	uint64_t unlink_ns, unlinks;   /* timed unlinks and their time */
	uint64_t threads, max_threads; /* workers running, and allowed */
};

enum budget_why {
	BUDGET_HOLD,
	BUDGET_START, /* the first window: what the controllers run */
	BUDGET_GROW,  /* throughput grew, latency held */
	BUDGET_CUT,   /* latency rose without gain */
};

struct budget {
	int nranks;
	int cap;	  /* workers in flight over all ranks (0: no window yet) */
	double floor_ns;  /* the lowest mean unlink latency of a window */
	double last_ns;	  /* the last window's */
	double prev_rate; /* the last window's entries per second */
	struct budget_sample last;
	bool have_last;
	bool probed; /* cut once: grow one a rank at a time from then on */
	enum budget_why why;
};

/* Workers in flight over all ranks until the first window closes (at
 * least one a rank): low enough that the first window sees a server
 * unqueued (a knee is tens of requests), so that its latency is the floor. */
#define BUDGET_START_TOTAL 8
/* A rank's workers until then. */
int budget_start_share(int nranks);

void budget_init(struct budget *b, int nranks);
/* The window from the last sample to S closed: the new cap (b->cap) and
 * why (b->why). True if the cap changed. */
bool budget_step(struct budget *b, const struct budget_sample *s);
/* A rank's share of the cap with BACKLOG (0: nothing to do), WITH_WORK
 * ranks having some: equal among those, 1 for the others. */
int budget_share(const struct budget *b, uint64_t backlog, uint64_t with_work);
/* A rank's share of --max-ops=MAX_OPS the same way (an idle rank keeps an
 * eighth of an equal share): at least 1 a second. */
uint64_t budget_ops_share(uint64_t max_ops, int nranks, uint64_t backlog, uint64_t with_work);
const char *budget_why_name(enum budget_why why);

#endif
