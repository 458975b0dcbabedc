// SPDX-License-Identifier: GPL-3.0-or-later
/* On-CPU time of the traced threads: the sampled kernel stacks classified
 * by category (probes/cpuclass.h); the raw evidence is in folded.h. */
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

#endif
