// SPDX-License-Identifier: GPL-3.0-or-later
/* Trials of an engine switch (see trial.h).
 *
 * Windows of TRIAL_WINDOW ticks (~0.2 s) on each side, as the worker-count
 * policy's; one tick of hand-over, because a switch takes effect at the
 * engine's next getdents64 batch. The answer is stored and used until the
 * controller tries it again some runs later, so the bar is high: twice the policy's band plus "every trial tick
 * faster than every base tick", so that noise alone almost never turns a
 * switch on (docs/design.md#trial-bar, tests/unit/test_trial.c). */
#include "ctl/trial.h"

#include <stdio.h>

static void reset(struct ctl_trial *t)
{
	t->ticks = 0;
	t->waited = 0;
	t->x = t->w = t->bw = 0;
	t->tick_min = -1;
	t->tick_max = -1;
}

void ctl_trial_init(struct ctl_trial *t, const struct ctl_trial_cfg *cfg, bool fixed, int known)
{
	*t = (struct ctl_trial){ .cfg = *cfg };
	reset(t);
	if (fixed || cfg->cap < cfg->min_workers)
		t->st = TRIAL_FIXED;
	else
		t->st = known > 0 ? TRIAL_ON : known == 0 ? TRIAL_OFF : TRIAL_UNTRIED;
}

const char *ctl_trial_state_name(enum ctl_trial_state st)
{
	switch (st) {
	case TRIAL_FIXED: return "by-type";
	case TRIAL_UNTRIED: return "untried";
	case TRIAL_BASE: return "base";
	case TRIAL_TRIAL: return "trial";
	case TRIAL_ON: return "on";
	case TRIAL_OFF: return "off";
	}
	return "?";
}

bool ctl_trial_moves_workers(const struct ctl_trial *t)
{
	return t->cfg.min_workers > 1;
}

bool ctl_trial_measuring(const struct ctl_trial *t)
{
	return t->st == TRIAL_BASE || t->st == TRIAL_TRIAL;
}

bool ctl_trial_on(const struct ctl_trial *t)
{
	return t->st == TRIAL_TRIAL || t->st == TRIAL_ON;
}

int ctl_trial_learned(const struct ctl_trial *t)
{
	return t->st == TRIAL_ON ? 1 : t->st == TRIAL_OFF ? 0 : -1;
}

static void add_tick(struct ctl_trial *t, double rate, double weight, double busy_workers)
{
	t->x += rate * weight;
	t->w += weight;
	if (busy_workers < 0 || t->bw < 0)
		t->bw = -1;
	else
		t->bw += busy_workers * weight;
	if (t->tick_min < 0 || rate < t->tick_min)
		t->tick_min = rate;
	if (rate > t->tick_max)
		t->tick_max = rate;
	t->ticks++;
}

/* Back to untried, or, after TRIAL_MAX_ABANDON of them, no trial this run. */
static enum ctl_trial_act abandon(struct ctl_trial *t, int *n_out, char *why, size_t whylen,
				  const char *reason)
{
	bool give_up = ++t->abandons >= TRIAL_MAX_ABANDON;
	t->st = give_up ? TRIAL_FIXED : TRIAL_UNTRIED;
	*n_out = t->n_before;
	snprintf(why, whylen, "trial abandoned: %s%s", reason,
		 give_up ? "; not tried again in this run" : "");
	return TRIAL_ACT_ABANDON;
}

/* The base's window: when it is full, switch on and start the trial. */
static enum ctl_trial_act base_tick(struct ctl_trial *t, const struct ctl_trial_sample *s,
				    double busy_workers, int *n_out, char *why, size_t whylen)
{
	if (!s->asked) { /* that work is done: wait for the next */
		t->st = TRIAL_UNTRIED;
		return TRIAL_ACT_NONE;
	}
	if (s->weight <= 0)
		return TRIAL_ACT_NONE;
	add_tick(t, s->rate, s->weight, busy_workers);
	if (t->ticks < TRIAL_WINDOW)
		return TRIAL_ACT_NONE;
	t->base_rate = t->x / t->w;
	t->base_max = t->tick_max;
	t->base_busy = t->bw >= 0 ? t->bw / t->w : -1;
	t->n_trial = s->n < t->cfg.min_workers ? t->cfg.min_workers : s->n;
	if (t->n_trial > t->cfg.cap)
		t->n_trial = t->cfg.cap;
	t->st = TRIAL_TRIAL;
	t->handover = true;
	reset(t);
	*n_out = t->n_trial;
	if (t->cfg.min_workers > 1)
		snprintf(why, whylen, "trying it with %d workers (base %.0f %s at %d)", t->n_trial,
			 t->base_rate, t->cfg.unit, t->n_before);
	else
		snprintf(why, whylen, "trying it (base %.0f %s)", t->base_rate, t->cfg.unit);
	return TRIAL_ACT_TRY;
}

/* The trial's window: when it is full, the verdict against the base. */
static enum ctl_trial_act trial_verdict(struct ctl_trial *t, const struct ctl_trial_sample *s,
					double busy_workers, int *n_out, char *why, size_t whylen)
{
	if (t->handover) {
		t->handover = false;
		return TRIAL_ACT_NONE;
	}
	if (!s->active)
		return abandon(t, n_out, why, whylen, "the work ended first");
	if (s->weight <= 0) /* e.g. a sorted batch still being read */
		return TRIAL_ACT_NONE;
	add_tick(t, s->rate, s->weight, busy_workers);
	if (t->ticks < TRIAL_WINDOW)
		return TRIAL_ACT_NONE;
	/* A switch that leaves the count alone is compared per call at
	 * equal concurrency: one worker alone runs faster per call than
	 * two side by side (docs/design.md#inode-order-trial). */
	double trial_busy = t->bw >= 0 ? t->bw / t->w : -1;
	if (!ctl_trial_moves_workers(t) && t->base_busy > 0 && trial_busy > 0 &&
	    (trial_busy > 1.25 * t->base_busy || t->base_busy > 1.25 * trial_busy)) {
		char reason[96];
		snprintf(reason, sizeof reason, "%.1f busy workers in the base, %.1f in the trial",
			 t->base_busy, trial_busy);
		return abandon(t, n_out, why, whylen, reason);
	}
	double r = t->x / t->w;
	double gain = t->base_rate > 0 ? r / t->base_rate - 1 : 0;
	bool win = gain > 2 * t->cfg.band && t->tick_min > t->base_max;
	snprintf(why, whylen, "%s: %s %+.0f%% (%.0f -> %.0f %s, %d -> %d workers)%s",
		 win ? "on" : "off", t->cfg.measure, 100 * gain, t->base_rate, r, t->cfg.unit,
		 t->n_before, s->n,
		 win			? "" :
		 gain > 2 * t->cfg.band ? ", not in every tick" :
					  "");
	if (win) {
		t->st = TRIAL_ON;
		*n_out = s->n;
		return TRIAL_ACT_KEEP;
	}
	t->st = TRIAL_OFF;
	*n_out = t->n_before;
	return TRIAL_ACT_DROP;
}

enum ctl_trial_act ctl_trial_tick(struct ctl_trial *t, const struct ctl_trial_sample *s, int *n_out,
				  char *why, size_t whylen)
{
	double busy_workers = s->busy >= 0 ? s->busy * s->n : -1;
	/* A switch whose measure never comes (e.g. batches that never pass
	 * the sort threshold) must not hold the worker count for the rest
	 * of the delete. */
	if (ctl_trial_measuring(t) && s->weight <= 0 && ++t->waited > TRIAL_MAX_WAIT) {
		t->abandons = TRIAL_MAX_ABANDON;
		char reason[64];
		snprintf(reason, sizeof reason, "nothing measured in %d ticks", TRIAL_MAX_WAIT);
		return abandon(t, n_out, why, whylen, reason);
	}
	if (s->weight > 0)
		t->waited = 0;
	switch (t->st) {
	case TRIAL_UNTRIED:
		/* Where the switch needs a helper, only where one would be
		 * free: one worker, or idle ones. While every worker is busy
		 * elsewhere, a helper could not be used, so a trial would
		 * measure nothing. */
		if (s->asked &&
		    (!t->cfg.need_helper || s->n == 1 || (s->busy >= 0 && s->busy < 0.9))) {
			t->st = TRIAL_BASE;
			t->n_before = s->n;
			reset(t);
		}
		return TRIAL_ACT_NONE;
	case TRIAL_BASE: return base_tick(t, s, busy_workers, n_out, why, whylen);
	case TRIAL_TRIAL: return trial_verdict(t, s, busy_workers, n_out, why, whylen);
	case TRIAL_FIXED:
	case TRIAL_ON:
	case TRIAL_OFF: break;
	}
	return TRIAL_ACT_NONE;
}
