/* The --trace verdict: a table of rules (findings.c), each a condition on
 * the traced totals, a share of the busy syscall time, a sentence with its
 * evidence. The ids are the JSON interface (docs/json.md). */
#ifndef ADAPTRM_TRACE_FINDINGS_H
#define ADAPTRM_TRACE_FINDINGS_H
#include "probes/probes_shared.h"

struct trace_result;

/* The verdict partitions the traced threads' busy syscall time: running in
 * the kernel, waiting on each lock type, blocked at each class of wait site,
 * waiting to run, preempted. Each top-level finding owns a part; their
 * shares sum to 1. A finding with EXPLAINS set says why part of another
 * finding's time was spent (scattered inode order explains journal waits):
 * its share is of that part, and it is not counted again. */
struct trace_finding {
	const char *id;	      /* stable identifier (JSON) */
	const char *explains; /* NULL, or the id of the finding it explains */
	double share;	      /* of the busy syscall time */
	char text[640];
};

#define TRACE_MAX_FINDINGS 24
/* Top-level findings ranked by share (largest first), each followed by the
 * findings that explain it. Returns how many; none when nothing was busy.
 * With fewer than all slots (MAX), the smallest are cut. */
int trace_findings(const struct trace_result *r, struct trace_finding *out, int max);
/* The sum of the top-level shares: 1 (0 with no findings). */
double trace_findings_total(const struct trace_finding *f, int n);

/* Consecutive ext4 unlinks of a thread whose inodes are fewer than this
 * apart count as in order (the report's "unlink order" line). */
#define TRACE_INO_NEAR 64
double trace_ino_near_share(const struct probe_hist *h);

#endif
