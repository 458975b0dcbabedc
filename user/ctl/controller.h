/* The adaptive controller: steers the engine's knobs while a tree is removed.
 * controller_new() returns NULL when nothing is to be steered or recorded
 * (--threads=N without --explain/--json); with --threads=N and --json it
 * records the time series without turning anything. */
#ifndef ADAPTRM_CONTROLLER_H
#define ADAPTRM_CONTROLLER_H
#include "engine/engine.h"
#include "cli/options.h"

struct controller;

/* Workers to create when the controller decides (cap; --max-threads). */
int controller_default_max_threads(int requested);
struct controller *controller_new(struct engine *e, const struct rm_options *o);
/* A tree inside DIRFD/NAME is about to be removed: choose the start point. */
void controller_begin_tree(struct controller *c, int dirfd, const char *name);
/* Called every engine tick (~100 ms) while the tree is being removed. */
void controller_tick(struct controller *c);
void controller_end_tree(struct controller *c);
void controller_finish(struct controller *c);
/* One line for --stats ("threads: ..."); NULL-safe. */
void controller_describe(const struct controller *c, char *buf, size_t len);
void controller_free(struct controller *c);

/* The decision log (for --trace -rf and tests): every change of a knob, with
 * its evidence, in order. Valid until controller_free. */
struct controller_decision {
	double t;		/* seconds since the first tree began */
	int from, to;		/* active workers */
	char why[200];
};
size_t controller_decisions(const struct controller *c, const struct controller_decision **out);
/* Active workers at the end of the last tree (0 if none ran). */
int controller_final_threads(const struct controller *c);
#endif
