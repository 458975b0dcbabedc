// SPDX-License-Identifier: GPL-3.0-or-later
/* Which block requests are the delete's: those its threads issued, and on
 * the delete's own devices those its filesystem's kernel threads issued for
 * it (the journal, metadata writeback, discards). Everything else a device
 * served during the trace is its other load, shown apart and left out of
 * the verdict and of --compare. */
#ifndef ADAPTRM_TRACE_BLOCKIO_H
#define ADAPTRM_TRACE_BLOCKIO_H
#include <stdbool.h>
#include "probes/probes.h"

struct trace_result;

/* Fill D's bio_* (the delete's) and other_* (the rest) from its bio_by[],
 * for a device that holds the delete's filesystem (DELETE_DEV) or not. */
void trace_block_split(struct probe_dev_stat *d, bool delete_dev);

/* trace_block_split for every device of S, the delete's devices as R says
 * (trace_dev.traced). */
void trace_block_split_all(struct probe_snapshot *s, const struct trace_result *r);

#endif
