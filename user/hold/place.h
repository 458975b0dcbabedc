// SPDX-License-Identifier: GPL-3.0-or-later
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

#define PLACE_LOCK "lock"
/* The deleter's lock in the place: one deleter per place, and a deleter runs
 * while it is held (an open file description's lock on the file "lock").
 * Returns the lock file's fd (held until every copy of it is closed), or -1
 * with errno EAGAIN if another holds it, or another errno. */
int place_lock(int placefd);
/* Write PID into the lock file LOCKFD, for --pending to name. */
void place_lock_note_pid(int lockfd, pid_t pid);
/* Whether a deleter holds the lock of the place PLACEFD, asked without
 * taking it; *PID is the pid its file names (0 if none). */
bool place_locked(int placefd, pid_t *pid);
/* Call FN for every place of UID at the root of a mount in mountinfo. */
void place_each_at_mount_roots(uid_t uid, void (*fn)(const char *place, void *arg), void *arg);
#endif
