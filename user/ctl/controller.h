// SPDX-License-Identifier: GPL-3.0-or-later
/* The adaptive controller: steers the engine's knobs while a tree is removed.
 * controller_new() returns NULL when nothing is to be steered or recorded
 * (--threads=N without --explain/--json); with --threads=N and --json it
 * records the time series without turning anything.
 *
 * Names: controller_* is what the faces outside ctl/ use, all of it in this
 * header; ctl_* are the parts the controller is built from (policy, trial,
 * signals), which only the controller and their unit tests call. */
#ifndef ADAPTRM_CONTROLLER_H
#define ADAPTRM_CONTROLLER_H
#include "ctl/decision.h"
#include "engine/engine.h"

#include <stdbool.h>
#include <stddef.h>

struct controller;

/* What the face asks of the controller (the rm face fills it from its
 * options). */
struct controller_config {
	int pinned_threads;    /* --threads=N: record only, steer nothing; 0: steer */
	bool explain;	       /* --explain: each decision on stderr */
	const char *json_path; /* --json=FILE: the time series, or NULL */
	bool stats;	       /* --stats: the evidence is wanted, load the probes */
	bool no_profile;       /* --no-profile: neither read nor store profiles */
	int sort_policy;       /* enum sort_policy (--sort): not SORT_AUTO pins it */
	struct steer *steer;   /* the face's steering, which the policy's count goes
				* through (required) */
};

/* Workers to create when the controller decides (cap; --max-threads). */
int controller_default_max_threads(int requested);
struct controller *controller_new(struct engine *e, const struct controller_config *cfg);
/* A tree inside DIRFD/NAME is about to be removed: choose the start point. */
void controller_begin_tree(struct controller *c, int dirfd, const char *name);
/* Called every tick (~100 ms) of the face's loop while the tree is being
 * removed, before the face applies the steering. */
void controller_tick(struct controller *c);
/* The worker count it chose last (what the engine runs unless another of
 * the steering's inputs bounds it); 0 if it does not steer. */
int controller_threads(const struct controller *c);
void controller_end_tree(struct controller *c);
/* The run's exit status as its face will return it, for --json's
 * "exit_status" (null where none was noted). */
void controller_note_exit(struct controller *c, int status);
/* Ends the run: false if --json's file could not be written (told). */
bool controller_finish(struct controller *c);
/* One line for --stats ("threads: ..."); NULL-safe. */
void controller_describe(const struct controller *c, char *buf, size_t len);
void controller_free(struct controller *c);

/* The decision log (for --trace -rf and tests), in order. Valid until
 * controller_free. */
size_t controller_decisions(const struct controller *c, const struct controller_decision **out);
#endif
