// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace report's sections as models: for each section the rows it
 * shows, already selected, ordered and with their figures computed, filled
 * once from the result (report_model.c). The text and the JSON (report.c)
 * only format a model, so that the two cannot drift apart: the same rows in
 * the same order, where the text may stop early at a count or leave out the
 * rows the model marks as not shown. */
#ifndef ADAPTRM_TRACE_REPORT_MODEL_H
#define ADAPTRM_TRACE_REPORT_MODEL_H
#include <stdbool.h>
#include <stdint.h>
#include "probes/cpuclass.h"
#include "probes/probes.h"
#include "probes/subsys.h"
#include "trace/result.h"

/* Text histograms by default: the deletion syscalls with at least this many
 * calls; --all shows every syscall's. */
#define TRACE_HIST_MIN_CALLS 100
/* Rows of the text's syscall table by default (--all: every syscall). */
#define TRACE_TABLE_ROWS 12
/* Wait sites the text lists by default (--all: TRACE_MAX_SITES). */
#define TRACE_TEXT_SITES 5

struct report_syscall {
	int nr;
	char name[32];			/* "unlinkat", else "syscall_NR" */
	const struct probe_sc_stat *st; /* calls, errors, the latency histogram */
	double pct;			/* of all the syscalls' time, in percent */
	double mean_ns, p50_ns, p99_ns;
	bool hist; /* its histogram is in the text (deletion syscalls with enough calls, or --all) */
};

struct report_syscalls {
	/* every syscall with calls, by time, the largest first (then by number) */
	struct report_syscall rows[PROBE_NR_SYSCALLS];
	int n;
	int shown; /* the text's table lists the first SHOWN and counts the rest */
	/* the text's histograms in their order, as indices into rows: the
	 * syscalls shown in detail in their fixed order, then the others by time */
	int hist_order[PROBE_NR_SYSCALLS];
	uint64_t total_ns, calls, errors;
	bool all;			    /* --all: the title says "traced", not "deletion" */
	const struct probe_hist *removedir; /* unlinkat(AT_REMOVEDIR), after unlinkat's */
	const struct probe_hist *getdents_bytes; /* bytes per getdents64 call */
	bool getdents_hist;			 /* that histogram is in the text */
	int hidden; /* histograms the text leaves to --all and the JSON */
};

struct report_lock_type {
	int flags; /* contention_begin's flags, the lock type */
	const char *name;
	const struct probe_hist *wait;
	double p99_ns;
};

struct report_lock_caller {
	const char *caller, *type;
	uint64_t count, total_ns;
	double avg_ns;
};

struct report_locks {
	bool traced;
	struct report_lock_type types[PROBE_LOCK_TYPES]; /* the contended ones, by flags */
	int ntypes;
	bool hists; /* the text draws the types' histograms (--all) */
	struct report_lock_caller callers[TRACE_MAX_CALLERS]; /* by total wait */
	int ncallers;
	bool callers_shown; /* the text lists the callers (--all) */
};

/* The traced threads' time by state. */
struct report_offcpu {
	const struct trace_cpu *cpu; /* on CPU (when cpu->have) */
	bool traced;
	/* the wait sites split blocked (D) and sleeping (S) time from the
	 * run-queue delay after their wakeup; without sites the histograms'
	 * totals hold both */
	bool by_sites;
	double blocked_ns, blocked_rq_ns, slept_ns, slept_rq_ns;
	const struct probe_hist *blocked, *sleeping, *preempted, *runq;
	double preempted_p99_ns, runq_p99_ns;
	bool blocked_hist; /* the text draws the blocked time per switch (--all) */
};

struct report_cpu_cat {
	int cat; /* enum cpu_cat */
	uint64_t samples;
	double share; /* of the kernel samples */
	bool shown;   /* the text names it (1% or more) */
};

struct report_oncpu {
	bool traced;  /* the on-CPU time was measured (the offcpu group) */
	bool sampled; /* the oncpu group's sampler ran */
	uint64_t oncpu_ns, syscall_ns, wait_syscall_ns, outside_ns, offcpu_ns, thread_ns;
	unsigned sample_hz; /* 0 when not sampled */
	uint64_t samples, samples_user, samples_kernel, samples_nostack;
	double user_share;	   /* of the samples */
	uint64_t subsys[SS_COUNT]; /* kernel samples another subsystem spent, by enum subsys */
	struct report_cpu_cat cats[CPU_COUNT]; /* kernel categories with samples, most first */
	int ncats;
};

struct report_site {
	const struct trace_wait_site *w;
	double share; /* of all the sites' off-CPU time */
};

struct report_sites {
	bool traced;
	struct report_site *rows; /* every site, by off-CPU time, the largest first */
	int n;
	int shown; /* the text lists the first SHOWN */
	uint64_t all_ns;
	bool no_stacks; /* waits were seen but no stacks recorded (--no-callers) */
	uint64_t lost, lost_ns;
};

/* Waiting to run: from sched_wakeup to running, and preempted. */
struct report_runq {
	bool shown; /* in the text (traced, and --all) */
	const struct probe_hist *wakeup;
	double p50_ns, p99_ns;
	uint64_t busy_runq_ns, busy_preempted_ns, behind_traced_ns;
	double behind_traced_share;		 /* of the run-queue and preempted time */
	const unsigned long long *behind_fsw_ns; /* by PROBE_FSW_* */
};

struct report_fs_dev {
	const struct trace_dev *td;
	const struct probe_dev_stat *d;
	char id[24]; /* "major:minor" */
	/* the text's lines of the device */
	bool jbd2, block, ext4_discards, other_block;
	bool latency_hist; /* its block I/O latency histogram (the delete's, --all) */
	bool shown;	   /* in the text: with events, the delete's or --all */
};

/* One filesystem's line in the text. */
struct report_fs_group {
	bool traced; /* its probes attached */
	bool active; /* with events: the figures' line, else "no activity" */
	bool hist;   /* its latency histogram (--all) */
};

struct report_fs {
	const struct probe_misc *m;
	struct probe_dev_stat delete_devs; /* the delete's devices added up */
	struct report_fs_group ext4, xfs, btrfs;
	bool ino_order;				   /* ext4 unlinks' inode distances were measured */
	double ino_near_share;			   /* of them within TRACE_INO_NEAR inodes */
	double ino_p50;				   /* the median distance */
	bool ino_hist;				   /* its histogram (--all) */
	bool devs_traced;			   /* the jbd2 or block probes attached */
	struct report_fs_dev devs[PROBE_MAX_DEVS]; /* the delete's first, then the others */
	int ndevs;
};

struct report_intervals {
	const struct trace_interval *rows;
	int n;
	uint64_t asked_ns; /* --interval */
	/* the sampler could not keep the pace: the rows but the last are
	 * SPACING_NS apart on average, over half again as asked */
	bool late;
	double spacing_ns;
};

struct report_model {
	const struct trace_result *r;
	struct report_syscalls syscalls;
	struct report_locks locks;
	struct report_offcpu offcpu;
	struct report_oncpu oncpu;
	struct report_sites sites;
	struct report_runq runq;
	struct report_fs fs;
	struct report_intervals intervals;
};

/* A new model of R's report (R must outlive it); free with
 * trace_report_model_free. */
struct report_model *trace_report_model(const struct trace_result *r);
void trace_report_model_free(struct report_model *m);

#endif
