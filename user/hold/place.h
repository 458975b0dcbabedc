/* The holding place: a directory per filesystem and user, mode 0700, where
 * --background renames what it takes and the deleter finds it. It is at the
 * root of the mount that holds the operand, or, where the user cannot write
 * that root, in the operand's parent directory; either way on the operand's
 * filesystem, so that the rename is atomic. */
#ifndef ADAPTRM_HOLD_PLACE_H
#define ADAPTRM_HOLD_PLACE_H
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

struct strbuf;

/* The place's name in its directory (".adaptrm-held-UID") into SB. */
void place_name(uid_t uid, struct strbuf *sb);

/* Why a place cannot be used (the message's words), or NULL. */
enum place_check { PLACE_OK, PLACE_ABSENT, PLACE_FOREIGN };
/* Open the place NAME in DIRFD, creating it if CREATE, and check it: a
 * directory, not a symlink, owned by UID, mode 0700, on device DEV (0: any).
 * Returns its fd, or -1 with *WHY: PLACE_ABSENT (errno set: it could not be
 * made or opened) or PLACE_FOREIGN (it exists and is not safe to use). */
int place_open_at(int dirfd, const char *name, uid_t uid, dev_t dev, bool create,
		  enum place_check *why);
/* The same for a whole path. */
int place_open(const char *path, uid_t uid, bool create, enum place_check *why);

/* The path an fd (or AT_FDCWD) names, malloc'd; NULL if unknown. */
char *place_fd_path(int fd);
/* The mount point of the mount that holds PATH (an absolute path without
 * "." or ".." components): the longest mountinfo target that is PATH or an
 * ancestor of it. Malloc'd, NULL if none. */
char *place_mount_root(const char *path);
/* A mount point at PATH or anywhere below it. */
bool place_mount_below(const char *path);

/* The deleter's lock in the place: one deleter per place. Returns the lock
 * file's fd (held until closed), or -1 if another holds it or on error. */
int place_lock(int placefd);
/* The pid of the deleter running on PLACE (opened as PLACEFD): the pid in
 * the lock, if that process's arguments hold MARK and PLACE; else 0. */
pid_t place_locker(int placefd, const char *place, const char *mark);

/* The state directory ($XDG_STATE_HOME/adaptrm, $HOME/.local/state/adaptrm,
 * or /var/lib/adaptrm for root), created if CREATE; malloc'd or NULL. */
char *state_dir(bool create);
/* Add PLACE to the state directory's index of places (once). */
void state_note_place(const char *place);
/* Call FN for every place listed in the index, then every place at a mount
 * root in mountinfo (a path may come twice: FN dedupes if it cares). */
void state_each_place(uid_t uid, void (*fn)(const char *place, void *arg), void *arg);

#endif
