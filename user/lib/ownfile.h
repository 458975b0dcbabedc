// SPDX-License-Identifier: GPL-3.0-or-later
/* Opening a file adaptrm keeps on a user's behalf outside the operands (the
 * deleter's log, the index of holding places, a place's lock and status):
 * never through a symlink, never blocking on a FIFO or a device someone
 * planted in its name, and only a regular file of the caller's own with no
 * other name, so that nothing written there reaches another file. */
#ifndef ADAPTRM_OWNFILE_H
#define ADAPTRM_OWNFILE_H
#include <sys/types.h>

/* Open NAME in DIRFD with FLAGS (O_CREAT creates it with MODE) as a file of
 * the caller's own: the fd (blocking, close-on-exec), or -1 with errno set;
 * EPERM for something that is not a regular file owned by the effective
 * user with one link (a symlink, a FIFO, another user's file, a hard link
 * to another name). */
int own_file_open(int dirfd, const char *name, int flags, mode_t mode);

/* Open (and with CREATE make, mode 0700) the directory NAME in DIRFD as a
 * directory of the caller's own: owned by the effective user, writable by
 * nobody else, not a symlink. Its fd (O_PATH), or -1 with errno set (EPERM
 * for one that is not). */
int own_dir_open(int dirfd, const char *name, int create);

#endif
