// SPDX-License-Identifier: GPL-3.0-or-later
/* The scratch directory and the small real trees that the engine tests
 * delete, shared so that the engine's own tests and the ranks' tests build
 * the same shapes. Include it after Criterion (or criterion_lite.h): the
 * helpers assert with its macros. */
#ifndef TESTS_SUPPORT_TREE_H
#define TESTS_SUPPORT_TREE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory from TEMPLATE ("/tmp/NAME.XXXXXX") in TOP, which has
 * room for it; fresh per test, also when the tests share one process. */
static inline void tree_scratch_new(char *top, const char *template)
{
	strcpy(top, template);
	cr_assert_not_null(mkdtemp(top));
}

/* TOP and everything under it; a test may have mounted a filesystem on
 * TOP/t/d3, which is detached first. */
static inline void tree_scratch_remove(const char *top)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "umount -l '%s/t/d3' 2>/dev/null; rm -rf '%s'", top, top);
	(void)!system(cmd);
}

static inline void tree_touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	cr_assert_geq(fd, 0, "%s", path);
	close(fd);
}

/* TOP/t: NDIRS directories d0, d1, ... of NFILES files each (with SUBFILES
 * > 0, each also with a subdirectory "sub" of SUBFILES files), and a
 * 30-deep chain t/chain/c/c/..., so that both breadth and depth are
 * exercised. */
static inline void tree_build(const char *top, int ndirs, int nfiles, int subfiles)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/t", top);
	cr_assert_eq(mkdir(p, 0755), 0);
	for (int d = 0; d < ndirs; d++) {
		snprintf(p, sizeof p, "%s/t/d%d", top, d);
		cr_assert_eq(mkdir(p, 0755), 0);
		for (int f = 0; f < nfiles; f++) {
			snprintf(p, sizeof p, "%s/t/d%d/f%d", top, d, f);
			tree_touch(p);
		}
		if (subfiles <= 0)
			continue;
		snprintf(p, sizeof p, "%s/t/d%d/sub", top, d);
		cr_assert_eq(mkdir(p, 0755), 0);
		for (int f = 0; f < subfiles; f++) {
			snprintf(p, sizeof p, "%s/t/d%d/sub/g%d", top, d, f);
			tree_touch(p);
		}
	}
	int len = snprintf(p, sizeof p, "%s/t/chain", top);
	for (int i = 0; i < 30; i++) {
		cr_assert_eq(mkdir(p, 0755), 0);
		len += snprintf(p + len, sizeof p - len, "/c");
	}
}

#endif
