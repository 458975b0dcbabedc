// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/taskio.h"
#include "lib/procfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t taskio_parse_read_bytes(const char *text)
{
	/* after "rchar", "wchar", "syscr" and "syscw": a field at a line start */
	const char *p = strstr(text, "\nread_bytes: ");
	if (!p)
		return -1;
	char *end;
	unsigned long long v = strtoull(p + strlen("\nread_bytes: "), &end, 10);
	return *end == '\n' || *end == '\0' ? (int64_t)v : -1;
}

int64_t taskio_read_bytes(void)
{
	char buf[512];
	if (procfile_read("/proc/thread-self/io", buf, sizeof buf) < 0)
		return -1;
	return taskio_parse_read_bytes(buf);
}
