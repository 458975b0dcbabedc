// SPDX-License-Identifier: GPL-3.0-or-later
/* --wait on a terminal: a line that says what is still held, what the
 * deleters removed so far (their status files) and at what pace, and whether
 * they yield to others' syncs; then one line of summary. Off a terminal it
 * prints nothing, as before. */
#ifndef ADAPTRM_WAITLINE_H
#define ADAPTRM_WAITLINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One poll's view: entries still held, the running deleters' counts summed,
 * and whether any of them yields now. */
struct wait_view {
	size_t held;
	uint64_t files, dirs;
	bool yielding;
	bool busy; /* a deleter is in the middle of an entry */
};

struct waitline;

/* NULL where stderr is not a terminal (every call then does nothing). */
struct waitline *waitline_new(void);
void waitline_update(struct waitline *l, const struct wait_view *v);
/* Replace the line with the summary (OK: nothing asked for is held); frees L. */
void waitline_finish(struct waitline *l, bool ok);

#endif
