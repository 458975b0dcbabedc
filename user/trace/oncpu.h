// SPDX-License-Identifier: GPL-3.0-or-later
/* On-CPU time of the traced threads: the sampled kernel stacks classified
 * by category (probes/cpuclass.h), and the raw evidence as folded stacks
 * for flame graphs (--folded). */
#ifndef ADAPTRM_TRACE_ONCPU_H
#define ADAPTRM_TRACE_ONCPU_H
#include <stdint.h>
#include <stdio.h>
#include "probes/cpuclass.h"

struct probes;
struct trace_result;

/* Fill R's on-CPU sample counts by category (r->cpu_samples[], with
 * CPU_USER for user mode) from the probes, after the final read. */
void trace_collect_oncpu(struct probes *p, struct trace_result *r);

/* Kernel samples with a stack (every category but CPU_USER). */
uint64_t trace_cpu_kernel_samples(const struct trace_result *r);

/* Write the sampled on-CPU stacks and the off-CPU wait-site stacks of the
 * traced threads to F in the folded format (flamegraph.pl, inferno,
 * speedscope): one line "root;frame;...;leaf VALUE" per stack, root first,
 * function names without offsets. On-CPU lines start with "oncpu" (user
 * mode: "oncpu;[user]") and count samples; off-CPU lines start with
 * "offcpu-D" or "offcpu-S" and count microseconds off CPU. Sorted by value,
 * largest first, then by name. Returns 0, or -1 on a write error. */
int trace_write_folded(FILE *f, struct probes *p);

#endif
