// SPDX-License-Identifier: GPL-3.0-or-later
/* Who else traces the machine (tracers.h). */
#include "trace/tracers.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether process directory PROC (an fd of /proc/PID) holds a perf event. */
static bool holds_perf_event(int proc)
{
	int fdd = openat(proc, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fdd >= 0 ? fdopendir(fdd) : NULL;
	struct dirent *e;
	bool found = false;

	if (!d) {
		if (fdd >= 0)
			close(fdd);
		return false;
	}
	while (!found && (e = readdir(d))) {
		char link[64];
		ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof link - 1);
		if (n > 0) {
			link[n] = '\0';
			found = !strcmp(link, "anon_inode:[perf_event]");
		}
	}
	closedir(d);
	return found;
}

void trace_perf_holders(char *buf, size_t len)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t used = 0;
	int found = 0;

	if (len)
		*buf = '\0';
	if (!d)
		return;
	while (found < 3 && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		int proc = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (proc < 0)
			continue;
		if (holds_perf_event(proc)) {
			char comm[32] = "?";
			int cf = openat(proc, "comm", O_RDONLY | O_CLOEXEC);
			if (cf >= 0) {
				ssize_t n = read(cf, comm, sizeof comm - 1);
				comm[n > 0 ? n : 0] = '\0';
				comm[strcspn(comm, "\n")] = '\0';
				close(cf);
			}
			int w = snprintf(buf + used, len - used, "%s%s (pid %ld)",
					 found ? ", " : "", comm, pid);
			if (w > 0 && (size_t)w < len - used)
				used += (size_t)w;
			found++;
		}
		close(proc);
	}
	closedir(d);
}
