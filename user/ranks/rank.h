// SPDX-License-Identifier: GPL-3.0-or-later
/* One rank of a delete spread over machines (docs/design.md#scale-out).
 *
 * Every rank runs the rm face's engine and controller on its own node.
 * Rank 0 walks the operands; the others start empty. An idle rank asks a
 * random peer for work and gets about half of its oldest waiting
 * directories (engine_donate); it reports each back when its subtree is
 * gone (engine_remote_done), and the donor removes it. An operand is done
 * when rank 0's count of it reaches zero; after the last one rank 0 says
 * STOP. A sum over the ranks every 200 ms carries the counts (the progress
 * line, --stats) and ends the run: when every rank has stopped, each one
 * leaves with the same totals and the same exit status.
 *
 * A communication thread per rank makes every transport call, never
 * blocking, so steal requests are answered while every worker sits in a
 * slow unlink. */
#ifndef ADAPTRM_RANK_H
#define ADAPTRM_RANK_H

#include "engine/engine.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct transport;
struct steer;
struct rank;

/* The counts summed over the ranks. */
struct rank_totals {
	uint64_t files, dirs, errors;
	uint64_t ranks, ranks_busy; /* ranks, and those with work right now */
	uint64_t steals;	    /* donations taken */
	uint64_t sums;		    /* sums taken so far: 0, the counts are not in yet */
	bool failed;		    /* some rank failed (exit status 1 everywhere) */
};

/* Rank T->rank of T->size, whose operands are FILES (this machine's
 * spelling of the same trees as rank 0's, in the same order); starts its
 * communication thread. */
struct rank *rank_new(struct transport *t, int nfiles, char **files);
/* Its engine, once it exists (rm_face.engine_ready), and the steering the
 * budget's share of workers and of --max-ops goes to. */
void rank_attach(struct rank *r, struct engine *e, struct steer *steer);
/* Set when rank 0 has said STOP: engine_serve's flag. */
const atomic_bool *rank_stop_flag(struct rank *r);
/* This rank is done (OK: without error): wait until every rank is, and
 * return whether all went well everywhere (rm_face.finish). */
bool rank_finish(struct rank *r, bool ok);
/* The totals as of the last sum (final after rank_finish). */
void rank_totals(struct rank *r, struct rank_totals *t);
/* What rank R waits for and holds, appended to OUT as lines: a
 * watchdog's report when a run does not end. */
void rank_describe(struct rank *r, struct strbuf *out);
/* Have the communication thread say rank_describe's lines on stderr, soon:
 * async-signal-safe, for a face's handler of a signal that asks why a job
 * does not end. */
void rank_report_state(struct rank *r);
/* Stop the communication thread (rank_finish did) and free R. */
void rank_free(struct rank *r);

/* The shared budget (on unless ON is false) and --max-ops=MAX_OPS over all
 * ranks (0: none), dealt alike among the ranks with work; EXPLAIN: rank 0 says each
 * change of the budget on stderr. Before rank_attach. */
void rank_set_budget(struct rank *r, bool on, uint64_t max_ops, bool explain);

/* --from-list over the ranks: rank 0 reads the list and deals the paths by
 * parent directory (ranks/fromlist.c); these carry them. */
struct strbuf;
/* Rank 0: hand BATCH (paths, each ending in a NUL) to rank DEST; waits
 * while DEST holds too many batches it has not taken. */
void rank_send_paths(struct rank *r, int dest, const char *buf, size_t len);
/* Rank 0: no more paths for anyone. */
void rank_end_paths(struct rank *r);
/* The next batch dealt to this rank into BUF; false once there are no more. */
bool rank_next_paths(struct rank *r, struct strbuf *buf);
/* This rank's unlinks are done, with these counts: wait until every
 * rank's are (the phase boundary before pruning). */
void rank_paths_done(struct rank *r, uint64_t files, uint64_t dirs, uint64_t errors);
/* The counts again, after the pruning (rank 0). */
void rank_list_counts(struct rank *r, uint64_t files, uint64_t dirs, uint64_t errors);

/* Testing: ask for work after every directory (ADAPTRM_DIST_STEAL_EVERY=1
 * for the binary), and count what moved. */
void rank_set_eager(struct rank *r, bool eager);

#endif
