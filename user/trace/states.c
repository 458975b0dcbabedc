// SPDX-License-Identifier: GPL-3.0-or-later
/* The traced threads' time by state (states.h). */
#include "trace/states.h"
#include "lib/json.h"
#include "probes/probes.h"
#include "trace/measure.h"
#include "trace/result.h"

#include <string.h>

void trace_states_of(const struct trace_result *r, struct trace_states *s)
{
	const struct probe_misc *m = &r->total->misc;
	double blocked = 0;

	memset(s, 0, sizeof *s);
	s->user = r->cpu.have ? (double)r->cpu.user_ns : 0;
	s->kernel = (double)m->oncpu_ns - s->user;
	if (s->kernel < 0)
		s->kernel = 0;
	s->runnable = (double)(m->runq.total + m->offcpu[PROBE_OFFCPU_PREEMPTED].total);
	for (int i = 0; i < r->nsites; i++)
		if (r->sites[i].state == PROBE_OFFCPU_BLOCKED)
			blocked += (double)r->sites[i].blocked_ns;
	/* D and S off CPU, less their run-queue waits (runq holds those of
	 * the other states too) */
	double ds = (double)(m->offcpu[PROBE_OFFCPU_BLOCKED].total +
			     m->offcpu[PROBE_OFFCPU_SLEEPING].total) -
		    ((double)m->runq.total - (double)m->state_rq_ns);
	if (ds < 0)
		ds = 0;
	s->blocked = blocked < ds ? blocked : ds;
	/* the waits still open at the end are idle until they end */
	s->sleeping = ds - s->blocked + (double)m->open_ns;
	s->accounted = s->user + s->kernel + s->runnable + s->blocked + s->sleeping;
	for (int k = 0; k < PROBE_XSTATE_COUNT; k++) {
		s->x[k] = (double)m->state_ns[k];
		s->accounted += s->x[k];
	}
	s->pretrace = (double)m->pretrace_ns;
	s->accounted += s->pretrace;
	s->life = (double)r->total->life_ns;
	s->not_accounted = s->life > s->accounted ? s->life - s->accounted : 0;
}

static const char *const xnames[PROBE_XSTATE_COUNT] = { "stopped by a signal", "stopped by a tracer",
							"frozen", "other states" };
static const char *const xids[PROBE_XSTATE_COUNT] = { "signal_stopped_ns", "tracer_stopped_ns",
						      "frozen_ns", "other_state_ns" };

void trace_text_states(FILE *f, const struct trace_result *r)
{
	struct trace_states s;
	char b[32];

	if (!r->total || !r->attached[PROBE_G_OFFCPU])
		return;
	trace_states_of(r, &s);
	double whole = s.life > s.accounted ? s.life : s.accounted;
	if (whole <= 0)
		return;
	fprintf(f, "\nEvery thread-second by state (%s)\n", trace_fmt_ns(whole, b, sizeof b));
	const struct {
		const char *name;
		double ns;
	} rows[] = {
		{ "on CPU, user", s.user },	{ "on CPU, kernel", s.kernel },
		{ "runnable", s.runnable },	{ "blocked (D)", s.blocked },
		{ "sleeping (S)", s.sleeping }, { xnames[0], s.x[0] },
		{ xnames[1], s.x[1] },		{ xnames[2], s.x[2] },
		{ xnames[3], s.x[3] },		{ "not accounted", s.not_accounted },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		if (rows[i].ns > 0)
			fprintf(f, "  %-22s %10s %5.1f%%\n", rows[i].name,
				trace_fmt_ns(rows[i].ns, b, sizeof b), 100 * rows[i].ns / whole);
	if (s.not_accounted > 0.05 * whole)
		fprintf(f,
			"  warning: %.0f%% of the threads' lifetime is in no state the probes saw\n",
			100 * s.not_accounted / whole);
}

void trace_json_states(struct json_writer *w, const struct trace_result *r)
{
	struct trace_states s;

	if (!r->total)
		return;
	trace_states_of(r, &s);
	jw_object(w, "states");
	jw_uint(w, "user_ns", (uint64_t)s.user);
	jw_uint(w, "kernel_ns", (uint64_t)s.kernel);
	jw_uint(w, "runnable_ns", (uint64_t)s.runnable);
	jw_uint(w, "blocked_ns", (uint64_t)s.blocked);
	jw_uint(w, "sleeping_ns", (uint64_t)s.sleeping);
	for (int k = 0; k < PROBE_XSTATE_COUNT; k++)
		jw_uint(w, xids[k], (uint64_t)s.x[k]);
	jw_uint(w, "before_trace_ns", (uint64_t)s.pretrace);
	jw_uint(w, "accounted_ns", (uint64_t)s.accounted);
	jw_uint(w, "lifetime_ns", (uint64_t)s.life);
	jw_uint(w, "not_accounted_ns", (uint64_t)s.not_accounted);
	jw_end(w);
}
