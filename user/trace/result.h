// SPDX-License-Identifier: GPL-3.0-or-later
/* What --trace found: the totals, the intervals, the wait sites, the
 * on-CPU time and the limits. trace.c fills it, the analysis (findings.c)
 * reads it, and the report prints it. */
#ifndef ADAPTRM_TRACE_RESULT_H
#define ADAPTRM_TRACE_RESULT_H
#include "ctl/decision.h"
#include "probes/cpuclass.h"
#include "probes/probes.h"
#include "probes/subsys.h"
#include "trace/cgroups.h"
#include "trace/waits.h"
#include "trace/wakers.h"

#define TRACE_MAX_CALLERS 10
#define TRACE_SCHEMA "adaptrm-trace/1"

/* One --interval sample (deltas over the interval). */
struct trace_interval {
	uint64_t t_ns; /* end of the interval since start */
	uint64_t len_ns;
	uint32_t nthreads;
	uint64_t unlinkat_calls, unlinkat_ns, getdents_calls, getdents_ns, openat_calls;
	double unlinkat_p50_ns, unlinkat_p99_ns;
	uint64_t lock_wait_ns, rwsem_write_wait_ns, blocked_ns, sleeping_ns;
	/* the threads' whole time, split as the verdict's top parts are: on CPU
	 * (of it inside busy and inside waiting system calls), and preempted */
	uint64_t oncpu_ns, oncpu_syscall_ns, oncpu_wait_syscall_ns, preempted_ns;
	/* stopped, frozen, other states and off CPU since before tracing,
	 * with their run-queue waits: the rest of the whole time */
	uint64_t other_state_ns;
};

/* On-CPU time of the traced threads, from the probes' accounting and the
 * sampled kernel stacks: what the verdict's CPU parts are made of. */
enum trace_cpu_cat {
	TCPU_UNLINK,  /* the unlink, rmdir, lookup and readdir proper */
	TCPU_FREEING, /* inode eviction, extent and block freeing, page-cache truncation */
	TCPU_RECLAIM, /* direct and memory-cgroup reclaim, compaction */
	TCPU_OVERLAY, /* overlayfs copy-up and whiteouts */
	TCPU_FAULT,   /* page faults */
	TCPU_SPIN,    /* spinning on locks */
	TCPU_JOURNAL, /* journal and log work */
	TCPU_OTHER,   /* allocation, entry and exit, anything else */
	TCPU_COUNT
};
struct trace_cpu {
	bool have;		  /* on-CPU time was measured */
	uint64_t user_ns;	  /* on CPU in user mode */
	uint64_t syscall_ns;	  /* on CPU in the kernel inside system calls */
	uint64_t kernel_other_ns; /* on CPU in the kernel outside them (faults, return to user) */
	/* kernel samples by category, inside and outside system calls: the
	 * weights that split syscall_ns and kernel_other_ns */
	uint64_t samples_sys[TCPU_COUNT], samples_other[TCPU_COUNT];
	/* kernel samples that a subsystem other than the delete's own
	 * machinery spent (audit records, LSM hooks, notification, BPF), by
	 * enum subsys, inside and outside system calls: apart from the
	 * categories above */
	uint64_t ss_sys[SS_COUNT], ss_other[SS_COUNT];
	/* who another tracer's CPU (SS_TRACING, SS_BPF) was: the processes
	 * holding perf events, the other tool's BPF programs by name */
	char tracers[200];
};

/* The limits the traced tasks' cgroups set, and what they did while
 * tracing (deltas): the context a finding names. Empty strings: no limit. */
struct trace_limits {
	char cpu_cgroup[160];	    /* with a CFS quota */
	double cpu_quota;	    /* quota / period, in CPUs (0: none) */
	uint64_t nr_throttled;	    /* periods throttled */
	uint64_t throttled_ns;	    /* time throttled */
	char mem_cgroup[160];	    /* with a memory limit */
	uint64_t mem_limit;	    /* bytes (0: none) */
	uint64_t mem_failcnt;	    /* times the limit was hit */
	uint64_t mem_reclaim_pages; /* pages scanned for reclaim in the cgroup */
	char io_cgroup[160];	    /* with an I/O throttle */
	char io_limit[160];	    /* "7:0 read 400 IOPS", ... */
	uint32_t io_dev;	    /* its device, kernel dev_t (0: not known) */
};

struct trace_result {
	const char *mode; /* "command", "pid", "self" */
	char **argv;	  /* command or rm operands, NULL-terminated */
	int pid;
	int exit_status; /* -1 when unknown (-p) */
	uint64_t wall_ns;
	uint32_t max_threads; /* live at once, sampled */
	uint32_t threads_seen;
	bool attached[PROBE_G_COUNT];
	const char *notes; /* newline-separated */
	const struct probe_snapshot *total;
	struct probe_caller callers[TRACE_MAX_CALLERS];
	char caller_names[TRACE_MAX_CALLERS][128];
	int ncallers;
	struct trace_interval *iv;
	int niv;
	/* where the threads waited, on which devices (waits.h) */
	struct trace_wait_site *sites; /* by off-CPU time, largest first */
	int nsites;		       /* all of them (the text shows TRACE_MAX_SITES) */
	bool have_sites;	       /* wait-site stacks were recorded */
	uint64_t wait_ns[TC_COUNT];    /* blocked time (wakeup excluded) inside busy
					 * syscalls and outside lock waits, by cause */
	struct trace_dev devs[PROBE_MAX_DEVS];
	int ndevs;
	/* who ended each wait, who held the CPU (wakers.h) */
	struct trace_waker *wakers;
	int nwakers;
	/* on-CPU samples by category (trace/oncpu.h; CPU_USER: user mode);
	 * the on-CPU and thread time themselves are in total->misc
	 * (oncpu_ns, ...) and probes_thread_ns(total) */
	uint64_t cpu_samples[CPU_COUNT];
	/* -rf (mode "self"): the adaptive controller's summary and decisions */
	const char *controller; /* NULL: no controller ran */
	const struct controller_decision *decisions;
	size_t ndecisions;
	/* the traced processes' cgroups: limits, throttling, pressure
	 * (cgroups.h); NULL: not read */
	const struct trace_cgroups *cgroups;
	uint64_t interval_ns;	     /* --interval as asked (0: none) */
	bool all;		     /* --all: every syscall's histogram in the text */
	int width;		     /* columns the text wraps at (0: none) */
	uint64_t load_ns, attach_ns; /* the probes' start: load, attach */
	struct trace_cpu cpu;
	struct trace_limits limits;
};

#endif
