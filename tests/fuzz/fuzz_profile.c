// SPDX-License-Identifier: GPL-3.0-or-later
/* libFuzzer harness: the profile store's reader (user/ctl/profile.c
 * profile_read) on an arbitrary file, with and without the key of the
 * filesystem it must belong to. The input is written to a file in a
 * private temporary directory (profile_read opens a path, and refuses a
 * symbolic link such as /proc/self/fd/N), removed at exit. Built and run by
 * scripts/fuzz.sh. */
#include "ctl/profile.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd = -1;
static char dir[4096], path[4200];

static void remove_file(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/fuzz-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof path, "%s/profile.json", dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			abort();
		atexit(remove_file);
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	struct profile_key k;
	memset(&k, 0, sizeof k);
	snprintf(k.fs, sizeof k.fs, "tmpfs");
	snprintf(k.fsid, sizeof k.fsid, "05b816c0b8f21e65");
	snprintf(k.shape, sizeof k.shape, "flat");
	struct profile_file pf;
	for (int with_key = 0; with_key < 2; with_key++) {
		if (profile_read(path, with_key ? &k : NULL, &pf)) {
			if (pf.n < 0 || pf.n > PROFILE_MAX_CLASSES)
				abort();
			for (int i = 0; i < pf.n; i++) {
				if (strnlen(pf.shape[i], 16) >= 16)
					abort();
				if (pf.e[i].threads < 1 || pf.e[i].threads > 4096)
					abort();
				(void)profile_switch_name(pf.e[i].share);
				(void)profile_switch_name(pf.e[i].sort);
			}
			if (strnlen(pf.fs, sizeof pf.fs) >= sizeof pf.fs ||
			    strnlen(pf.fsid, sizeof pf.fsid) >= sizeof pf.fsid ||
			    strnlen(pf.dev, sizeof pf.dev) >= sizeof pf.dev)
				abort();
		}
	}
	return 0;
}
