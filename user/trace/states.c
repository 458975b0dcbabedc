// SPDX-License-Identifier: GPL-3.0-or-later
/* The traced threads' time by state (states.h). */
#include "trace/states.h"
#include "lib/json.h"
#include "probes/probes.h"
#include "trace/measure.h"
#include "trace/result.h"
#include "trace/wakers.h"

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

void trace_signal_stop_text(const struct trace_result *r, double ns, char *buf, size_t len)
{
	const unsigned x = PROBE_XSTATE_SIGNAL_STOP;
	char b1[32], wakers[320];

	trace_wakers_phrase(r, trace_waker_in_xstate, &x, wakers, sizeof wakers);
	snprintf(buf, len,
		 "Stopped by a signal: the threads were stopped (state T, job control) for %s in "
		 "%llu stops, by SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU, not by a tracer%s. Confirm: "
		 "grep State /proc/PID/status says T (stopped). Remedy: continue it (kill -CONT "
		 "PID, or fg or bg in its shell), and find who stops it.",
		 trace_fmt_ns(ns, b1, sizeof b1),
		 (unsigned long long)r->total->misc.state_count[PROBE_XSTATE_SIGNAL_STOP],
		 *wakers ? wakers : "");
}

void trace_frozen_text(const struct trace_result *r, double ns, char *buf, size_t len)
{
	const unsigned x = PROBE_XSTATE_FROZEN;
	char b1[32], wakers[320];

	trace_wakers_phrase(r, trace_waker_in_xstate, &x, wakers, sizeof wakers);
	snprintf(buf, len,
		 "Frozen: the threads were frozen for %s in %llu freezes, by the cgroup freezer "
		 "(freezer.state FROZEN) or a system suspend%s. Confirm: cat /proc/PID/cgroup and "
		 "the group's freezer.state. Remedy: thaw it (echo THAWED > freezer.state).",
		 trace_fmt_ns(ns, b1, sizeof b1),
		 (unsigned long long)r->total->misc.state_count[PROBE_XSTATE_FROZEN], wakers);
}

void trace_other_state_text(const struct trace_result *r, double ns, char *buf, size_t len)
{
	char b1[32];

	snprintf(buf, len,
		 "Other scheduler states: the threads were off CPU for %s in %llu switches in a "
		 "state that is neither running, blocked, sleeping, stopped nor frozen (parked, "
		 "dying, new).",
		 trace_fmt_ns(ns, b1, sizeof b1),
		 (unsigned long long)r->total->misc.state_count[PROBE_XSTATE_OTHER]);
}

void trace_pretrace_text(const struct trace_result *r, double ns, char *buf, size_t len)
{
	char b1[32];

	snprintf(buf, len,
		 "Off CPU since before tracing began, not a cause the trace can name: %s in %llu "
		 "threads that were already waiting when the probes attached (a -p target's "
		 "idle threads, a command before it starts), in a state they did not see "
		 "begin. Attach earlier, or trace the command itself.",
		 trace_fmt_ns(ns, b1, sizeof b1), (unsigned long long)r->total->misc.pretrace_count);
}

void trace_not_accounted_text(const struct trace_result *r, double ns, double whole, char *buf,
			      size_t len)
{
	char b1[32], b2[32];

	(void)r;
	snprintf(buf, len,
		 "Not accounted: %s of the threads' %s lifetime while traced is in no state the "
		 "probes saw (threads that were already off CPU when tracing began, or events "
		 "lost); the shares above are of the whole, this part unexplained.",
		 trace_fmt_ns(ns, b1, sizeof b1), trace_fmt_ns(whole, b2, sizeof b2));
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
