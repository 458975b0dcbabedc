// SPDX-License-Identifier: GPL-3.0-or-later
/* Files and directories of the caller's own (see ownfile.h). */
#include "lib/ownfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int own_file_open(int dirfd, const char *name, int flags, mode_t mode)
{
	/* O_NONBLOCK: a FIFO in the name would otherwise hold the open until
	 * someone opened its other end. It is cleared once the file is known
	 * to be regular, where it changes nothing anyway. */
	int fd = openat(dirfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
	if (fd < 0) {
		if (errno == ELOOP) /* a symlink in its name */
			errno = EPERM;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int own_dir_open(int dirfd, const char *name, int create)
{
	if (create && mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR) /* a symlink or a file in its name */
			errno = EPERM;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}
