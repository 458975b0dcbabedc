// SPDX-License-Identifier: GPL-3.0-or-later
/* A small /proc file read whole (see procfile.h). */
#include "lib/procfile.h"

#include <fcntl.h>
#include <unistd.h>

ssize_t procfile_read(const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}
