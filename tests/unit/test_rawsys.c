// SPDX-License-Identifier: GPL-3.0-or-later
/* The inline system calls keep the kernel's contract: the result or -errno,
 * errno untouched, the same struct stat as glibc's fstat. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine/rawsys.h"

static char dir[64];
static int dfd = -1;

/* A fresh directory per test, removed by the fini even when a test fails. */
static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/adaptrm-rawsys.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(dfd, 0);
}

static void teardown(void)
{
	unlinkat(dfd, "f", 0);
	unlinkat(dfd, "d", AT_REMOVEDIR);
	close(dfd);
	rmdir(dir);
}

TestSuite(rawsys, .init = setup, .fini = teardown);

Test(rawsys, unlinkat_returns_zero_or_negative_errno_and_leaves_errno)
{
	close(openat(dfd, "f", O_CREAT | O_WRONLY, 0600));
	cr_assert_eq(mkdirat(dfd, "d", 0700), 0);

	errno = 12345;
	cr_assert_eq(sys_unlinkat(dfd, "f", 0), 0);
	cr_assert_eq(faccessat(dfd, "f", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	errno = 12345;
	cr_assert_eq(sys_unlinkat(dfd, "f", 0), -ENOENT);
	cr_assert_eq(errno, 12345, "errno must not change");
	/* a directory without AT_REMOVEDIR: EISDIR (or EPERM, per POSIX) */
	int r = sys_unlinkat(dfd, "d", 0);
	cr_assert(r == -EISDIR || r == -EPERM, "got %d", r);
	cr_assert_eq(sys_unlinkat(dfd, "d", AT_REMOVEDIR), 0);
	cr_assert_eq(sys_unlinkat(-1, "x", 0), -EBADF);
}

Test(rawsys, openat_fstat_close_match_glibc)
{
	cr_assert_eq(mkdirat(dfd, "d", 0700), 0);
	int fd = sys_openat(dfd, "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	struct stat a, b;
	cr_assert_eq(sys_fstat(fd, &a), 0);
	cr_assert_eq(fstatat(dfd, "d", &b, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(a.st_dev, b.st_dev);
	cr_assert_eq(a.st_ino, b.st_ino);
	cr_assert_eq(a.st_mode, b.st_mode);
	cr_assert_eq(a.st_nlink, b.st_nlink);
	cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(sys_close(fd), 0);
	cr_assert_eq(sys_close(fd), -EBADF);
	cr_assert_eq(sys_fstat(fd, &a), -EBADF);
	cr_assert_eq(sys_openat(dfd, "missing", O_RDONLY), -ENOENT);
	/* O_NOFOLLOW|O_DIRECTORY on a symlink: refused, never followed */
	cr_assert_eq(symlinkat("d", dfd, "f"), 0);
	int r = sys_openat(dfd, "f", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	cr_assert(r == -ELOOP || r == -ENOTDIR, "got %d", r);
}

Test(rawsys, getdents64_reads_all_entries_then_zero)
{
	close(openat(dfd, "f", O_CREAT | O_WRONLY, 0600));
	cr_assert_eq(mkdirat(dfd, "d", 0700), 0);
	char buf[4096];
	int seen = 0;
	long n;
	while ((n = sys_getdents64(dfd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof reclen);
			const char *name = buf + off + 19;
			if (!strcmp(name, "f") || !strcmp(name, "d"))
				seen++;
			off += reclen;
		}
	}
	cr_assert_eq(n, 0);
	cr_assert_eq(seen, 2);
	cr_assert_eq(sys_getdents64(-1, buf, sizeof buf), -EBADF);
}
