// SPDX-License-Identifier: GPL-3.0-or-later
/* The verdict's evidence for a subsystem's part (subsys.h). */
#include "trace/subsys.h"
#include "trace/measure.h"
#include "trace/result.h"
#include "trace/wakers.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *trace_subsys_finding_id(int ss)
{
	static const char *const ids[SS_COUNT] = {
		[SS_VFS] = "kernel_waits_vfs",
		[SS_FS] = "kernel_waits_filesystem",
		[SS_BLOCK] = "kernel_waits_block",
		[SS_MEMORY] = "kernel_waits_memory",
		[SS_LOCKING] = "kernel_waits_locking",
		[SS_SCHED] = "kernel_waits_sched",
		[SS_AUDIT] = "audit",
		[SS_NOTIFY] = "file_notification",
		[SS_SECURITY] = "security_modules",
		[SS_FREEZE] = "frozen_filesystem",
		[SS_SIGNAL] = "signal_waits",
		[SS_CGROUP] = "cgroup_waits",
		[SS_BPF] = "bpf_programs",
		[SS_NET] = "network_waits",
		[SS_IPC] = "ipc_waits",
		[SS_RCU] = "rcu_waits",
		[SS_WORKQUEUE] = "workqueue_waits",
		[SS_TIMER] = "timer_waits",
		[SS_TRACING] = "tracing_cpu",
		[SS_KERNEL] = "kernel_waits_other",
	};
	return ss >= 0 && ss < SS_COUNT ? ids[ss] : "kernel_waits_other";
}

/* The heaviest wait site of subsystem SS, or "". */
static const char *top_site(const struct trace_result *r, int ss)
{
	const struct trace_wait_site *best = NULL;

	for (int i = 0; i < r->nsites; i++)
		if (r->sites[i].subsys == ss && (!best || r->sites[i].blocked_ns > best->blocked_ns))
			best = &r->sites[i];
	return best ? best->site : "";
}

/* Append to BUF (LEN bytes, *N used) as printf would; stops when full. */
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w > 0)
		*n = *n + (size_t)w < len ? *n + (size_t)w : len;
}

void trace_subsys_evidence(const struct trace_result *r, int ss, double wait_ns, double cpu_ns,
			   double runq_ns, char *buf, size_t len)
{
	char b1[32], b2[32], b3[32], parts[256] = "", wakers[320] = "";
	const char *site = top_site(r, ss);
	size_t n = 0;

	if (wait_ns > 0)
		append(parts, sizeof parts, &n, "waited %s in it%s%s%s",
		       trace_fmt_ns(wait_ns, b1, sizeof b1), *site ? " (top site " : "", site,
		       *site ? ")" : "");
	if (cpu_ns > 0)
		append(parts, sizeof parts, &n, "%sspent %s on CPU in its code", n ? ", " : "",
		       trace_fmt_ns(cpu_ns, b2, sizeof b2));
	if (runq_ns > 0)
		append(parts, sizeof parts, &n,
		       "%swaited %s to run behind the helpers that answer it", n ? ", " : "",
		       trace_fmt_ns(runq_ns, b3, sizeof b3));
	trace_wakers_phrase(r, trace_waker_in_subsys, &ss, wakers, sizeof wakers);
	/* another tracer's CPU: who it was */
	const char *who = (ss == SS_TRACING || ss == SS_BPF) && *r->cpu.tracers ? r->cpu.tracers : "";
	snprintf(buf, len, "the threads %s%s%s%s", parts, *who ? " (" : "", who, *who ? ")" : "");
	if (!*who)
		snprintf(buf, len, "the threads %s%s", parts, wakers);
}
