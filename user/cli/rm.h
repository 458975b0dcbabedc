#ifndef ADAPTRM_RM_H
#define ADAPTRM_RM_H
#include <stdatomic.h>
#include <stdbool.h>
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

/* For a face that runs the rm face on several machines (adaptrm-mpi). */
struct engine;
struct rm_hooks {
	/* The engine exists (before its first tree): attach to it. */
	void (*engine_ready)(struct engine *e, void *arg);
	/* Every operand is done (or the serving ended), OK saying whether
	 * all went well here: before the summary, say whether all went
	 * well everywhere. */
	bool (*finish)(struct engine *e, bool ok, void *arg);
	void *arg;
	bool quiet; /* no --stats summary here (another rank prints it) */
};
void rm_set_hooks(const struct rm_hooks *h);
/* No operands of its own: an engine and its controller that run the trees
 * given to it (engine_serve) until *STOP, tuned for the filesystem of the
 * first directory among FILES (this machine's spelling of the operands);
 * the exit status as rm_main's. */
int rm_serve(const struct rm_options *o, int nfiles, char **files, const atomic_bool *stop);
/* The operand's parent opened O_PATH (or AT_FDCWD), *BASE its last
 * component in the malloc'ed *COPY; -1 and errno on failure. */
int rm_open_parent(const char *path, char **copy, const char **base, bool *trailing_slash);
/* A tree operand as GNU shows it (malloc'ed). */
char *rm_display_name(const char *path);
#endif
