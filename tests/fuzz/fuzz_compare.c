// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer harness: adaptrm --trace --compare A.json B.json
 * (user/trace/compare.c trace_compare), which reads two saved traces and
 * prints them side by side. The input is A, a NUL byte, then B (without a
 * NUL, A and B are the same text); each is written to a memfd and read back
 * by its /proc/self/fd path. The report goes to /dev/null. Built and run by
 * scripts/fuzz.sh. */
#include "trace/compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fds[2] = { -1, -1 };
static char paths[2][64];
static FILE *null_out;

static void put(int i, const uint8_t *data, size_t size)
{
	if (fds[i] < 0) {
		fds[i] = memfd_create("fuzz-compare", MFD_CLOEXEC);
		if (fds[i] < 0)
			abort();
		snprintf(paths[i], sizeof paths[i], "/proc/self/fd/%d", fds[i]);
	}
	if (ftruncate(fds[i], 0) < 0 || (size && pwrite(fds[i], data, size, 0) != (ssize_t)size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	const uint8_t *nul = memchr(data, '\0', size);
	if (nul) {
		put(0, data, (size_t)(nul - data));
		put(1, nul + 1, size - (size_t)(nul - data) - 1);
	} else {
		put(0, data, size);
		put(1, data, size);
	}
	FILE *out = stdout, *err = stderr;
	stdout = stderr = null_out;
	/* both renderings: the differences only, and every row (--all) */
	int rc = trace_compare(paths[0], paths[1], size & 1);
	fflush(null_out);
	stdout = out;
	stderr = err;
	if (rc != 0 && rc != 1)
		abort();
	return 0;
}
