// SPDX-License-Identifier: GPL-3.0-or-later
/* Who else traces the machine: the processes that hold perf events, named
 * when another tracer's handlers spent the traced threads' CPU. */
#ifndef ADAPTRM_TRACE_TRACERS_H
#define ADAPTRM_TRACE_TRACERS_H
#include <stddef.h>

/* "perf (pid 2054), trace-cmd (pid 77)": up to three processes other than
 * this one that hold perf events, into BUF (empty when none or /proc is
 * not readable). */
void trace_perf_holders(char *buf, size_t len);

#endif
