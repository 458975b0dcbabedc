// SPDX-License-Identifier: GPL-3.0-or-later
/* On-CPU categories (oncpu.h). */
#include "trace/oncpu.h"
#include "lib/xalloc.h"
#include "probes/frames.h"
#include "probes/ksyms.h"
#include "probes/probes.h"
#include "trace/result.h"
#include "trace/tracers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The verdict's grouping of the categories (report.h's trace_cpu_cat):
 * the unlink, lookups and directory reads are the filesystem's own cost
 * together; allocation, entry, interrupts and FUSE's CPU are the rest. */
static int verdict_cat(int cat)
{
	switch (cat) {
	case CPU_UNLINK:
	case CPU_READDIR:
	case CPU_LOOKUP: return TCPU_UNLINK;
	case CPU_EVICT: return TCPU_FREEING;
	case CPU_RECLAIM: return TCPU_RECLAIM;
	case CPU_OVERLAY: return TCPU_OVERLAY;
	case CPU_PAGE_FAULT: return TCPU_FAULT;
	case CPU_LOCK_SPIN: return TCPU_SPIN;
	case CPU_JOURNAL: return TCPU_JOURNAL;
	default: return TCPU_OTHER;
	}
}

/* Another tracer's handler at the top of a sampled stack (FRAMES, the
 * innermost first) spent that CPU, wherever the event it hooks fired:
 * perf's or ftrace's handlers on every system call (perf trace -a, syscall
 * events in tracefs) are SS_TRACING, another tool's BPF programs SS_BPF.
 * This trace's own programs stay with the code that fired them. -1 when
 * no tracer is on top. */
static int tracer_on_top(const char *const *frames, int nf, const char **prog)
{
	for (int i = 0; i < nf; i++)
		if (!strncmp(frames[i], "bpf_prog_", 9)) {
			*prog = frames[i];
			return frame_is_own_prog(frames[i]) ? -1 : SS_BPF;
		}
	for (int i = 0; i < nf; i++) {
		int ss = subsys_of_frame(frames[i], NULL);
		/* what the handler itself calls: its locks, its buffers */
		if (ss == SS_LOCKING || ss == SS_MEMORY || ss == SS_SCHED)
			continue;
		return ss == SS_TRACING ? SS_TRACING : -1;
	}
	return -1;
}

/* Adds another tool's BPF program (its frame, "bpf_prog_TAG_NAME") to
 * C's tracers by name, once, while there is room. */
static void add_program(struct trace_cpu *c, const char *frame)
{
	const char *name = strlen(frame) > 26 ? frame + 26 : frame;
	size_t nl = strcspn(name, "+"), used = strlen(c->tracers);
	char want[96];

	snprintf(want, sizeof want, "%.*s", (int)(nl < 80 ? nl : 80), name);
	if (strstr(c->tracers, want))
		return;
	snprintf(c->tracers + used, sizeof c->tracers - used, "%sBPF program %s", used ? ", " : "",
		 want);
}

/* The subsystem that spent a sampled stack's CPU when it is not the
 * delete's own machinery (audit's records formatted on the way out of each
 * unlinkat, an LSM's checks, notification events, BPF programs): -1 for
 * the filesystem's own work, which the categories split. Interrupts that
 * hit the thread stay with the categories. */
int trace_cpu_subsys(const char *const *frames, int nf, const char **prog)
{
	int ss = tracer_on_top(frames, nf, prog);
	if (ss >= 0)
		return ss;
	ss = subsys_of_stack(frames, nf, NULL, NULL);

	switch (ss) {
	case SS_AUDIT:
	case SS_NOTIFY:
	case SS_SECURITY:
	case SS_BPF:
	case SS_TRACING:
	case SS_CGROUP:
	case SS_SIGNAL: return ss;
	default: return -1;
	}
}

/* The on-CPU times (probes' accounting, cut at every syscall boundary):
 * inside busy syscalls the kernel's; outside them, user mode and the
 * kernel's faults and interrupts taken there, told apart by the samples
 * (USER of them user-mode, KERNEL_OUTSIDE in the kernel outside any
 * syscall); the kernel's time inside waiting syscalls is the kernel's too. */
static void cpu_times(struct trace_result *r, uint64_t user, uint64_t kernel_outside)
{
	const struct probe_misc *m = &r->total->misc;
	struct trace_cpu *c = &r->cpu;
	if (!m->oncpu_ns)
		return;
	c->have = true;
	c->syscall_ns = m->oncpu_syscall_ns;
	uint64_t in_sc = m->oncpu_syscall_ns + m->oncpu_wait_syscall_ns;
	uint64_t outside = m->oncpu_ns > in_sc ? m->oncpu_ns - in_sc : 0;
	double u = user + kernel_outside ? (double)user / (double)(user + kernel_outside) : 1;
	c->user_ns = (uint64_t)((double)outside * u);
	c->kernel_other_ns = outside - c->user_ns + m->oncpu_wait_syscall_ns;
}

void trace_collect_oncpu(struct probes *p, struct trace_result *r)
{
	struct probe_cpu_sample *s = NULL;
	int n = p ? probes_cpu_samples(p, &s) : 0;
	const struct ksyms *k = p ? probes_ksyms(p) : NULL;

	memset(r->cpu_samples, 0, sizeof r->cpu_samples);
	memset(&r->cpu, 0, sizeof r->cpu);
	uint64_t user = 0, kernel_outside = 0;
	for (int i = 0; i < n; i++) {
		static char names[PROBE_CPU_STACK_DEPTH][128];
		const char *frames[PROBE_CPU_STACK_DEPTH];
		int nf = 0, site;

		if (s[i].flags & PROBE_CPU_USER) {
			r->cpu_samples[CPU_USER] += s[i].count;
			user += s[i].count;
			continue;
		}
		bool in_busy = s[i].flags & PROBE_CPU_IN_SYSCALL;
		if (!in_busy && !(s[i].flags & PROBE_CPU_IN_WAIT_SC))
			kernel_outside += s[i].count;
		if (s[i].stackid < 0)
			continue; /* no stack kept: in cpu_samples_nostack */
		for (; nf < PROBE_CPU_STACK_DEPTH && s[i].ips[nf]; nf++) {
			ksyms_name(k, s[i].ips[nf], names[nf], sizeof names[nf]);
			frames[nf] = names[nf];
		}
		int cat = cpu_classify(frames, nf, &site);
		r->cpu_samples[cat] += s[i].count;
		const char *prog = NULL;
		int ss = trace_cpu_subsys(frames, nf, &prog);
		if (ss == SS_BPF && prog)
			add_program(&r->cpu, prog);
		if (ss >= 0) {
			(in_busy ? r->cpu.ss_sys : r->cpu.ss_other)[ss] += s[i].count;
			continue;
		}
		if (in_busy)
			r->cpu.samples_sys[verdict_cat(cat)] += s[i].count;
		else
			r->cpu.samples_other[verdict_cat(cat)] += s[i].count;
	}
	free(s);
	cpu_times(r, user, kernel_outside);
	if (r->cpu.ss_sys[SS_TRACING] + r->cpu.ss_other[SS_TRACING]) {
		size_t used = strlen(r->cpu.tracers);
		char holders[160];
		trace_perf_holders(holders, sizeof holders);
		if (*holders)
			snprintf(r->cpu.tracers + used, sizeof r->cpu.tracers - used,
				 "%sperf events held by %s", used ? "; " : "", holders);
	}
}

uint64_t trace_cpu_kernel_samples(const struct trace_result *r)
{
	uint64_t t = 0;

	for (int c = 0; c < CPU_COUNT; c++)
		if (c != CPU_USER)
			t += r->cpu_samples[c];
	return t;
}
