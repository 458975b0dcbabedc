/* Whether several workers share one big directory, decided by trial where
 * the filesystem type says nothing. Pure, like ctl_policy: samples in,
 * actions out; tests/unit/test_ctl_share.c drives it.
 *
 * Sharing is a static choice on the types it was measured on (tmpfs, ext4,
 * FUSE, NFS and CIFS gain; xfs and btrfs lose: fsinfo.h). Elsewhere, e.g.
 * overlayfs, whose cost is that of its upper filesystem (either kind), the
 * controller measures: when a big directory is read and workers are idle or
 * only one runs, two windows with sharing off (the base), then sharing on
 * with at least two workers for two windows after one tick of hand-over.
 * The trial wins only if its rate passes the base by twice the band and
 * every trial tick beats every base tick; otherwise sharing stays off, the
 * design that is never much worse (one unlinker per directory). The result
 * is kept in the profile, so the next delete on that filesystem starts with
 * it. */
#ifndef ADAPTRM_CTL_SHARE_H
#define ADAPTRM_CTL_SHARE_H
#include <stdbool.h>
#include <stddef.h>

#include "ctl_policy.h"

enum ctl_share_state {
	SHARE_FIXED,	/* the filesystem type decides, or --threads pinned */
	SHARE_UNTRIED,	/* waiting for a big directory */
	SHARE_BASE,	/* measuring with sharing off */
	SHARE_TRIAL,	/* measuring with sharing on */
	SHARE_ON,	/* decided (or from the profile) */
	SHARE_OFF,
};

enum ctl_share_act {
	SHARE_ACT_NONE,
	SHARE_ACT_TRY,		/* switch sharing on, workers to *n */
	SHARE_ACT_KEEP,		/* decided on: keep sharing and the workers */
	SHARE_ACT_DROP,		/* decided off: sharing off, workers back to *n */
	SHARE_ACT_ABANDON,	/* the big directory ended first: off, *n, untried */
};

#define SHARE_WINDOW 2		/* ticks measured on each side */

struct ctl_share {
	enum ctl_share_state st;
	double band;
	int cap;
	int ticks;		/* measured ticks in this phase */
	bool handover;		/* the trial's first tick (not measured) */
	double ops, dt;
	double tick_min, tick_max;	/* slowest / fastest tick rate of the phase */
	double base_rate, base_max;
	int n_before, n_trial;
};

/* KNOWN: -1 untried (the trial may run), 0 off, 1 on (from the profile);
 * FIXED: the type decides or the count is pinned (never a trial). */
void ctl_share_init(struct ctl_share *s, const struct ctl_policy_cfg *cfg, bool fixed, int known);
/* One tick. ASKED: a read in it was big enough to share where sharing is
 * untried (the engine's share_asks moved); SHARED: one was shared (its
 * shareable moved); N: active workers. Returns the action, with *N_OUT and
 * WHY filled for every action but NONE. */
enum ctl_share_act ctl_share_tick(struct ctl_share *s, const struct ctl_sample *smp, bool asked,
				  bool shared, int n, int *n_out, char *why, size_t whylen);
/* In a trial's windows the worker count must not move. */
bool ctl_share_measuring(const struct ctl_share *s);
/* Sharing as the engine should run it now. */
bool ctl_share_on(const struct ctl_share *s);
/* For the profile: 1 on, 0 off, -1 nothing learned. */
int ctl_share_learned(const struct ctl_share *s);
const char *ctl_share_state_name(enum ctl_share_state st);

#endif
