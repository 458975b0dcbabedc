#ifndef ADAPTRM_RM_H
#define ADAPTRM_RM_H
#include <stddef.h>
#include "cli/options.h"
#include "ctl/decision.h"
/* Remove FILES as GNU rm would, with the parallel engine for trees. Returns
 * the exit status (0 ok, 1 some error); exits 130/143 when interrupted. */
int rm_main(const struct rm_options *o, int nfiles, char **files);

/* What the adaptive controller did in a run, for `adaptrm --trace -rf`. */
struct rm_report {
	char controller[160];		       /* controller_describe(); "" if no controller ran */
	struct controller_decision *decisions; /* malloc'ed copy (free it), or NULL */
	size_t ndecisions;
};
/* Called once, in the deleting thread, when SIGINT or SIGTERM has stopped
 * the delete: after the workers' last syscalls, before the process exits
 * 128 + SIG (--trace -rf writes its report here). */
void rm_on_interrupt(void (*fn)(int sig, void *arg), void *arg);
/* rm_main, filling REP (zeroed first) before the controller is freed. */
int rm_main_report(const struct rm_options *o, int nfiles, char **files, struct rm_report *rep);
#endif
