// SPDX-License-Identifier: GPL-3.0-or-later
/* The state directory: where --background keeps the index of its holding
 * places and the deleter's log. It is the user's own ($XDG_STATE_HOME/adaptrm,
 * $HOME/.local/state/adaptrm, /var/lib/adaptrm for root), made with its
 * parents, and never a fixed path in a shared directory: where it cannot be
 * had, the log goes into the holding place, which is the user's too, and the
 * mount roots are searched for places instead of the index. */
#ifndef ADAPTRM_HOLD_STATE_H
#define ADAPTRM_HOLD_STATE_H
#include <stdbool.h>
#include <sys/types.h>

struct strbuf;

#define STATE_LOG "deleter.log"

/* The state directory's fd (O_PATH), made if CREATE; its path into PATH if
 * not NULL. -1 if there is none: no home, or one that is not the user's own
 * (errno EPERM). */
int state_dir_open(bool create, struct strbuf *path);
/* The deleter's log, opened to append: the state directory's, else the one
 * in the holding place PLACEFD. Its path (PLACE for the place's) into PATH.
 * -1 with errno if neither can be had. */
int state_log_open(int placefd, const char *place, struct strbuf *path);
/* Where the log of the deleter of PLACE (opened as PLACEFD) is, into PATH. */
void state_log_path(int placefd, const char *place, struct strbuf *path);
/* Add PLACE to the index of places (once). */
void state_note_place(const char *place);
/* Call FN for every place listed in the index, then every place of UID at a
 * mount root (a path may come twice: FN dedupes if it cares). */
void state_each_place(uid_t uid, void (*fn)(const char *place, void *arg), void *arg);

#endif
