// SPDX-License-Identifier: GPL-3.0-or-later
/* What a deleter could not remove, noted for --pending and --wait: GNU rm
 * leaves such an entry in place and says so, and so does the deleter. The
 * rest of a held entry that did not go entirely is put back at its path,
 * where its owner finds it; the note says whether it is there again or
 * still held (its path taken meanwhile). One file per note in the place,
 * "left~" and a nonce, holding the kind and the path. */
#ifndef ADAPTRM_HOLD_LEFT_H
#define ADAPTRM_HOLD_LEFT_H
#include <stdbool.h>

#define LEFT_PREFIX "left~"

struct left_note {
	char file[64]; /* the note's name in the place */
	bool back;     /* put back at its path (else still held) */
	char *path;    /* malloc'd */
};

/* Note that PATH was left: BACK at its path, or still held. 0 or an errno. */
int left_note_write(int placefd, const char *path, bool back);
/* Call FN for each note in the place PLACEFD; FN may remove it. */
void left_note_each(int placefd, void (*fn)(int placefd, const struct left_note *n, void *arg),
		    void *arg);
void left_note_remove(int placefd, const struct left_note *n);

#endif
