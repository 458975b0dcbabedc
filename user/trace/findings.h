/* The --trace verdict: a table of rules (findings.c), each a condition on
 * the traced totals, a share of the busy syscall time, a sentence with its
 * evidence. The ids are the JSON interface (docs/json.md). */
#ifndef ADAPTRM_TRACE_FINDINGS_H
#define ADAPTRM_TRACE_FINDINGS_H
#include "probes/probes_shared.h"

struct trace_result;

struct trace_finding {
	const char *id;			/* stable identifier (JSON) */
	double share;			/* of the busy syscall time */
	char text[640];
};

#define TRACE_MAX_FINDINGS 12
/* Findings ranked by time share (largest first). Returns how many. */
int trace_findings(const struct trace_result *r, struct trace_finding *out, int max);

/* Consecutive ext4 unlinks of a thread whose inodes are fewer than this
 * apart count as in order (the report's "unlink order" line). */
#define TRACE_INO_NEAR 64
double trace_ino_near_share(const struct probe_hist *h);

#endif
