// SPDX-License-Identifier: GPL-3.0-or-later
/* The adaptive controller's decision logic, pure: one sample of signals per
 * tick in, the active worker count out. No clock, no I/O, no engine: the unit
 * tests drive it with simulated filesystems (tests/unit/test_controller*.c).
 *
 * Shape (fs-deletion-performance.md §9): hill climbing on throughput with
 * multiplicative steps, decided on windows of several ticks with a relative
 * hysteresis band, a Vegas-like latency-inflation check as tie-breaker, fast
 * paths for clear signals (lock contention rising with threads: back off;
 * workers blocked off-CPU and throughput rising: add), then a hold phase that
 * probes a neighbour gently, less and less often while nothing is found, and
 * climbs again at once when the throughput at the settled point moves. */
#ifndef ADAPTRM_CTL_POLICY_H
#define ADAPTRM_CTL_POLICY_H
#include "ctl/window.h"

#include <stdbool.h>

struct ctl_policy_cfg {
	int cap;		/* largest worker count (--max-threads) */
	int ncpu;		/* CPUs: CPU-bound work never gains below this */
	int window_ticks;	/* ticks per decision window */
	double band;		/* relative gain that counts as real (hysteresis) */
	int hold_min, hold_max; /* windows between gentle probes */
	bool one_first;		/* the filesystem's second worker usually loses (btrfs):
				 * hold one worker that is not blocked, probe later */
};

enum ctl_phase { CTL_CLIMB, CTL_HOLD, CTL_PROBE };


/* The rule that decided a tick (ctl_decision.rule): one name each, in the
 * order the policy tries them (policy.c has the tables). */
#define CTL_RULE_MEASURING "measuring" /* window still open */
/* The first window at the start point. */
#define CTL_RULE_FIRST_IDLE "first-idle-cut"		/* cut to the busy workers */
#define CTL_RULE_FIRST_SATURATED "first-cpu-saturated"	/* hold: more would time-slice */
#define CTL_RULE_FIRST_KNEE "first-knee-check"		/* at the cap, blocked: try half */
#define CTL_RULE_FIRST_AT_CAP "first-blocked-at-cap"	/* hold: fewer can only lose */
#define CTL_RULE_FIRST_CAPPED "first-blocked-on-cap"	/* hold: blocked on a rate cap */
#define CTL_RULE_FIRST_CONTENDED "first-contended-down" /* climb down first */
#define CTL_RULE_FIRST_ONE "first-hold-one"		/* hold: one worker, not blocked */
#define CTL_RULE_FIRST_CLIMB "first-climb"		/* climb */
/* A candidate (climb step or gentle probe) against its base. */
#define CTL_RULE_REJECT_IDLE "reject-idle"	 /* more workers, idle ones */
#define CTL_RULE_CONTENTION "contention-backoff" /* contention rose with threads */
#define CTL_RULE_QUEUEING "reject-queueing"	 /* latency up, no gain */
#define CTL_RULE_ACCEPT "climb-accept"		 /* a real gain: step on */
#define CTL_RULE_KNEE "knee-down"		 /* flat, latency fell with the count */
#define CTL_RULE_NO_QUEUE "reject-no-queue"	 /* fewer, same latency: a loss */
#define CTL_RULE_CONFIRM_DOWN "confirm-down"	 /* a step down gets two windows */
#define CTL_RULE_CONFIRM "confirm-flat"		 /* inside the band: one more window */
#define CTL_RULE_WORSE "reject-worse"		 /* back to the base */
#define CTL_RULE_KEEP_FEWER "flat-keep-fewer"	 /* flat going down: keep fewer */
#define CTL_RULE_FLAT "reject-flat"		 /* back to the base */
/* Holding at the settled point. */
#define CTL_RULE_DRIFT_CHAIN "drift-on-chain"	     /* rate moved, nothing to chase */
#define CTL_RULE_DRIFT_CAPPED "drift-up-on-cap"	     /* rate rose, still on a cap */
#define CTL_RULE_DRIFT "drift-reclimb"		     /* rate moved: climb again */
#define CTL_RULE_IDLE_CUT "idle-cut"		     /* cut to the busy workers */
#define CTL_RULE_CONTENTION_HALVE "contention-halve" /* most busy time waits on locks */
#define CTL_RULE_BLOCKED_UP "blocked-probe-up"	     /* workers blocked, all busy */
#define CTL_RULE_BLOCKED_CAPPED "blocked-on-cap"     /* blocked on a cap: hold */
#define CTL_RULE_HOLD "hold"			     /* nothing to do this window */
#define CTL_RULE_BUDGET "shared-budget"		     /* the ranks' budget moved: follow it */
#define CTL_RULE_CONTENTION_RETRY "contention-retry" /* halve again after a hold */
#define CTL_RULE_PROBE "gentle-probe"		     /* look at a neighbour */
#define CTL_RULE_VETO_IDLE "probe-veto-idle"	     /* up: idle workers */
#define CTL_RULE_VETO_NO_WAITING "probe-veto-no-waiting-work" /* up: nothing waits */
#define CTL_RULE_VETO_CPU_BOUND "probe-veto-cpu-bound"	      /* down: a CPU would idle */
#define CTL_RULE_VETO_SATURATED "probe-veto-cpu-saturated"    /* up: would time-slice */
#define CTL_RULE_VETO_CAPPED "probe-veto-capped"	      /* up: blocked on a cap */

struct ctl_decision {
	bool changed;
	int from, to;
	const char *rule;      /* CTL_RULE_*: which rule decided (never NULL after a tick) */
	char why[CTL_WHY_LEN]; /* "throughput +38%, contention 2%, blocked 61%" */
};

#define CTL_TABLE 257 /* remembered rate per worker count (cap ≤ 256) */

struct ctl_policy {
	struct ctl_policy_cfg cfg;
	int n; /* current worker count */
	enum ctl_phase phase;
	int dir;	   /* +1 climbing up, -1 down */
	bool tried_down;   /* this climb already tried below its base */
	int climb_accepts; /* steps this climb accepted */
	bool settled_once; /* a hold was reached: flat no longer means "go lower"
				 * (except down to one worker per CPU when CPU-bound) */
	bool fast_up;	   /* blocked workers made an up-step pay: one tick windows */

	/* Window being accumulated at n. */
	struct ctl_window_acc w;

	/* The base a probe or climb step is compared with. */
	int base_n;
	double base_rate, base_lat, base_cont, base_cpu, base_blk;
	int cand_windows; /* windows measured at a candidate */
	double cand_ops, cand_dt;

	/* Hold phase. */
	double ref_rate; /* EWMA of window rates at the settled point */
	int hold_left, hold_len, probe_dir, drift_up, drift_down;
	int ceiling;			  /* contention said: not above this (0: none) */
	int knee;			  /* from this count up the workers only queued (0: none) */
	int budget;			  /* the ranks' shared budget: not above this (0: none) */
	int starved;			  /* consecutive hold windows with idle workers */
	bool trimmed;			  /* the count was cut to the busy workers */
	int up_failed_at, down_failed_at; /* a move from here lost: clear signals
						 * do not retry it before the next change */

	double lat_min;	  /* lowest window mean latency seen (Vegas base) */
	double noise_var; /* variance of a hold window's rate around the reference (relative) */
	int noise_n;
	double rate_at[CTL_TABLE]; /* EWMA of window rate per worker count */
	int seen_at[CTL_TABLE];
	long windows; /* decision windows completed */
};

void ctl_policy_defaults(struct ctl_policy_cfg *cfg, int cap, int ncpu);
/* START: the best known point (profile, else filesystem prior).
 * KNOWN: it comes from a profile (probe gently first, instead of climbing). */
void ctl_policy_init(struct ctl_policy *p, const struct ctl_policy_cfg *cfg, int start, bool known);
/* Feed one tick. Returns true with D filled when the worker count changes. */
bool ctl_policy_tick(struct ctl_policy *p, const struct ctl_sample *s, struct ctl_decision *d);
/* The worker count with the best remembered rate (for the profile), or the
 * current one when too little was measured. */
int ctl_policy_best(const struct ctl_policy *p, double *rate);
const char *ctl_phase_name(enum ctl_phase ph);
/* A budget shared with other machines (adaptrm-mpi): the count is BUDGET
 * (0: none, the policy's own again), measured afresh in a hold; the caller
 * leaves the policy's ticks out while there is one. True with D filled on
 * a change. */
bool ctl_policy_set_budget(struct ctl_policy *p, int budget, struct ctl_decision *d);

#endif
