// SPDX-License-Identifier: GPL-3.0-or-later
/* --background: an operand renamed into a holding place on its filesystem,
 * for the detached deleter (hold/deleter.c) to delete; and --pending,
 * --wait and --resume, which look at and finish what is held. */
#ifndef ADAPTRM_CLI_BACKGROUND_H
#define ADAPTRM_CLI_BACKGROUND_H
#include "cli/options.h"

#include <stdbool.h>
#include <sys/stat.h>

/* What became of an operand --background was given. */
enum bg_take {
	BG_FOREGROUND, /* the caller deletes it (said why with -v or --stats, or
			* always when a place is unsafe or no deleter could start) */
	BG_HELD,       /* held, and a deleter runs on it */
	BG_FAILED,     /* held, no deleter could start, and it could not go back:
			* said, and the call fails */
};

/* Take the operand ARG (BASE in the parent PFD, lstat'ed as ST, after GNU's
 * checks passed). */
enum bg_take background_take(const struct rm_options *o, int pfd, const char *base, const char *arg,
			     const struct stat *st);

/* With -v or --stats: "ARG: deleted in the foreground: WHY". */
void background_say_foreground(const struct rm_options *o, const char *arg, const char *why);

/* --pending, --wait [PATH]..., --resume: the exit status. */
int background_main(const struct rm_options *o, int nfiles, char **files);

#endif
