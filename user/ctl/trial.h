// SPDX-License-Identifier: GPL-3.0-or-later
/* Trials of an engine switch the filesystem type says nothing about. Pure,
 * like ctl_policy: samples in, actions out; tests/unit/test_trial.c
 * drives it.
 *
 * Two switches are decided this way where they were never measured:
 * - sharing one big directory among several workers (static where measured:
 *   tmpfs, ext4, FUSE, NFS and CIFS gain; xfs and btrfs lose: fsinfo.h);
 * - unlinking a big directory in inode order (static where measured: ext2/3/4,
 *   btrfs and reiserfs gain; tmpfs, FUSE, network filesystems and xfs do not).
 * Elsewhere, e.g. overlayfs, whose cost is that of its upper filesystem
 * (either kind), f2fs or zfs, the controller measures: when the engine meets
 * work the switch applies to (a read big enough to split; a directory past
 * the sort threshold), two windows with the switch off (the base), then one
 * tick of hand-over and two windows with it on. The switch wins only if the
 * trial's rate passes the base by twice the band and every trial tick beats
 * every base tick; otherwise it stays off, the design that is never much
 * worse. The result is kept in the profile, so the next delete on that
 * filesystem starts with it. */
#ifndef ADAPTRM_CTL_TRIAL_H
#define ADAPTRM_CTL_TRIAL_H
#include <stdbool.h>
#include <stddef.h>

#include "ctl/policy.h"

enum ctl_trial_state {
	TRIAL_FIXED,   /* the filesystem type decides, or the user pinned it */
	TRIAL_UNTRIED, /* waiting for work the switch applies to */
	TRIAL_BASE,    /* measuring with the switch off */
	TRIAL_TRIAL,   /* measuring with the switch on */
	TRIAL_ON,      /* decided (or from the profile) */
	TRIAL_OFF,
};

enum ctl_trial_act {
	TRIAL_ACT_NONE,
	TRIAL_ACT_TRY,	   /* switch on, workers to *n */
	TRIAL_ACT_KEEP,	   /* decided on: keep the switch and the workers */
	TRIAL_ACT_DROP,	   /* decided off: switch off, workers back to *n */
	TRIAL_ACT_ABANDON, /* the work ended first, or the sides were not
				 * comparable: off, *n, untried (after
				 * TRIAL_MAX_ABANDON, or TRIAL_MAX_WAIT ticks
				 * without a measure: not tried again this run) */
};

#define TRIAL_WINDOW 2	    /* measured ticks on each side */
#define TRIAL_MAX_WAIT 100  /* ticks in a row with nothing measured: give up */
#define TRIAL_MAX_ABANDON 3 /* abandoned trials in one run: give up */

struct ctl_trial_cfg {
	double band;	     /* the policy's noise band (ctl_policy_cfg) */
	int cap;	     /* worker cap */
	int min_workers;     /* the switch needs this many workers (sharing: 2);
				 * at most 1: the switch leaves the count alone, and
				 * the two sides must have run as many busy workers */
	bool need_helper;    /* start only where a worker would be free */
	const char *measure; /* what the rate is, for WHY: "throughput" */
	const char *unit;    /* "entries/s" */
};

struct ctl_trial {
	struct ctl_trial_cfg cfg;
	enum ctl_trial_state st;
	int ticks;     /* measured ticks in this phase */
	bool handover; /* the trial's first tick (not measured) */
	double x, w;   /* the phase's measure: sum of rate * weight, weight */
	double bw;     /* busy workers * weight (-1: unknown) */
	int waited;    /* ticks in a row with nothing measured */
	int abandons;  /* trials abandoned in this run */
	double base_busy;
	double tick_min, tick_max; /* slowest / fastest tick rate of the phase */
	double base_rate, base_max;
	int n_before, n_trial;
};

/* KNOWN: -1 untried (the trial may run), 0 off, 1 on (from the profile);
 * FIXED: the type decides or the user pinned it (never a trial). */
void ctl_trial_init(struct ctl_trial *t, const struct ctl_trial_cfg *cfg, bool fixed, int known);
/* What one tick measured of the switch's work. */
struct ctl_trial_sample {
	double rate;   /* the tick's measure of that work (higher is better) */
	double weight; /* what RATE rests on (seconds measured); <= 0: nothing
			* measured this tick (it is waited out) */
	double busy;   /* busy share of the active workers (-1 unknown) */
	bool asked;    /* the engine met work the switch applies to while untried */
	bool active;   /* the switch, on, acted on such work in this tick */
	int n;	       /* active workers */
};

/* One tick. Returns the action, with *N_OUT and WHY filled for every action
 * but NONE. */
enum ctl_trial_act ctl_trial_tick(struct ctl_trial *t, const struct ctl_trial_sample *s, int *n_out,
				  char *why, size_t whylen);
/* Whether the switch moves the worker count (then the policy restarts after
 * the trial). */
bool ctl_trial_moves_workers(const struct ctl_trial *t);
/* In a trial's windows the worker count must not move. */
bool ctl_trial_measuring(const struct ctl_trial *t);
/* The switch as the engine should run it now. */
bool ctl_trial_on(const struct ctl_trial *t);
/* For the profile: 1 on, 0 off, -1 nothing learned. */
int ctl_trial_learned(const struct ctl_trial *t);
const char *ctl_trial_state_name(enum ctl_trial_state st);

#endif
