/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The verdict's evidence for a kernel subsystem's part of the traced
 * threads' time (probes/subsys.h): where they waited in it, its CPU, the
 * waits to run behind the helpers it woke and who ended the waits; the
 * subsystem's table gives its words, the command that confirms it and its
 * generic remedy. The general layer under the catalogue: a cause no entry
 * names still gets its subsystem, its waker and its remedy. */
#ifndef ADAPTRM_TRACE_SUBSYS_H
#define ADAPTRM_TRACE_SUBSYS_H
#include <stddef.h>
#include "probes/subsys.h"

struct trace_result;

/* The finding id of subsystem SS's part ("audit", "frozen_filesystem",
 * "kernel_waits_vfs", ...). */
const char *trace_subsys_finding_id(int ss);

/* Subsystem SS's part of R: WAIT_NS blocked or sleeping at its sites,
 * CPU_NS of its kernel work, RUNQ_NS waiting to run behind helpers whose
 * waits it owns; the evidence into BUF ("the threads waited ..."). */
void trace_subsys_evidence(const struct trace_result *r, int ss, double wait_ns, double cpu_ns,
			   double runq_ns, char *buf, size_t len);

#endif
