// SPDX-License-Identifier: GPL-3.0-or-later
/* race: an attacker for adaptrm's safety tests (tests/e2e/test_attacks.sh).
 *
 * Run beside a delete of OPERAND, it keeps rearranging the operand tree so
 * that its paths lead outside, into OUTSIDE (a directory next to it holding
 * victim/, the tree that must never change, and fakeroot/, a directory made
 * to look like /):
 *
 *   race symlink-victim OPERAND OUTSIDE   replace operand directories by
 *   race symlink-root   OPERAND OUTSIDE     symlinks to the victim (absolute
 *                                           or relative) or to the fake root,
 *                                           and often put them back
 *   race exchange OPERAND OUTSIDE         RENAME_EXCHANGE a directory with a
 *                                           symlink to the victim or the fake
 *                                           root, back and forth
 *   race move OPERAND OUTSIDE             move operand directories into
 *                                           victim/drop/ (so that ".." of the
 *                                           moved part leads into the victim),
 *                                           and often back
 *   race bind OPERAND OUTSIDE             bind-mount victim/bound over
 *                                           operand directories (up to 4 at
 *                                           once), unmounting them again
 *
 *   options: --rounds=N (attacks; 0, the default, until SIGTERM/SIGINT),
 *            --seed=N, --ready=FILE (created once the tree was first walked:
 *            start the delete then)
 *
 * It picks directories by walking the operand tree (fd-relative, never
 * following a symlink nor crossing a mount point) and acts through directory
 * fds, so that it cannot itself change the victim by following what it
 * planted: only victim/drop/ receives moved directories and only
 * victim/bound/ is mounted elsewhere. On SIGTERM or SIGINT it unmounts what
 * it mounted and exits 0.
 *
 * Helpers for the test:
 *   race setup OPERAND OUTSIDE WIDTH DEPTH FILES
 *       OPERAND: a tree WIDTH directories wide and DEPTH deep with FILES
 *       files (with some bytes) in each directory; OUTSIDE/victim (files with
 *       contents, subdirectories, symlinks, a hard link, drop/, bound/) and
 *       OUTSIDE/fakeroot (etc/passwd, etc/shadow, bin, home, root, ...).
 *   race manifest DIR [--exclude=REL]... [--omit=REL]...
 *       one sorted line per entry below DIR: path, type, mode, owner, size,
 *       content hash (FNV-1a) or link target; directories without size (an
 *       ext4 directory does not shrink). Under an excluded path (relative to
 *       DIR) only the entry itself is listed, not its contents; an omitted
 *       one is not listed at all.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define MAX_DIRS 8192
#define MAX_DEPTH 64
#define MAX_MOUNTS 4

static volatile sig_atomic_t stop;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned below(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

static void die(const char *what)
{
	fprintf(stderr, "race: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* A short busy wait: long enough for a worker to get between two steps. */
static void spin(unsigned max_us)
{
	struct timespec a, b;
	unsigned us = below(max_us + 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* ---- the operand's directories, as paths relative to its root ---- */

struct dirpath {
	char *path; /* "a/b/c" */
	int depth;  /* components */
};
static struct dirpath dirs[MAX_DIRS];
static int ndirs;
static dev_t op_dev;
/* victim/bound: a directory with its identity is a bind mount of it (on
 * tmpfs it has the operand's st_dev), never walked into nor attacked */
static dev_t bound_dev;
static ino_t bound_ino;

static bool is_bound(const struct stat *st)
{
	return st->st_dev == bound_dev && st->st_ino == bound_ino;
}

static bool attacker_name(const char *n)
{
	return !strncmp(n, ".stash", 6) || !strncmp(n, ".x", 2);
}

static void add_dir(const char *path, int depth)
{
	if (ndirs < MAX_DIRS) {
		dirs[ndirs].path = strdup(path);
		dirs[ndirs].depth = depth;
		ndirs++;
	}
}

/* Breadth-first walk of the operand below ROOTFD, fd-relative. */
static void scan(int rootfd)
{
	for (int i = 0; i < ndirs; i++)
		free(dirs[i].path);
	ndirs = 0;
	add_dir("", 0); /* the root itself: walked, never picked */
	for (int i = 0; i < ndirs && ndirs < MAX_DIRS && !stop; i++) {
		int fd = dirs[i].depth ? openat(rootfd, dirs[i].path,
						O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
					 dup(rootfd);
		/* a symlink met in the middle of the path is followed by openat:
		 * check the result is still on the operand's filesystem and
		 * below the operand (its ".." chain is not checked: this only
		 * picks targets, each action re-walks without following) */
		if (fd < 0)
			continue;
		struct stat st;
		if (fstat(fd, &st) < 0 || st.st_dev != op_dev || is_bound(&st)) {
			close(fd);
			continue;
		}
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d)) && ndirs < MAX_DIRS) {
			if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") ||
			    !strcmp(e->d_name, "..") || attacker_name(e->d_name) ||
			    dirs[i].depth + 1 >= MAX_DEPTH)
				continue;
			char *p;
			if (asprintf(&p, "%s%s%s", dirs[i].path, dirs[i].depth ? "/" : "",
				     e->d_name) < 0)
				die("asprintf");
			add_dir(p, dirs[i].depth + 1);
			free(p);
		}
		closedir(d);
	}
}

/* Open the parent of operand directory PATH by walking its components from
 * ROOTFD without following symlinks nor crossing a mount point; *NAME points
 * at the last component. -1 if the path no longer leads there. */
static int open_parent(int rootfd, const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	*name = slash ? slash + 1 : path;
	int fd = dup(rootfd);
	if (fd < 0 || !slash)
		return fd;
	char *copy = strndup(path, (size_t)(slash - path)), *save = NULL;
	for (char *c = strtok_r(copy, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		struct stat st;
		if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != op_dev || is_bound(&st))) {
			close(fd);
			fd = -1;
		}
	}
	free(copy);
	return fd;
}

/* Whether NAME in DIRFD is a real directory on the operand's filesystem. */
static bool is_operand_dir(int dirfd, const char *name)
{
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_dev == op_dev && !is_bound(&st);
}

/* ---- attacks ---- */

static char victim[4096], fakeroot[4096], bound[4096];
static int dropfd = -1;
static unsigned long serial;

/* A symlink target leading outside: the victim by absolute or relative path,
 * or the fake root. DEPTH is the depth of the symlink's directory below the
 * operand root (the operand and OUTSIDE share a parent). */
static void pick_target(char *buf, size_t len, int depth, bool to_root, bool to_victim)
{
	unsigned k = to_root ? 0 : to_victim ? 1 + below(2) : below(3);
	if (k == 0) {
		snprintf(buf, len, "%s", fakeroot);
	} else if (k == 1) {
		snprintf(buf, len, "%s", victim);
	} else {
		size_t n = 0;
		buf[0] = '\0';
		for (int i = 0; i <= depth && n + 4 < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "../");
		snprintf(buf + n, len - n, "outside/victim");
	}
}

/* Replace the directory by a symlink (the directory kept beside it under a
 * .stash name, inside the operand), and half the time put it back. */
static bool attack_symlink(int pfd, const char *name, int depth, bool to_root)
{
	char stash[64], target[4096];
	snprintf(stash, sizeof stash, ".stash%lu", serial++);
	pick_target(target, sizeof target, depth - 1, to_root, !to_root);
	if (!is_operand_dir(pfd, name) || renameat(pfd, name, pfd, stash) < 0)
		return false;
	if (symlinkat(target, pfd, name) < 0)
		return true;
	if (below(2)) {
		spin(200);
		struct stat st;
		if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) &&
		    unlinkat(pfd, name, 0) == 0)
			renameat(pfd, stash, pfd, name);
	}
	return true;
}

/* Swap the directory with a symlink to the outside a few times; leave the
 * directory in place at the end when it can. */
static bool attack_exchange(int pfd, const char *name, int depth)
{
	char link[64], target[4096];
	snprintf(link, sizeof link, ".x%lu", serial++);
	pick_target(target, sizeof target, depth - 1, false, false);
	if (!is_operand_dir(pfd, name) || symlinkat(target, pfd, link) < 0)
		return false;
	int swaps = 1 + (int)below(8);
	bool swapped = false;
	for (int i = 0; i < swaps && !stop; i++) {
		if (syscall(SYS_renameat2, pfd, name, pfd, link, RENAME_EXCHANGE) < 0)
			break;
		swapped = !swapped;
		spin(100);
	}
	/* end with the symlink at LINK (half the time: left at NAME) */
	struct stat st;
	if (fstatat(pfd, link, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			unlinkat(pfd, link, 0);
		else if (below(2) &&
			 syscall(SYS_renameat2, pfd, name, pfd, link, RENAME_EXCHANGE) == 0)
			unlinkat(pfd, link, 0);
	}
	return true;
}

/* Move the directory into victim/drop, and half the time back. */
static bool attack_move(int pfd, const char *name)
{
	char moved[64];
	snprintf(moved, sizeof moved, "m%lu", serial++);
	if (!is_operand_dir(pfd, name) || renameat(pfd, name, dropfd, moved) < 0)
		return false;
	if (below(2)) {
		spin(300);
		renameat(dropfd, moved, pfd, name);
	}
	return true;
}

/* Mounts made, by an O_PATH fd of the mount's root. */
static int mounts[MAX_MOUNTS];
static int nmounts;

static void unmount_oldest(void)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", mounts[0]);
	if (umount2(p, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
		fprintf(stderr, "race: umount: %s\n", strerror(errno));
	close(mounts[0]);
	memmove(mounts, mounts + 1, (size_t)(--nmounts) * sizeof mounts[0]);
}

static bool attack_bind(int pfd, const char *name)
{
	if (!is_operand_dir(pfd, name))
		return false;
	int dfd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return false;
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", dfd);
	if (nmounts == MAX_MOUNTS)
		unmount_oldest();
	int r = mount(bound, p, NULL, MS_BIND, NULL);
	close(dfd);
	if (r < 0)
		return false;
	/* the mount's root, to unmount it by whatever path it has then */
	int mfd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		/* renamed away meanwhile? nothing else renames in this mode */
		fprintf(stderr, "race: cannot reopen a mount: %s\n", strerror(errno));
		return true;
	}
	mounts[nmounts++] = mfd;
	spin(300);
	if (below(2))
		unmount_oldest();
	return true;
}

static int attack(const char *mode, const char *operand, const char *outside, unsigned long rounds,
		  const char *ready)
{
	int rootfd = open(operand, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rootfd < 0)
		die(operand);
	struct stat st;
	if (fstat(rootfd, &st) < 0)
		die("fstat");
	op_dev = st.st_dev;
	char *abs_out = realpath(outside, NULL);
	if (!abs_out)
		die(outside);
	snprintf(victim, sizeof victim, "%s/victim", abs_out);
	snprintf(fakeroot, sizeof fakeroot, "%s/fakeroot", abs_out);
	snprintf(bound, sizeof bound, "%s/victim/bound", abs_out);
	free(abs_out);
	char drop[4200];
	snprintf(drop, sizeof drop, "%s/drop", victim);
	dropfd = open(drop, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dropfd < 0)
		die(drop);

	bool sym_victim = !strcmp(mode, "symlink-victim"), sym_root = !strcmp(mode, "symlink-root");
	bool exch = !strcmp(mode, "exchange"), move = !strcmp(mode, "move");
	bool bind = !strcmp(mode, "bind");
	if (!sym_victim && !sym_root && !exch && !move && !bind) {
		fprintf(stderr, "race: unknown mode %s\n", mode);
		return 2;
	}
	if (stat(bound, &st) < 0)
		die(bound);
	bound_dev = st.st_dev;
	bound_ino = st.st_ino;
	/* Bind mounts copy the source's propagation: made from a shared mount
	 * they would join its peer group, and a mount made on one of them would
	 * appear in the others (untracked, never unmounted). victim/bound
	 * becomes a private mount of itself first (its contents unchanged),
	 * undone at exit. */
	bool self_bind = false;
	if (bind) {
		if (mount(bound, bound, NULL, MS_BIND, NULL) < 0 ||
		    mount(NULL, bound, NULL, MS_PRIVATE, NULL) < 0)
			die("private bind of victim/bound");
		self_bind = true;
	}

	scan(rootfd);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die(ready);
		close(fd);
	}
	unsigned long done = 0, fails = 0, since_scan = 0;
	while (!stop && (rounds == 0 || done < rounds)) {
		if (ndirs <= 1 || fails > 16 || since_scan > 64) {
			struct stat rs;
			/* the operand root gone (or swapped): nothing left to attack */
			if (fstat(rootfd, &rs) < 0 || rs.st_nlink == 0)
				break;
			scan(rootfd);
			fails = since_scan = 0;
			if (ndirs <= 1) {
				usleep(1000);
				continue;
			}
		}
		const struct dirpath *d = &dirs[1 + below((unsigned)ndirs - 1)];
		const char *name;
		int pfd = open_parent(rootfd, d->path, &name);
		bool ok = false;
		if (pfd >= 0) {
			if (sym_victim || sym_root)
				ok = attack_symlink(pfd, name, d->depth, sym_root);
			else if (exch)
				ok = attack_exchange(pfd, name, d->depth);
			else if (move)
				ok = attack_move(pfd, name);
			else
				ok = attack_bind(pfd, name);
			close(pfd);
		}
		since_scan++;
		if (ok) {
			done++;
			fails = 0;
		} else {
			fails++;
		}
	}
	while (nmounts > 0)
		unmount_oldest();
	if (self_bind && umount2(bound, MNT_DETACH) < 0)
		fprintf(stderr, "race: umount %s: %s\n", bound, strerror(errno));
	fprintf(stderr, "race: %s: %lu attacks\n", mode, done);
	return 0;
}

/* ---- setup ---- */

static void put_file(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die(name);
	size_t n = strlen(text);
	if (write(fd, text, n) != (ssize_t)n)
		die("write");
	close(fd);
}

static int mkdir_open(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
		die(name);
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		die(name);
	return fd;
}

static void make_level(int fd, int width, int depth, int files, unsigned long *made)
{
	char name[32], text[64];
	for (int i = 1; i <= files; i++) {
		snprintf(name, sizeof name, "f%d", i);
		snprintf(text, sizeof text, "operand %lu\n", (*made)++);
		put_file(fd, name, text);
	}
	if (depth == 0)
		return;
	for (int i = 1; i <= width; i++) {
		snprintf(name, sizeof name, "d%d", i);
		int sub = mkdir_open(fd, name);
		make_level(sub, width, depth - 1, files, made);
		close(sub);
	}
}

/* The outside: a victim worth keeping and a directory that looks like /. */
static void make_outside(const char *outside)
{
	if (mkdir(outside, 0755) < 0 && errno != EEXIST)
		die(outside);
	int out = open(outside, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (out < 0)
		die(outside);
	int v = mkdir_open(out, "victim");
	put_file(v, "keep", "victim: must survive\n");
	put_file(v, "empty", "");
	char name[32], text[64];
	for (int i = 1; i <= 3; i++) {
		snprintf(name, sizeof name, "sub%d", i);
		int s = mkdir_open(v, name);
		for (int j = 1; j <= 5; j++) {
			snprintf(name, sizeof name, "file%d", j);
			snprintf(text, sizeof text, "victim sub%d file%d\n", i, j);
			put_file(s, name, text);
		}
		int deep = mkdir_open(s, "deep");
		put_file(deep, "precious", "deep victim data\n");
		close(deep);
		close(s);
	}
	if (symlinkat("keep", v, "link-to-keep") < 0 ||
	    symlinkat("/nonexistent", v, "dangling") < 0 || linkat(v, "keep", v, "hardlink", 0) < 0)
		die("victim links");
	int drop = mkdir_open(v, "drop"); /* where moved operand directories land */
	close(drop);
	int b = mkdir_open(v, "bound"); /* mounted over operand directories */
	for (int j = 1; j <= 20; j++) {
		snprintf(name, sizeof name, "b%d", j);
		snprintf(text, sizeof text, "bound %d\n", j);
		put_file(b, name, text);
	}
	int bs = mkdir_open(b, "inner");
	put_file(bs, "file", "bound inner\n");
	close(bs);
	close(b);
	close(v);

	int r = mkdir_open(out, "fakeroot");
	int etc = mkdir_open(r, "etc");
	put_file(etc, "passwd",
		 "root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/sh\n");
	put_file(etc, "shadow", "root:*:19000:0:99999:7:::\n");
	put_file(etc, "hostname", "fakeroot\n");
	close(etc);
	static const char *const dirs_[] = { "bin", "usr", "var", "home", "root", "tmp", "boot" };
	for (size_t i = 0; i < sizeof dirs_ / sizeof dirs_[0]; i++) {
		int s = mkdir_open(r, dirs_[i]);
		put_file(s, "marker", dirs_[i]);
		close(s);
	}
	int home = openat(r, "home", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int user = mkdir_open(home, "user");
	put_file(user, "thesis.tex", "\\documentclass{article}\n");
	close(user);
	close(home);
	if (symlinkat("usr/bin", r, "sbin") < 0)
		die("fakeroot link");
	close(r);
	close(out);
}

/* ---- manifest ---- */

static char **excludes, **omits;
static int nexcludes, nomits;

static char **lines;
static size_t nlines, caplines;

static void emit(char *text)
{
	if (nlines == caplines) {
		caplines = caplines ? caplines * 2 : 256;
		lines = realloc(lines, caplines * sizeof *lines);
		if (!lines)
			die("realloc");
	}
	lines[nlines++] = text;
}

static uint64_t fnv_fd(int fd)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	if (n < 0)
		h = 0;
	return h;
}

static bool excluded(const char *rel)
{
	for (int i = 0; i < nexcludes; i++)
		if (!strcmp(excludes[i], rel))
			return true;
	return false;
}

static bool omitted(const char *rel)
{
	for (int i = 0; i < nomits; i++)
		if (!strcmp(omits[i], rel))
			return true;
	return false;
}

static void manifest_dir(int dirfd, const char *rel)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *path, *text;
		if (asprintf(&path, "%s%s%s", rel, *rel ? "/" : "", e->d_name) < 0)
			die("asprintf");
		if (omitted(path)) {
			free(path);
			continue;
		}
		struct stat st;
		if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (asprintf(&text, "%s\t? %s", path, strerror(errno)) < 0)
				die("asprintf");
			emit(text);
			free(path);
			continue;
		}
		char head[128];
		snprintf(head, sizeof head, "%04o %u:%u", (unsigned)(st.st_mode & 07777),
			 (unsigned)st.st_uid, (unsigned)st.st_gid);
		if (S_ISDIR(st.st_mode)) {
			if (asprintf(&text, "%s\td %s", path, head) < 0)
				die("asprintf");
			emit(text);
			if (!excluded(path)) {
				int sub = openat(dirfd, e->d_name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub >= 0)
					manifest_dir(sub, path);
			}
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlinkat(dirfd, e->d_name, target, sizeof target - 1);
			target[n < 0 ? 0 : n] = '\0';
			if (asprintf(&text, "%s\tl %s -> %s", path, head, target) < 0)
				die("asprintf");
			emit(text);
		} else if (S_ISREG(st.st_mode)) {
			int fd = openat(dirfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			uint64_t h = fd >= 0 ? fnv_fd(fd) : 0;
			if (fd >= 0)
				close(fd);
			if (asprintf(&text, "%s\tf %s %lld links=%lu %016" PRIx64, path, head,
				     (long long)st.st_size, (unsigned long)st.st_nlink, h) < 0)
				die("asprintf");
			emit(text);
		} else {
			if (asprintf(&text, "%s\to %s %o", path, head,
				     (unsigned)(st.st_mode & S_IFMT)) < 0)
				die("asprintf");
			emit(text);
		}
		free(path);
	}
	closedir(d);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int manifest(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		die(dir);
	manifest_dir(fd, "");
	qsort(lines, nlines, sizeof *lines, cmp_line);
	for (size_t i = 0; i < nlines; i++)
		puts(lines[i]);
	return fflush(stdout) == 0 ? 0 : 2;
}

static void usage(void)
{
	fputs("usage: race symlink-victim|symlink-root|exchange|move|bind OPERAND OUTSIDE\n"
	      "            [--rounds=N] [--seed=N] [--ready=FILE]\n"
	      "       race setup OPERAND OUTSIDE WIDTH DEPTH FILES\n"
	      "       race manifest DIR [--exclude=REL]... [--omit=REL]...\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0;
	const char *ready = NULL;
	char *args[8];
	int nargs = 0;
	excludes = calloc((size_t)argc, sizeof *excludes);
	omits = calloc((size_t)argc, sizeof *omits);
	rng_state ^= (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--rounds=", 9))
			rounds = strtoul(argv[i] + 9, NULL, 10);
		else if (!strncmp(argv[i], "--seed=", 7))
			rng_state = strtoull(argv[i] + 7, NULL, 10) * 2654435761u + 1;
		else if (!strncmp(argv[i], "--ready=", 8))
			ready = argv[i] + 8;
		else if (!strncmp(argv[i], "--exclude=", 10))
			excludes[nexcludes++] = argv[i] + 10;
		else if (!strncmp(argv[i], "--omit=", 7))
			omits[nomits++] = argv[i] + 7;
		else if (nargs < 8)
			args[nargs++] = argv[i];
		else
			usage();
	}
	if (nargs < 2)
		usage();
	if (!strcmp(args[0], "manifest"))
		return manifest(args[1]);
	if (!strcmp(args[0], "setup")) {
		if (nargs != 6)
			usage();
		unsigned long made = 0;
		if (mkdir(args[1], 0755) < 0)
			die(args[1]);
		int fd = open(args[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			die(args[1]);
		make_level(fd, atoi(args[3]), atoi(args[4]), atoi(args[5]), &made);
		close(fd);
		make_outside(args[2]);
		return 0;
	}
	if (nargs != 3)
		usage();
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	return attack(args[0], args[1], args[2], rounds, ready);
}
