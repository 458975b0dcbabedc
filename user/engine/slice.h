// SPDX-License-Identifier: GPL-3.0-or-later
/* The slow-slice hand-off: while a worker unlinks a slice of a directory's
 * entries it looks at the clock now and then; a slice whose entries each
 * take long (big files: freeing their data is the thread's own work) hands
 * its rest on, half to an idle worker, or its big files to the large-file
 * lane where the worker is alone. The scanner (scan.c) runs the loop; this
 * file decides and hands on. Inside the engine only. */
#ifndef ADAPTRM_ENGINE_SLICE_H
#define ADAPTRM_ENGINE_SLICE_H
#include "engine/engine_int.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entries between looks at the clock in a slice (a power of two). */
#define HEAVY_CHECK 4u
/* A worker alone (the count at 1) hands a heavy slice's files of this size
 * or more to the large-file lane's thread and goes on with the rest: the
 * lane is no worker slot, so a short tree whose count never moves from 1
 * (btrfs's and xfs's start) still frees two files at once. */
#define HEAVY_LANE_BYTES (1ull << 20)

/* How a heavy slice's rest goes: half to an idle worker, or its big files
 * to the lane. */
enum heavy_way { HEAVY_NONE, HEAVY_SHARE, HEAVY_LANE };

/* Entries [lo, hi) of directory D (open as FD) left to unlink, names at
 * NAMES + name_off, taken from the front or (REVERSE) from the back. */
struct slice {
	struct dnode *d;
	int fd;
	const struct sort_ent *ents;
	const char *names;
	size_t lo, hi;
	bool reverse;
	bool lane; /* its big files go to the lane (HEAVY_LANE) */
};

/* The clocks of a slice being unlinked: the wall clock at T0 with DONE
 * entries since, and the thread's CPU clock CPU0 read AT entries in, once
 * the wall clock said heavy (0: not read). A look that hands the rest on
 * leaves what it saw in SEEN, for --explain. */
struct heavy_clock {
	uint64_t t0, cpu0;
	size_t done, at;
	unsigned refuted; /* suspicions the CPU clock refuted: the next waits longer */
	struct engine_slow_slice seen;
};

/* A look at H after H->done entries: how the rest goes. */
enum heavy_way slice_heavy_look(struct worker *w, struct heavy_clock *h);
/* Hand slice S's rest on as WAY says (HEAVY_SHARE: its far half to another
 * worker; HEAVY_LANE: its big files to the lane from now on), as SEEN moved
 * it. */
void slice_hand_on(struct worker *w, struct slice *s, enum heavy_way way,
		   struct engine_slow_slice *seen);
/* The look and the hand-off in one, for a slice being unlinked; H starts a
 * fresh window after a share. */
void slice_look(struct worker *w, struct slice *s, struct heavy_clock *h);
/* Entries [FROM, TO) of ENTS (names at NAMES + name_off) copied into a
 * chunk of directory D for another worker; NULL if out of memory. */
struct chunk *slice_chunk(struct dnode *d, const struct sort_ent *ents, const char *names,
			  size_t from, size_t to);

#endif
