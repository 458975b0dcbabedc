// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "listdel/pathlist.h"

/* A reader over an unlinked temporary file holding DATA (LEN bytes). */
static void reader_over(struct pathlist_reader *r, const char *data, size_t len, int sep)
{
	char name[] = "/tmp/test_pathlist.XXXXXX";
	int fd = mkstemp(name);
	cr_assert(fd >= 0);
	unlink(name);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	pathlist_init_fd(r, fd, sep);
}

/* Every record of R joined by '|'. */
static char *all_records(struct pathlist_reader *r)
{
	static char out[4096];
	out[0] = '\0';
	char *p;
	size_t len;
	int got;
	while ((got = pathlist_next(r, &p, &len)) > 0) {
		cr_assert_eq(strlen(p), len, "records are NUL-terminated");
		if (out[0])
			strcat(out, "|");
		strcat(out, p);
	}
	cr_assert_eq(got, 0);
	close(r->fd);
	pathlist_close(r);
	return out;
}

Test(pathlist_reader, newline_separated)
{
	struct pathlist_reader r;
	reader_over(&r, "a/b\nc d\n", 8, -1);
	cr_assert_str_eq(all_records(&r), "a/b|c d");
	cr_assert_eq(r.sep, '\n');
}

Test(pathlist_reader, nul_separated_keeps_newlines_in_names)
{
	struct pathlist_reader r;
	reader_over(&r, "a\nb\0c\0", 6, -1);
	cr_assert_str_eq(all_records(&r), "a\nb|c");
	cr_assert_eq(r.sep, '\0');
}

Test(pathlist_reader, empty_records_and_no_final_separator)
{
	struct pathlist_reader r;
	reader_over(&r, "\n\nx\n\n\ny", 7, -1);
	cr_assert_str_eq(all_records(&r), "x|y");
	reader_over(&r, "", 0, -1);
	cr_assert_str_eq(all_records(&r), "");
}

/* A record across the read boundary (64 KiB), and one longer than many
 * blocks: both come back whole. */
Test(pathlist_reader, boundary_and_long_records)
{
	size_t first = 65530, huge = 300000;
	size_t total = 2 + first + 1 + 20 + 1 + huge + 1 + 3;
	char *data = malloc(total);
	char *w = data;
	memcpy(w, "s", 2), w += 2; /* a NUL in the first 32 KiB */
	memset(w, 'a', first), w += first;
	*w++ = '\0';
	memcpy(w, "0123456789abcdefghij", 20), w += 20; /* across byte 65535 */
	*w++ = '\0';
	memset(w, 'h', huge), w += huge;
	*w++ = '\0';
	memcpy(w, "end", 3), w += 3;
	cr_assert_eq((size_t)(w - data), total);
	struct pathlist_reader r;
	reader_over(&r, data, total, -1);
	char *p;
	size_t len;
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_str_eq(p, "s");
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_eq(len, first, "len %zu", len);
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_str_eq(p, "0123456789abcdefghij");
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_eq(len, huge);
	cr_assert(p[0] == 'h' && p[huge - 1] == 'h' && p[huge] == '\0');
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_str_eq(p, "end");
	cr_assert_eq(pathlist_next(&r, &p, &len), 0);
	cr_assert_lt(r.cap, 2 * huge + 2 * 65536, "the buffer grows to the longest record only");
	close(r.fd);
	pathlist_close(&r);
	free(data);
}

/* A NUL only after the first 32 KiB: a newline list, whatever the reads. */
Test(pathlist_reader, late_nul_is_not_the_separator)
{
	char data[40000];
	memset(data, 'x', sizeof data);
	data[10] = '\n';
	data[35000] = '\0';
	struct pathlist_reader r;
	reader_over(&r, data, sizeof data, -1);
	char *p;
	size_t len;
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_eq(r.sep, '\n');
	cr_assert_eq(len, 10);
	close(r.fd);
	pathlist_close(&r);
}

/* The separator is decided from the first block: a NUL after it does not
 * turn a newline list into a NUL one. */
Test(pathlist_reader, separator_from_first_block)
{
	size_t n = 200000;
	char *data = malloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = i % 10 == 9 ? '\n' : 'x';
	data[150000] = '\0';
	struct pathlist_reader r;
	reader_over(&r, data, n, -1);
	char *p;
	size_t len;
	cr_assert_eq(pathlist_next(&r, &p, &len), 1);
	cr_assert_eq(r.sep, '\n');
	close(r.fd);
	pathlist_close(&r);
	free(data);
}

Test(pathlist_deal, parent_len)
{
	cr_assert_eq(pathlist_parent_len("f", 1), 0);
	cr_assert_eq(pathlist_parent_len("/f", 2), 1);
	cr_assert_eq(pathlist_parent_len("a/b/f", 5), 3);
	cr_assert_eq(pathlist_parent_len("a/b//f", 6), 3);
	cr_assert_eq(pathlist_parent_len("a/b/", 4), 1);
	cr_assert_eq(pathlist_parent_len("//f", 3), 1);
}

Test(pathlist_deal, parent_hash)
{
	uint64_t h = pathlist_parent_hash("dir/sub/f1", 10);
	cr_assert_eq(pathlist_parent_hash("dir/sub/another", 15), h);
	cr_assert_eq(pathlist_parent_hash("dir/sub/d/", 10), h, "a trailing slash names d");
	cr_assert_neq(pathlist_parent_hash("dir/sux/f1", 10), h);
	cr_assert_eq(pathlist_parent_hash("f", 1), pathlist_parent_hash("g", 1));
	/* 1,000 directories spread over 4 threads roughly evenly */
	unsigned count[4] = { 0 };
	char p[64];
	for (int i = 0; i < 1000; i++) {
		int n = snprintf(p, sizeof p, "t/d%d/f", i);
		count[pathlist_parent_hash(p, (size_t)n) % 4]++;
	}
	for (int i = 0; i < 4; i++)
		cr_assert(count[i] > 150 && count[i] < 350, "thread %d got %u", i, count[i]);
}

Test(pathlist_keep, deepest_common_ancestor)
{
	struct pathlist_keep k = { 0 };
	pathlist_keep_note(&k, "scratch/u/a/b", 13);
	cr_assert_eq(k.rel_depth, 4);
	pathlist_keep_note(&k, "./scratch//u/a/c", 16);
	cr_assert_eq(k.rel_depth, 3);
	pathlist_keep_note(&k, "scratch/u", 9);
	cr_assert_eq(k.rel_depth, 2);
	cr_assert(!k.abs_seen);
	pathlist_keep_note(&k, "/x/y", 4);
	cr_assert(k.abs_seen);
	cr_assert_eq(k.abs_depth, 2);
	struct pathlist_keep g = { 0 };
	pathlist_keep_note(&g, "/x/z", 4);
	pathlist_keep_merge(&g, &k);
	cr_assert_eq(g.abs_depth, 1);
	cr_assert_eq(g.rel_depth, 2);
	pathlist_keep_free(&k);
	pathlist_keep_free(&g);
}

/* --- unlinking and pruning, in a temporary directory ------------------- */

static char tmp[] = "/tmp/test_pathlist_fs.XXXXXX";

static void enter_tmp(void)
{
	cr_assert(mkdtemp(tmp));
	cr_assert_eq(chdir(tmp), 0);
}

static void leave_tmp(void)
{
	cr_assert_eq(chdir("/"), 0);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

static void mkfile(const char *p)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname %s)\" && touch %s", p, p);
	cr_assert_eq(system(cmd), 0);
}

static bool exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static void unlink_all(struct pathdel *d, const char *const *paths)
{
	for (; *paths; paths++)
		pathdel_unlink(d, *paths, strlen(*paths));
}

Test(pathdel, unlinks_with_a_budget_of_one, .init = enter_tmp, .fini = leave_tmp)
{
	const char *paths[] = { "a/b/c/f1", "a/b/c/f2",	   "a/b/g", "a/x/c/f1",
				"a/b/c/f3", "./a//b/c/f4", NULL };
	for (int i = 0; paths[i]; i++)
		mkfile(paths[i]);
	struct pathdel d;
	struct pathdel_opts o = { .budget = 1 };
	pathdel_init(&d, &o, NULL);
	unlink_all(&d, paths);
	cr_assert_eq(d.n.files, 6);
	cr_assert_eq(d.n.errors, 0);
	unsigned open = 0;
	for (size_t i = 0; i < d.depth; i++)
		open += d.lv[i].fd >= 0;
	cr_assert_leq(open, 1, "the chain holds its budget");
	pathdel_destroy(&d);
	cr_assert(exists("a/b/c") && !exists("a/b/c/f1") && !exists("a/b/g"));
}

Test(pathdel, refuses_symlinks_and_dotdot, .init = enter_tmp, .fini = leave_tmp)
{
	mkfile("real/f");
	cr_assert_eq(symlink("real", "link"), 0);
	struct pathdel d;
	struct pathdel_opts o = { .budget = 4, .force = true };
	pathdel_init(&d, &o, NULL);
	cr_assert_eq(pathdel_unlink(&d, "link/f", 6), ELOOP);
	cr_assert_eq(pathdel_unlink(&d, "real/../real/f", 14), EINVAL);
	cr_assert_eq(pathdel_unlink(&d, "missing/f", 9), ENOENT);
	cr_assert_eq(d.n.errors, 2, "-f ignores only the missing path");
	cr_assert_eq(pathdel_unlink(&d, "link", 4), 0, "a listed symlink is itself unlinked");
	pathdel_destroy(&d);
	cr_assert(exists("real/f"));
}

/* A path longer than PATH_MAX: 40 levels of 120-byte names. */
Test(pathdel, deeper_than_path_max, .init = enter_tmp, .fini = leave_tmp)
{
	char name[121];
	memset(name, 'n', 120);
	name[120] = '\0';
	size_t cap = 40 * 121 + 8;
	char *path = calloc(1, cap);
	int fd = open(".", O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < 40; i++) {
		cr_assert_eq(mkdirat(fd, name, 0755), 0);
		int next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
		strcat(path, name);
		strcat(path, "/");
	}
	close(openat(fd, "f", O_CREAT | O_WRONLY, 0644));
	strcat(path, "f");
	cr_assert_gt(strlen(path), PATH_MAX);
	struct pathdel d;
	struct pathdel_opts o = { .budget = 3 };
	pathdel_init(&d, &o, NULL);
	cr_assert_eq(pathdel_unlink(&d, path, strlen(path)), 0);
	cr_assert_eq(faccessat(fd, "f", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	pathdel_destroy(&d);
	close(fd);
	free(path);
}

static void spool_parents(struct prune_spool *s, const char *const *paths)
{
	for (; *paths; paths++)
		prune_spool_parent(s, *paths, pathlist_parent_len(*paths, strlen(*paths)));
}

/* The prune stack: any order of the list; a directory is retried each time
 * it pops; the common ancestor and non-empty directories stay. */
Test(prune, removes_exactly_the_empty_ones, .init = enter_tmp, .fini = leave_tmp)
{
	const char *paths[] = { "top/a/b/c/f", "top/x/y",     "top/a/b/g", "top/a/b/c/h",
				"top/k/f",     "top/a/d/e/f", "top/x/z/f", NULL };
	for (int i = 0; paths[i]; i++)
		mkfile(paths[i]);
	mkfile("top/k/other"); /* top/k stays: not empty */
	cr_assert_eq(mkdir("top/x/z/listed", 0755), 0);
	int err = 0;
	struct prune_spool *s = prune_spool_new(NULL, &err);
	cr_assert(s, "spool: %s", strerror(err));
	struct pathdel d;
	struct pathdel_opts o = { .budget = 2, .prune = true };
	pathdel_init(&d, &o, s);
	spool_parents(s, paths);
	unlink_all(&d, paths);
	const char *listed[] = { "top/x/z/listed", NULL };
	spool_parents(s, listed);
	unlink_all(&d, listed);
	cr_assert_eq(d.n.listed_dirs, 1);
	cr_assert_eq(prune_spool_keep(s)->rel_depth, 1, "top is the common ancestor");
	cr_assert_eq(prune_spool_replay(s, &d, NULL), 0);
	cr_assert(exists("top"));
	cr_assert(exists("top/k/other"));
	cr_assert(!exists("top/a"));
	cr_assert(!exists("top/x"));
	cr_assert_eq(d.n.dirs, 8, "a a/b a/b/c a/d a/d/e x x/z x/z/listed");
	cr_assert_eq(d.n.errors, 0);
	pathdel_destroy(&d);
	prune_spool_free(s);
}

Test(prune, one_file_keeps_its_parent, .init = enter_tmp, .fini = leave_tmp)
{
	mkfile("p/q/f");
	int err = 0;
	struct prune_spool *s = prune_spool_new(NULL, &err);
	struct pathdel d;
	struct pathdel_opts o = { .budget = 2, .prune = true };
	pathdel_init(&d, &o, s);
	const char *paths[] = { "p/q/f", NULL };
	spool_parents(s, paths);
	unlink_all(&d, paths);
	cr_assert_eq(prune_spool_replay(s, &d, NULL), 0);
	cr_assert(exists("p/q"), "the common ancestor of one path is its parent");
	pathdel_destroy(&d);
	prune_spool_free(s);
}
