// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict: the cause catalogue (findings.c), one row per cause:
 * its id, its name in words, the parts of the traced threads' whole time it
 * claims, its generic remedy and a command that confirms it without
 * adaptrm. A rule decides whether its cause applies and words the evidence;
 * verdict.c renders the finding as a sentence. The ids are the JSON
 * interface (docs/json.md). */
#ifndef ADAPTRM_TRACE_FINDINGS_H
#define ADAPTRM_TRACE_FINDINGS_H
#include <stdbool.h>
#include "probes/probes_shared.h"

struct trace_result;

/* The verdict partitions the traced threads' whole time: on CPU in user
 * space and in the kernel (by what the kernel did), runnable (throttled,
 * behind traced threads, behind others), blocked and sleeping by class of
 * wait site, idle. Each top-level finding owns a part; their shares sum to 1. A finding with EXPLAINS set says why part of another
 * finding's time was spent (scattered inode order explains journal waits):
 * its share is of that part, and it is not counted again. */
struct trace_finding {
	const char *id;	      /* stable identifier (JSON) */
	const char *explains; /* NULL, or the id of the finding it explains */
	double share;	      /* of the traced threads' whole time */
	bool cause;	      /* false for what is not a cause (idle waits): ranked last */
	const char *title;    /* the cause in words: "CPU quota" */
	const char *remedy;   /* one sentence: the row's, or the rule's for its case */
	const char *confirm;  /* a command that confirms it without adaptrm, or "" */
	char evidence[640];   /* the figures: what was measured, no remedy */
};

#define TRACE_MAX_FINDINGS 24
/* Top-level findings ranked by share (largest first), each followed by the
 * findings that explain it. Returns how many; none when nothing was busy.
 * With fewer than all slots (MAX), the smallest are cut. */
int trace_findings(const struct trace_result *r, struct trace_finding *out, int max);
/* The sum of the top-level shares: 1 (0 with no findings). */
double trace_findings_total(const struct trace_finding *f, int n);

/* The words of one catalogue entry: a row of findings.c's table, or of a
 * family it spans (each kernel subsystem's, from probes/subsys.c). */
struct trace_finding_words {
	const char *id, *title, *remedy, *confirm;
};
/* Each finding id the catalogue can produce with its words, into OUT (at
 * most MAX); returns how many there are. */
int trace_finding_catalogue(struct trace_finding_words *out, int max);

/* The verdict, computed once from a trace (trace_verdict_compute) and
 * rendered as text and JSON (report.c). */
struct trace_verdict {
	/* The traced threads' whole time the shares are of: thread
	 * nanoseconds, the sum of the verdict's parts (0 when nothing was busy). */
	double whole_ns;
	/* The waits of traced processes that removed nothing (helpers waiting
	 * on pipes or children), left out of the whole time, ns. */
	double helper_ns;
	/* The part of the whole time that the lifetimes hold beyond every
	 * measured part (not accounted), ns. */
	double unaccounted_ns;
	/* The sum of the top-level shares: 1 (0 with no findings). */
	double total_share;
	/* The findings as trace_findings ranks them, N of them. */
	int n;
	struct trace_finding findings[TRACE_MAX_FINDINGS];
};
/* Partitions R's time once and fills V: the whole time, the helpers' waits
 * and the ranked findings. */
void trace_verdict_compute(const struct trace_result *r, struct trace_verdict *v);

#endif
