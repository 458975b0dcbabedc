// SPDX-License-Identifier: GPL-3.0-or-later
/* The traced threads' stacks as flame graph input: the folded format of
 * flamegraph.pl, inferno and speedscope, one unit per file. */
#ifndef ADAPTRM_TRACE_FOLDED_H
#define ADAPTRM_TRACE_FOLDED_H
#include <stdbool.h>
#include <stdio.h>

struct probes;

enum trace_folded_kind {
	TRACE_FOLDED_ONCPU,  /* sampled on-CPU stacks, counted in samples */
	TRACE_FOLDED_OFFCPU, /* off-CPU wait-site stacks, counted in microseconds */
};

/* Write the traced threads' stacks of KIND to F: one line "root;frame;...;leaf
 * VALUE" per stack, root first, function names without offsets, sorted by
 * value (largest first), then by name. On-CPU lines start with "oncpu"
 * (user mode: "oncpu;[user]"); off-CPU lines with "offcpu-D" or "offcpu-S".
 * The frames of the tracer's own BPF programs are left out: a sample taken
 * while one ran ends in "[tracer]" instead. Returns 0, or -1 on a
 * write error. */
int trace_write_folded(FILE *f, struct probes *p, enum trace_folded_kind kind);

/* Whether NAME is a frame of the tracer's BPF programs or of the
 * tracepoint glue that runs them (bpf_prog_*, bpf_trace_run*, ...). */
bool trace_frame_is_tracer(const char *name);

#endif
