// SPDX-License-Identifier: GPL-3.0-or-later
/* Whole-buffer writes (see fdio.h). */
#include "lib/fdio.h"

#include <errno.h>
#include <unistd.h>

int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
