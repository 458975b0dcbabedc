// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include "lib/taskio.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

Test(taskio, parses_the_kernels_format)
{
	const char *io = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 45056\n"
			 "write_bytes: 0\ncancelled_write_bytes: 0\n";
	cr_assert_eq(taskio_parse_read_bytes(io), 45056);
}

Test(taskio, missing_or_damaged_field_is_unknown)
{
	cr_assert_eq(taskio_parse_read_bytes("rchar: 1\nwchar: 2\n"), -1);
	cr_assert_eq(taskio_parse_read_bytes("rchar: 1\nread_bytes: 12x\n"), -1);
	/* "read_bytes" must start a line: not a suffix of another field */
	cr_assert_eq(taskio_parse_read_bytes("rchar: 1\ncancelled_read_bytes: 5\n"), -1);
}

/* The live file: a count that never goes down. */
Test(taskio, live_count_is_monotonic)
{
	if (access("/proc/thread-self/io", R_OK) != 0)
		cr_skip_test("no /proc/thread-self/io here");
	int64_t a = taskio_read_bytes();
	cr_assert_geq(a, 0, "the kernel's io file did not parse");
	int fd = open("/proc/self/stat", O_RDONLY);
	char buf[256];
	cr_assert(fd >= 0 && read(fd, buf, sizeof buf) > 0);
	close(fd);
	cr_assert_geq(taskio_read_bytes(), a);
}
