// SPDX-License-Identifier: GPL-3.0-or-later
/* The live progress line (stderr, a terminal, at most 10 updates a second),
 * the summary line after a long delete, and the --stats summary. */
#ifndef ADAPTRM_PROGRESS_H
#define ADAPTRM_PROGRESS_H
#include "engine/engine.h"

struct controller;
struct freed;
struct progress;

/* FREED (or NULL): the space freed so far goes on the line; FREE_RATE
 * (--free-rate, or 0): the rate the lane holds too; SUMMARY: a delete that
 * showed the line for a few seconds ends with a one-line summary. On a
 * terminal the line fits its width (read again after SIGWINCH). */
struct progress *progress_new(struct freed *freed, uint64_t free_rate, bool summary);
void progress_update(struct progress *p, struct engine *e);
/* Clear the line, or replace it with the summary; frees P. */
void progress_finish(struct progress *p, struct engine *e);
/* Clear the line, without the summary (an interrupted delete says its own
 * counts); frees P. */
void progress_abort(struct progress *p);
/* Elapsed seconds since the program started the rm face. */
/* Start the clock --stats and --progress report from (main, first thing). */
void progress_clock_start(void);
double progress_elapsed(void);
/* A delete spread over ranks (adaptrm-mpi): the counts of all of them, as
 * of their last sum, replace this engine's on the line and in --stats. */
struct progress_cluster {
	uint64_t files, dirs, errors, ranks, busy, steals;
};
void progress_set_cluster(bool (*fn)(void *arg, struct progress_cluster *c), void *arg);
/* FD, open on the terminal where stderr ends up though stderr itself is not
 * one (a pipe a launcher forwards to it): the line is drawn as on a
 * terminal, as wide as FD's. */
void progress_set_terminal(int fd);

void progress_print_stats(struct engine *e, const struct controller *c, struct freed *freed,
			  uint64_t free_rate);

#endif
