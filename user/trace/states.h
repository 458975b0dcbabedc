/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every thread-second of the traced threads in a state: on CPU (user,
 * kernel), runnable, blocked, sleeping, stopped by a signal, stopped by a
 * tracer, frozen, any other state the scheduler records; by construction
 * they add up to the time the probes accounted, and the threads' lifetimes
 * (from their forks and exits) say what they did not account. The report's
 * "states" section; the verdict's catalogue words the states that are
 * causes of their own (a stop, a freeze, time not accounted). */
#ifndef ADAPTRM_TRACE_STATES_H
#define ADAPTRM_TRACE_STATES_H
#include <stddef.h>
#include <stdio.h>
#include "probes/probes_shared.h"

struct trace_result;
struct json_writer;

struct trace_states {
	double user, kernel;	      /* on CPU */
	double runnable;	      /* woken or preempted, waiting for a CPU */
	double blocked;		      /* D, at wait sites */
	double sleeping;	      /* S, at wait sites and idle */
	double x[PROBE_XSTATE_COUNT]; /* stopped, frozen, other (enum probe_xstate) */
	double pretrace;      /* off CPU since before tracing began, in a state not seen begin */
	double accounted;     /* the sum of the above */
	double life;	      /* the threads' lifetimes while traced (0: not measured) */
	double not_accounted; /* life beyond the accounted states */
};
void trace_states_of(const struct trace_result *r, struct trace_states *s);

void trace_text_states(FILE *f, const struct trace_result *r);
void trace_json_states(struct json_writer *w, const struct trace_result *r);

#endif
