// SPDX-License-Identifier: GPL-3.0-or-later
/* Reading a small file of /proc whole, with one read(2): its files give
 * their text at once (schedstat, stat, statm, cmdline, io). */
#ifndef ADAPTRM_PROCFILE_H
#define ADAPTRM_PROCFILE_H
#include <stddef.h>
#include <sys/types.h>

/* The start of the file PATH in BUF, at most SIZE - 1 bytes and then a NUL:
 * its length, or -1 if it could not be opened, could not be read or was
 * empty. Allocates nothing (the caller's buffer may be on the stack). */
ssize_t procfile_read(const char *path, char *buf, size_t size);

#endif
