// SPDX-License-Identifier: GPL-3.0-or-later
/* `adaptrm --from-list FILE [--prune-empty]`: delete the paths a list names
 * (find -print0, lfs find, a policy engine's output), then optionally the
 * directories they leave empty. */
#ifndef ADAPTRM_FROMLIST_CMD_H
#define ADAPTRM_FROMLIST_CMD_H
#include "cli/options.h"

/* The list mode's checks of O and its operands, then the delete. Returns
 * the exit status (0, or 1 on any error); exits 1 on a usage error. */
int fromlist_main(const struct rm_options *o, int nfiles, char **files);

#endif
