/* The directory-sharing trial (see ctl_share.h).
 *
 * Why these numbers: windows of SHARE_WINDOW ticks (~0.2 s) on each side, as
 * the worker-count policy's; one tick of hand-over, because sharing starts at
 * the next getdents64 batch and helpers have to be woken. The answer of one
 * trial is stored and used for the next 7 runs, so the bar is twice the
 * policy's band (16%) plus "every trial tick faster than every base
 * tick": with 5% noise per tick a tie then turns sharing on in 2 trials of
 * 500 (at the band alone: 27), and a 10% loss in none
 * (tests/unit/test_ctl_share.c). Where sharing helps it is by far more:
 * tmpfs flat 200,000 at two workers, +29% to +90% in the trial; overlayfs
 * over tmpfs +30% to +79%. */
#include "ctl_share.h"

#include <stdio.h>

static void reset(struct ctl_share *s)
{
	s->ticks = 0;
	s->ops = s->dt = 0;
	s->tick_min = -1;
	s->tick_max = -1;
}

void ctl_share_init(struct ctl_share *s, const struct ctl_policy_cfg *cfg, bool fixed, int known)
{
	*s = (struct ctl_share){ 0 };
	s->band = cfg->band;
	s->cap = cfg->cap;
	reset(s);
	if (fixed || cfg->cap < 2)
		s->st = SHARE_FIXED;
	else
		s->st = known > 0 ? SHARE_ON : known == 0 ? SHARE_OFF : SHARE_UNTRIED;
}

const char *ctl_share_state_name(enum ctl_share_state st)
{
	switch (st) {
	case SHARE_FIXED: return "by-type";
	case SHARE_UNTRIED: return "untried";
	case SHARE_BASE: return "base";
	case SHARE_TRIAL: return "trial";
	case SHARE_ON: return "on";
	case SHARE_OFF: return "off";
	}
	return "?";
}

bool ctl_share_measuring(const struct ctl_share *s)
{
	return s->st == SHARE_BASE || s->st == SHARE_TRIAL;
}

bool ctl_share_on(const struct ctl_share *s)
{
	return s->st == SHARE_TRIAL || s->st == SHARE_ON;
}

int ctl_share_learned(const struct ctl_share *s)
{
	return s->st == SHARE_ON ? 1 : s->st == SHARE_OFF ? 0 : -1;
}

static void add_tick(struct ctl_share *s, const struct ctl_sample *smp)
{
	double r = smp->ops / smp->dt;
	s->ops += smp->ops;
	s->dt += smp->dt;
	if (s->tick_min < 0 || r < s->tick_min)
		s->tick_min = r;
	if (r > s->tick_max)
		s->tick_max = r;
	s->ticks++;
}

enum ctl_share_act ctl_share_tick(struct ctl_share *s, const struct ctl_sample *smp, bool asked,
				  bool shared, int n, int *n_out, char *why, size_t whylen)
{
	if (smp->dt <= 0)
		return SHARE_ACT_NONE;
	switch (s->st) {
	case SHARE_UNTRIED:
		/* Only where a helper would be free: one worker, or idle ones.
		 * While every worker is busy elsewhere, sharing could not be
		 * used, so a trial would measure nothing. */
		if (asked && (n == 1 || (smp->busy >= 0 && smp->busy < 0.9))) {
			s->st = SHARE_BASE;
			s->n_before = n;
			reset(s);
		}
		return SHARE_ACT_NONE;
	case SHARE_BASE:
		if (!asked) {	/* the big directory is done: wait for the next */
			s->st = SHARE_UNTRIED;
			return SHARE_ACT_NONE;
		}
		add_tick(s, smp);
		if (s->ticks < SHARE_WINDOW)
			return SHARE_ACT_NONE;
		s->base_rate = s->ops / s->dt;
		s->base_max = s->tick_max;
		s->n_trial = n < 2 ? 2 : n;
		if (s->n_trial > s->cap)
			s->n_trial = s->cap;
		s->st = SHARE_TRIAL;
		s->handover = true;
		reset(s);
		*n_out = s->n_trial;
		snprintf(why, whylen, "trying it with %d workers (base %.0f entries/s at %d)",
			 s->n_trial, s->base_rate, s->n_before);
		return SHARE_ACT_TRY;
	case SHARE_TRIAL: {
		if (s->handover) {
			s->handover = false;
			return SHARE_ACT_NONE;
		}
		if (!shared) {
			s->st = SHARE_UNTRIED;
			*n_out = s->n_before;
			snprintf(why, whylen, "trial abandoned: the big directory ended first");
			return SHARE_ACT_ABANDON;
		}
		add_tick(s, smp);
		if (s->ticks < SHARE_WINDOW)
			return SHARE_ACT_NONE;
		double rate = s->ops / s->dt;
		double gain = s->base_rate > 0 ? rate / s->base_rate - 1 : 0;
		bool win = gain > 2 * s->band && s->tick_min > s->base_max;
		snprintf(why, whylen, "%s: throughput %+.0f%% (%.0f -> %.0f entries/s, %d -> %d workers)%s",
			 win ? "on" : "off", 100 * gain, s->base_rate, rate, s->n_before, n,
			 win ? "" : gain > 2 * s->band ? ", not in every tick" : "");
		if (win) {
			s->st = SHARE_ON;
			*n_out = n;
			return SHARE_ACT_KEEP;
		}
		s->st = SHARE_OFF;
		*n_out = s->n_before;
		return SHARE_ACT_DROP;
	}
	case SHARE_FIXED:
	case SHARE_ON:
	case SHARE_OFF:
		break;
	}
	return SHARE_ACT_NONE;
}
