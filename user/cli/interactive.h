// SPDX-License-Identifier: GPL-3.0-or-later
/* Interactive removal: GNU rm's prompts (-i, -I's per-file questions, the
 * default mode's write-protected questions on a terminal), asked one at a
 * time in GNU's order by a serial traversal. The parallel engine never
 * prompts; rm.c routes here only when a prompt could be needed. */
#ifndef ADAPTRM_INTERACTIVE_H
#define ADAPTRM_INTERACTIVE_H
#include <stdbool.h>
#include <sys/stat.h>
#include "cli/options.h"

/* Could any prompt be asked under O (so the serial path must be used)? */
bool interactive_needed(const struct rm_options *o);

/* GNU yesno(): read one line from stdin; yes iff it starts with y or Y. */
bool interactive_yesno(void);

enum prompt_kind { PROMPT_REMOVE, PROMPT_DESCEND };

/* Ask about NAME (in directory FD, shown as DISPLAY, lstat ST) if GNU would.
 * Returns 1 = go ahead, 0 = declined, -1 = error already reported. */
int interactive_prompt(const struct rm_options *o, int fd, const char *name, const char *display,
		       const struct stat *st, enum prompt_kind kind, bool dir_empty);

/* Remove the directory NAME in PFD (shown as DISPLAY) and everything under
 * it, serially, prompting like GNU rm -r. Returns false on any error. */
bool interactive_remove_tree(const struct rm_options *o, int pfd, const char *name,
			     const char *display, const struct stat *st);
#endif
