// SPDX-License-Identifier: GPL-3.0-or-later
/* --from-list FILE over the ranks of adaptrm-mpi: paths dealt by parent
 * directory, unlinked fd-relative on each rank, the empty directories
 * pruned on rank 0 after every rank is done (docs/design.md#scale-out). */
#ifndef ADAPTRM_DIST_FROMLIST_H
#define ADAPTRM_DIST_FROMLIST_H
#include "cli/options.h"

struct rank;
/* This rank's part (RANK of SIZE); the exit status, the same on every rank. */
int dist_fromlist_main(struct rank *r, int rank, int size, const struct rm_options *o);
#endif
