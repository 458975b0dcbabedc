// SPDX-License-Identifier: GPL-3.0-or-later
/* The policy's decision windows (see window.h). */
#include "ctl/window.h"

#include <stdio.h>

static void mean_add(struct ctl_mean *m, double v)
{
	if (v >= 0) /* also leaves out NaN */
		m->sum += v, m->n++;
}

static double mean_get(const struct ctl_mean *m)
{
	return m->n > 0 ? m->sum / m->n : -1;
}

/* Tick-to-tick spread of the window's rates: a noise estimate from the very
 * first window, before any hold could measure one. */
static double noise_of(const struct ctl_window_acc *a)
{
	if (a->ticks < 2 || !(a->r > 0))
		return -1;
	double m = a->r / a->ticks;
	double v = (a->r2 / a->ticks - m * m) / (m * m);
	v = v * a->ticks / (a->ticks - 1) / a->ticks; /* of the window mean */
	return v > 0 ? v : -1;
}

bool ctl_window_add(struct ctl_window_acc *a, const struct ctl_sample *s, int need,
		    struct ctl_window *w, double *noise)
{
	double r = s->ops / s->dt;
	a->ops += s->ops;
	a->dt += s->dt;
	a->r += r;
	a->r2 += r * r;
	a->ticks++;
	mean_add(&a->lat, s->lat_mean_us);
	mean_add(&a->cont, s->contention);
	mean_add(&a->blk, s->blocked);
	mean_add(&a->busy, s->busy);
	mean_add(&a->cpu, s->cpu);
	mean_add(&a->spare, s->spare);
	mean_add(&a->capped, s->capped);
	if (a->ticks < need)
		return false;
	*w = (struct ctl_window){
		.ops = a->ops,
		.dt = a->dt,
		.rate = a->ops / a->dt,
		.lat = mean_get(&a->lat),
		.cont = mean_get(&a->cont),
		.blk = mean_get(&a->blk),
		.busy = mean_get(&a->busy),
		.cpu = mean_get(&a->cpu),
		.spare = mean_get(&a->spare),
		.capped = mean_get(&a->capped),
	};
	*noise = noise_of(a);
	*a = (struct ctl_window_acc){ 0 };
	return true;
}

static void pct(char *buf, size_t len, const char *what, double v)
{
	if (v < 0)
		snprintf(buf, len, ", %s n/a", what);
	else
		snprintf(buf, len, ", %s %.0f%%", what, v * 100);
}

void ctl_window_evidence(char *out, double gain, const struct ctl_window *w, const char *note)
{
	char c[40], b[40], k[40] = "";
	pct(c, sizeof c, "contention", w->cont);
	pct(b, sizeof b, "blocked", w->blk);
	if (w->capped >= 0.05 && w->blk >= 0.05)
		pct(k, sizeof k, "on a cap", w->capped);
	snprintf(out, CTL_WHY_LEN, "throughput %+.0f%%%s%s%s%s%s", gain * 100, c, b, k,
		 note && *note ? ", " : "", note ? note : "");
}
