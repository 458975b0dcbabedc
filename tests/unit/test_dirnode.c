// SPDX-License-Identifier: GPL-3.0-or-later
/* The bounded, verified fd cache (user/engine/dirnode.c) on real directories. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/dirnode.h"

static char tmpl[] = "/tmp/adaptrm-dn.XXXXXX";
static int topfd = -1;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmpl));
	topfd = open(tmpl, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(topfd, 0);
}
static void teardown(void)
{
	char cmd[256];
	close(topfd);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
	(void)!system(cmd);
}

static int nopen_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

/* Open child NAME of N through the cache, as the engine does. */
static struct dnode *open_child(struct fdcache *c, struct dnode *n, const char *name)
{
	int err = 0;
	int pfd = fdc_get(c, n, &err);
	cr_assert_neq(pfd, -1, "fdc_get(%s): %s", n->name, strerror(err));
	int fd = fdc_openat(c, pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	cr_assert_geq(fd, 0, "openat %s: %s", name, strerror(errno));
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	struct dnode *d = dnode_new(n, name, strlen(name));
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	fdc_install(c, d, fd);
	fdc_put(c, n);
	return d;
}

TestSuite(dirnode, .init = setup, .fini = teardown);

/* A chain deeper than the budget keeps at most BUDGET fds open, re-opens the
 * evicted ancestors via ".." and verifies them. */
Test(dirnode, budget_lru_and_dotdot_reopen)
{
	enum { DEPTH = 40, BUDGET = 4 };
	char path[4096];
	int len = snprintf(path, sizeof path, "%s", tmpl);
	for (int i = 0; i < DEPTH; i++) {
		len += snprintf(path + len, sizeof path - len, "/d");
		cr_assert_eq(mkdir(path, 0755), 0);
	}
	struct fdcache c;
	fdc_init(&c, BUDGET);
	struct dnode *anchor = dnode_new(NULL, "", 0);
	dnode_init_anchor(anchor, topfd);
	int base = nopen_fds();
	struct dnode *nodes[DEPTH];
	struct dnode *cur = anchor;
	for (int i = 0; i < DEPTH; i++) {
		nodes[i] = open_child(&c, cur, "d");
		fdc_put(&c, nodes[i]);
		cur = nodes[i];
		cr_assert_leq(nopen_fds() - base, BUDGET, "open fds exceed the budget at depth %d",
			      i);
	}
	cr_assert_gt(atomic_load(&c.evictions), 0);
	/* Walk back up: each parent fd is re-opened from the child via "..". */
	for (int i = DEPTH - 1; i > 0; i--) {
		int err = 0;
		int pfd = fdc_get_parent(&c, nodes[i], &err);
		cr_assert_neq(pfd, -1, "parent of level %d: %s", i, strerror(err));
		struct stat st;
		cr_assert_eq(fstat(pfd, &st), 0);
		cr_assert_eq(st.st_ino, nodes[i - 1]->ino, "re-opened the wrong directory");
		fdc_put(&c, nodes[i - 1]);
		fdc_drop(&c, nodes[i]);
		cr_assert_leq(nopen_fds() - base, BUDGET + 1);
	}
	cr_assert_gt(atomic_load(&c.reopens), 0);
	for (int i = 0; i < DEPTH; i++) {
		fdc_drop(&c, nodes[i]);
		dnode_free(nodes[i]);
	}
	cr_assert_eq(nopen_fds(), base, "fds leaked");
	fdc_destroy(&c);
	dnode_free(anchor);
}

/* With every fd of a chain closed, the deepest directory is re-opened by
 * walking down from the anchor, verifying each level; deeper than the
 * segment dirnode.c walks at a time when it has no memory for the path. */
Test(dirnode, reopen_walks_down_a_deep_chain)
{
	enum { DEPTH = 150 };
	char path[4096];
	int len = snprintf(path, sizeof path, "%s", tmpl);
	for (int i = 0; i < DEPTH; i++) {
		len += snprintf(path + len, sizeof path - len, "/d");
		cr_assert_eq(mkdir(path, 0755), 0);
	}
	struct fdcache c;
	fdc_init(&c, 1);
	struct dnode *anchor = dnode_new(NULL, "", 0);
	dnode_init_anchor(anchor, topfd);
	int base = nopen_fds();
	struct dnode *nodes[DEPTH];
	struct dnode *cur = anchor;
	for (int i = 0; i < DEPTH; i++) {
		nodes[i] = open_child(&c, cur, "d");
		fdc_put(&c, nodes[i]);
		cur = nodes[i];
	}
	for (int i = 0; i < DEPTH; i++)
		fdc_drop(&c, nodes[i]);
	cr_assert_eq(nopen_fds(), base, "fds left open");
	uint64_t before = atomic_load(&c.reopens);
	int err = 0;
	int fd = fdc_get(&c, nodes[DEPTH - 1], &err);
	cr_assert_neq(fd, -1, "re-open: %s", strerror(err));
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_ino, nodes[DEPTH - 1]->ino, "re-opened the wrong directory");
	cr_assert_eq(atomic_load(&c.reopens) - before, DEPTH, "not one verified open per level");
	fdc_put(&c, nodes[DEPTH - 1]);
	cr_assert_leq(nopen_fds() - base, 2, "the walk kept more than the budget open");
	for (int i = DEPTH - 1; i >= 0; i--) {
		fdc_drop(&c, nodes[i]);
		dnode_free(nodes[i]);
	}
	fdc_destroy(&c);
	dnode_free(anchor);
}

/* A directory swapped after it was evicted is refused with ESTALE. */
Test(dirnode, swapped_directory_is_estale)
{
	char p[4096], q[4096];
	snprintf(p, sizeof p, "%s/a", tmpl);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/a/b", tmpl);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/other", tmpl);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/x", tmpl);
	mkdir(p, 0755);
	struct fdcache c;
	fdc_init(&c, 1);
	struct dnode *anchor = dnode_new(NULL, "", 0);
	dnode_init_anchor(anchor, topfd);
	struct dnode *a = open_child(&c, anchor, "a");
	fdc_put(&c, a);
	struct dnode *b = open_child(&c, a, "b"); /* budget 1: evicts a */
	fdc_put(&c, b);
	fdc_drop(&c, b); /* b closed too */
	/* eviction happens when an fd is installed: open x to push a out */
	struct dnode *x = open_child(&c, anchor, "x");
	fdc_put(&c, x);
	cr_assert_eq(a->fd, -1, "a should have been evicted");
	/* swap a with other: the path "a" now leads to a different directory */
	snprintf(p, sizeof p, "%s/a", tmpl);
	snprintf(q, sizeof q, "%s/other", tmpl);
	cr_assert_eq(renameat2(AT_FDCWD, p, AT_FDCWD, q, RENAME_EXCHANGE), 0);
	int err = 0;
	int fd = fdc_get(&c, a, &err);
	cr_assert_eq(fd, -1, "an unverified directory was handed out");
	cr_assert_eq(err, ESTALE);
	dnode_free(b);
	fdc_drop(&c, x);
	dnode_free(x);
	fdc_drop(&c, a);
	dnode_free(a);
	fdc_destroy(&c);
	dnode_free(anchor);
}
