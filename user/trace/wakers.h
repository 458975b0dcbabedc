/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who ended each wait of the traced threads, and who held the CPUs they
 * then waited for: the probes' wakers (bpf/wakers.bpf.h) with each wait's
 * site classified (cause and kernel subsystem), summed by waker for the
 * verdict ("waited 2.1 s for auditd (pid 812)") and the report. */
#ifndef ADAPTRM_TRACE_WAKERS_H
#define ADAPTRM_TRACE_WAKERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "probes/probes_shared.h"

struct probes;
struct trace_result;
struct json_writer;

/* One (site, state, waker, waker's waker) of the probes. */
struct trace_waker {
	unsigned state; /* PROBE_OFFCPU_*, PROBE_WAKE_XSTATE + x, or PROBE_WAKE_HELD */
	int cause;	/* enum trace_cause of the wait's stack; -1: no stack */
	int subsys;	/* enum subsys of the wait's stack; -1: no stack */
	char site[96];	/* the wait's site ("" without a stack) */
	struct probe_waker_id who, via;
	uint64_t count, ns; /* waits, and their time off CPU before the wake-up (or
			     * the run-queue time, for PROBE_WAKE_HELD) */
};

/* Fill R's wakers from the probes (after the final read). */
void trace_collect_wakers(struct probes *p, struct trace_result *r);
void trace_free_wakers(struct trace_result *r);

/* Which waits a summary takes: MATCH(W, ARG), or every wait but the
 * run-queue holders with MATCH NULL. */
typedef bool (*trace_waker_match)(const struct trace_waker *w, const void *arg);

/* The waits of R that MATCH takes, summed by waker (who, and the most
 * frequent of its own wakers), largest first, in OUT (up to MAX). Returns
 * how many; *TOTAL (may be NULL) gets the matched time, ns. */
struct trace_waker_sum {
	struct probe_waker_id who, via;
	double ns;
	uint64_t count;
};
int trace_wakers_by_who(const struct trace_result *r, trace_waker_match match, const void *arg,
			struct trace_waker_sum *out, int max, double *total);

/* A waker's words: "auditd (pid 812)", "kauditd (a kernel thread)", "the
 * xfs-inodegc workqueue", "an interrupt (a device or a timer)". */
const char *trace_waker_name(const struct probe_waker_id *id, char *buf, size_t len);
const char *trace_waker_class_id(int cls); /* "process", "kthread", ... (JSON) */

/* "; ended by NAME in 93% of the time (812 waits), itself woken by VIA" for
 * the waits MATCH takes, into BUF ("" when no waker was seen). */
const char *trace_wakers_phrase(const struct trace_result *r, trace_waker_match match,
				const void *arg, char *buf, size_t len);

/* Matchers: waits whose site's kernel subsystem is *(const int *)ARG; lock
 * and directory-lock waits (ARG: the enum trace_cause); run-queue holders. */
bool trace_waker_in_subsys(const struct trace_waker *w, const void *arg);
bool trace_waker_of_cause(const struct trace_waker *w, const void *arg);
bool trace_waker_held(const struct trace_waker *w, const void *arg);
/* Waits in extra state *(const unsigned *)ARG (enum probe_xstate). */
bool trace_waker_in_xstate(const struct trace_waker *w, const void *arg);

/* Whether ID ended (or, one step up, caused) any wait of R's traced
 * threads outside the run queue: a helper they wait for, or a holder of
 * what they wait for. Returns the kernel subsystem most of those waits
 * were in (-1: none), and their most frequent cause in *CAUSE (-1: none). */
int trace_waker_serves(const struct trace_result *r, const struct probe_waker_id *id, int *cause);

/* The report's "wakers" section, text and JSON. */
void trace_text_wakers(FILE *f, const struct trace_result *r);
void trace_json_wakers(struct json_writer *w, const struct trace_result *r);

#endif
