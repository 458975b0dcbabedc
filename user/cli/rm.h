// SPDX-License-Identifier: GPL-3.0-or-later
#ifndef ADAPTRM_RM_H
#define ADAPTRM_RM_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "cli/options.h"
#include "ctl/decision.h"
/* What the adaptive controller did in a run, for `adaptrm --trace -rf`. */
struct rm_report {
	char controller[160];		       /* controller_describe(); "" if no controller ran */
	struct controller_decision *decisions; /* malloc'ed copy (free it), or NULL */
	size_t ndecisions;
};

/* What a caller of the rm face adds to it: the plain face (adaptrm -rf) is
 * all zeroes; --trace -rf asks for the report and the interrupt; each rank
 * of adaptrm-mpi attaches to the engine, and all but the first serve. */
struct engine;
struct steer;
struct rm_face {
	/* Filled (zeroed first) before the controller is freed. */
	struct rm_report *report;
	/* The engine exists (before its first tree): attach to it, and give
	 * the steering its input (adaptrm-mpi's budget). */
	void (*engine_ready)(struct engine *e, struct steer *s, void *arg);
	/* Every operand is done (or the serving ended), OK saying whether
	 * all went well here: before the summary, say whether all went
	 * well everywhere. */
	bool (*finish)(struct engine *e, bool ok, void *arg);
	/* Called once, in the deleting thread, when SIGINT or SIGTERM has
	 * stopped the delete: after the workers' last syscalls, before the
	 * process exits 128 + SIG (--trace -rf writes its report here). */
	void (*on_interrupt)(int sig, void *arg);
	void *arg;  /* the callbacks' argument */
	bool quiet; /* no --stats summary here (another rank prints it) */
	/* Set: no operands of its own, an engine and its controller that run
	 * the trees given to it (engine_serve) until *SERVE_UNTIL, tuned for
	 * the filesystem of the first directory among FILES (this machine's
	 * spelling of the operands). */
	const atomic_bool *serve_until;
};
/* Remove FILES as GNU rm would, with the parallel engine for trees, as FACE
 * (NULL: the plain face) asks. Returns the exit status (0 ok, 1 some
 * error); exits 128 + SIG when SIGINT or SIGTERM stopped it. */
int rm_run(const struct rm_options *o, int nfiles, char **files, const struct rm_face *face);
/* The operand's parent opened O_PATH (or AT_FDCWD), *BASE its last
 * component in the malloc'ed *COPY; -1 and errno on failure. */
int rm_open_parent(const char *path, char **copy, const char **base, bool *trailing_slash);
/* A tree operand as GNU shows it (malloc'ed). */
char *rm_display_name(const char *path);
#endif
