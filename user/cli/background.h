/* --background: an operand renamed into a holding place on its filesystem,
 * for the detached deleter (hold/deleter.c) to delete; and --pending,
 * --wait and --resume, which look at and finish what is held. */
#ifndef ADAPTRM_CLI_BACKGROUND_H
#define ADAPTRM_CLI_BACKGROUND_H
#include "cli/options.h"

#include <stdbool.h>
#include <sys/stat.h>

/* Take the operand ARG (BASE in the parent PFD, lstat'ed as ST, after GNU's
 * checks passed): true if it is held and a deleter is on it; false if the
 * caller must delete it in the foreground (said why with -v or --stats, or
 * always when a holding place is unsafe). */
bool background_take(const struct rm_options *o, int pfd, const char *base, const char *arg,
		     const struct stat *st);

/* With -v or --stats: "ARG: deleted in the foreground: WHY". */
void background_say_foreground(const struct rm_options *o, const char *arg, const char *why);

/* --pending, --wait [PATH]..., --resume: the exit status. */
int background_main(const struct rm_options *o, int nfiles, char **files);

#endif
