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

/* The subsystem that spent a sampled kernel stack's CPU (FRAMES, the
 * innermost first) when it is not the delete's own machinery: audit, an
 * LSM, notification, signals, cgroups, another tracer's handlers
 * (SS_TRACING) or another tool's BPF program (SS_BPF, its frame in *PROG);
 * -1 for the filesystem's own work, which the categories split. */
int trace_cpu_subsys(const char *const *frames, int nf, const char **prog);

/* Kernel samples with a stack (every category but CPU_USER). */
uint64_t trace_cpu_kernel_samples(const struct trace_result *r);

#endif
