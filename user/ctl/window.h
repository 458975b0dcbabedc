// SPDX-License-Identifier: GPL-3.0-or-later
/* The policy's decision windows: the ticks' samples summed until a window
 * closes, then one window's means, its rate and the spread of its ticks'
 * rates (the noise). The policy (policy.c) decides on closed windows. */
#ifndef ADAPTRM_CTL_WINDOW_H
#define ADAPTRM_CTL_WINDOW_H
#include <stdbool.h>

#define CTL_WHY_LEN 200

/* What one tick measured. Shares are of the active workers' busy time;
 * a negative value means "not measured" (no BPF, no schedstats). */
struct ctl_sample {
	double dt;	    /* seconds covered */
	double ops;	    /* work done in it (syscalls, or entries removed) */
	double lat_mean_us; /* unlinkat mean latency */
	double lat_p99_us;
	double contention; /* time waiting on locks / busy time */
	double blocked;	   /* time blocked off-CPU (D state, FUSE waits) / busy time */
	double busy;	   /* busy worker time / (active workers * dt): <1 when starved */
	double cpu;	   /* on-CPU time / busy time: near 1 when CPU-bound */
	double spare;	   /* share of dt work waited for a worker (1: a directory
				 * big enough to share was read) */
	double capped;	   /* share of the blocked time on a cap more workers cannot
			    * pass (journal, log space, throttled I/O): BPF only */
};

/* A mean of measured values: negative ones ("not measured") are left out. */
struct ctl_mean {
	double sum, n;
};

/* The ticks of the window still open. */
struct ctl_window_acc {
	double ops, dt;
	double r, r2; /* sum of tick rates and of their squares (noise) */
	struct ctl_mean lat, cont, blk, busy, cpu, spare, capped;
	int ticks;
};

/* One closed decision window. Means are -1 where not measured. */
struct ctl_window {
	double ops, dt, rate;
	double lat, cont, blk, busy, cpu, spare, capped;
	/* Filled by the phase's handler: */
	double gain;  /* rate against the reference (hold) or the base (candidate) */
	double thr;   /* the gain that counts as real (candidate) */
	double crate; /* the candidate's rate over all its windows */
};

/* Add sample S to A; once A holds NEED ticks, the window closes: W filled,
 * *NOISE the variance of the window mean's rate relative to it (-1 if it
 * cannot be told), A emptied, and true. */
bool ctl_window_add(struct ctl_window_acc *a, const struct ctl_sample *s, int need,
		    struct ctl_window *w, double *noise);

/* Evidence for --explain into OUT (CTL_WHY_LEN bytes): "throughput +38%,
 * contention 2%, blocked 61%" for a GAIN and W's means, with ", on a cap
 * 90%" when that share of the blocked time was on one (BPF), and NOTE. */
void ctl_window_evidence(char *out, double gain, const struct ctl_window *w, const char *note);

#endif
