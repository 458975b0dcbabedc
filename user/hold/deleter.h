// SPDX-License-Identifier: GPL-3.0-or-later
/* The deleter: a detached process that deletes what a holding place holds,
 * with the engine, fd-relative from the place, at nice 19 and otherwise like
 * the foreground (its controller and worker cap) while nobody else is hurt;
 * while others use the device, one paced worker in the idle I/O class. */
#ifndef ADAPTRM_HOLD_DELETER_H
#define ADAPTRM_HOLD_DELETER_H
#include <stdbool.h>
#include <stdint.h>

/* A record whose entry is missing for this long after it was written is
 * removed: its writer's rename failed, or its writer died before it. */
#define DELETER_MOVE_S 60

/* The hidden first argument that makes adaptrm the deleter. */
#define DELETER_ARG "---background-deleter"
/* The fd on which a deleter is handed its place's lock, held. */
#define DELETER_LOCK_FD 3
#define DELETER_LOCK_FD_ARG "lock=3"

struct deleter_options {
	uint64_t free_rate; /* --free-rate (0: none) */
	uint64_t max_ops;   /* --max-ops (0: none) */
	bool stats;	    /* --stats: a summary into the log at the end */
};

/* Start a deleter for PLACE (opened as PLACEFD), detached (its own session,
 * no terminal, output to the log), holding the place's lock from before this
 * returns. True if a deleter runs there now (this one, or one that already
 * did and deletes what is held); false with errno if none could start. */
bool deleter_spawn(int placefd, const char *place, const struct deleter_options *o);
/* The deleter's main: ARGV after DELETER_ARG (the place, then the options
 * spawn passed). Returns the exit status. */
int deleter_main(int argc, char **argv);

#endif
