// SPDX-License-Identifier: GPL-3.0-or-later
/* One thread's unlinker of listed paths, and the prune replay (pathlist.h).
 *
 * Each path is walked component by component from the cwd or "/", every
 * directory opened O_NOFOLLOW relative to its parent, so no symlink
 * anywhere in a path is followed. The chain of open parents stays open for
 * the next path: lists from find or lfs find come grouped by directory, so
 * usually only the leaf changes and a path costs one unlinkat. */
#include "engine/rawsys.h"
#include "lib/clock.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "listdel/pathlist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define FD_RESERVE 16 /* stdio, the list, the spool, libc's */
#define BUDGET_MAX 64 /* deeper than this, the upper levels are re-walked */

unsigned pathdel_fd_budget(unsigned nthreads)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return BUDGET_MAX;
	if (nthreads == 0)
		nthreads = 1;
	rlim_t avail = rl.rlim_cur > FD_RESERVE ? rl.rlim_cur - FD_RESERVE : 0;
	rlim_t b = avail / nthreads / 2; /* half: room for the transient ones */
	return b < 1 ? 1 : b > BUDGET_MAX ? BUDGET_MAX : (unsigned)b;
}

void pathdel_init(struct pathdel *d, const struct pathdel_opts *o, struct prune_spool *spool)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
	if (d->o.budget < 1)
		d->o.budget = 1;
	d->spool = spool;
	d->rootfd = -1;
	d->msg = xcalloc(1, sizeof(struct strbuf));
}

/* --- the chain --------------------------------------------------------- */

/* Close the levels from K down, keep their names' room. */
static void chain_truncate(struct pathdel *d, size_t k)
{
	while (d->depth > k) {
		struct pathdel_level *l = &d->lv[--d->depth];
		if (l->fd >= 0)
			sys_close(l->fd);
		l->fd = -1;
	}
	if (d->lo > k)
		d->lo = k;
}

void pathdel_destroy(struct pathdel *d)
{
	chain_truncate(d, 0);
	if (d->rootfd >= 0)
		sys_close(d->rootfd);
	free(d->lv);
	free(d->names);
	free(d->buf);
	free(d->comp);
	sb_free(d->msg);
	free(d->msg);
}

/* The chain's root: the cwd, or "/" opened once. -errno if "/" cannot be. */
static int chain_root(struct pathdel *d)
{
	if (!d->abs)
		return AT_FDCWD;
	if (d->rootfd < 0)
		d->rootfd = sys_openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return d->rootfd;
}

static const char *level_name(const struct pathdel *d, size_t i)
{
	return d->names + d->lv[i].off;
}

/* Open NAME under DIRFD: the fd or -errno. Out of fds, close the chain's
 * uppermost open level (never the deepest, the parent) and try again. */
static int open_dir(struct pathdel *d, int dirfd, const char *name)
{
	for (;;) {
		int fd = sys_openat(dirfd, name, DIR_FLAGS);
		if ((fd != -EMFILE && fd != -ENFILE) || d->lo + 1 >= d->depth)
			return fd;
		sys_close(d->lv[d->lo].fd);
		d->lv[d->lo++].fd = -1;
	}
}

/* Append a level NAME (LEN bytes) open as FD; close the uppermost open
 * levels beyond the budget. */
static void chain_push(struct pathdel *d, const char *name, size_t len, int fd)
{
	if (d->depth == d->lv_cap) {
		d->lv_cap = d->lv_cap ? 2 * d->lv_cap : 16;
		d->lv = xrealloc(d->lv, d->lv_cap * sizeof(*d->lv));
	}
	size_t off = d->depth ? d->lv[d->depth - 1].off + d->lv[d->depth - 1].len + 1 : 0;
	if (off + len + 1 > d->names_cap) {
		d->names_cap = 2 * (off + len + 1);
		d->names = xrealloc(d->names, d->names_cap);
	}
	memcpy(d->names + off, name, len);
	d->names[off + len] = '\0';
	d->lv[d->depth++] = (struct pathdel_level){ .off = off, .len = len, .fd = fd };
	while (d->depth - d->lo > d->o.budget) {
		sys_close(d->lv[d->lo].fd);
		d->lv[d->lo++].fd = -1;
	}
}

/* The deepest level was closed for the budget: walk down to it again from
 * the root, one fd at a time. On failure the chain is cut where the walk
 * stopped (the caller's walk then says why). */
static void chain_reopen_deepest(struct pathdel *d)
{
	int fd = chain_root(d);
	if (fd < 0 && fd != AT_FDCWD) {
		chain_truncate(d, 0);
		return;
	}
	for (size_t i = 0; i < d->depth; i++) {
		int next = open_dir(d, fd, level_name(d, i));
		if (i > 0)
			sys_close(fd);
		if (next < 0) {
			chain_truncate(d, i);
			return;
		}
		fd = next;
	}
	d->lv[d->depth - 1].fd = fd;
	d->lo = d->depth - 1;
}

/* How many leading components of the split path the chain already holds. */
static size_t chain_common(const struct pathdel *d, bool abs)
{
	if (d->abs != abs)
		return 0;
	size_t k = 0;
	while (k < d->depth && k < d->ncomp && d->lv[k].len == d->comp[k].len &&
	       memcmp(level_name(d, k), d->buf + d->comp[k].off, d->comp[k].len) == 0)
		k++;
	return k;
}

/* Make the chain the split path's components (d->comp): returns the fd of
 * the last one (or the root), or -errno with *failed the component that
 * could not be opened. */
static int chain_walk(struct pathdel *d, bool abs, size_t *failed)
{
	size_t k = chain_common(d, abs);
	chain_truncate(d, k);
	d->abs = abs;
	if (k > 0 && d->lv[k - 1].fd < 0)
		chain_reopen_deepest(d);
	for (size_t i = d->depth; i < d->ncomp; i++) {
		int parent = i ? d->lv[i - 1].fd : chain_root(d);
		int fd = parent < 0 && parent != AT_FDCWD ?
				 parent :
				 open_dir(d, parent, d->buf + d->comp[i].off);
		if (fd < 0) {
			*failed = i;
			return fd;
		}
		chain_push(d, d->buf + d->comp[i].off, d->comp[i].len, fd);
	}
	return d->ncomp ? d->lv[d->ncomp - 1].fd : chain_root(d);
}

/* --- splitting a path -------------------------------------------------- */

/* Copy PATH into d->buf and split [0, LEN) into d->comp, each component
 * NUL-terminated in place. False if one is "..". */
static bool split(struct pathdel *d, const char *path, size_t len, size_t plen)
{
	if (len + 1 > d->buf_cap) {
		d->buf_cap = 2 * (len + 1);
		d->buf = xrealloc(d->buf, d->buf_cap);
	}
	memcpy(d->buf, path, len);
	d->buf[len] = '\0';
	d->ncomp = 0;
	size_t pos = 0, start, clen;
	bool ok = true;
	while (pathlist_component(d->buf, plen, &pos, &start, &clen)) {
		if (clen == 2 && d->buf[start] == '.' && d->buf[start + 1] == '.')
			ok = false;
		if (d->ncomp == d->comp_cap) {
			d->comp_cap = d->comp_cap ? 2 * d->comp_cap : 16;
			d->comp = xrealloc(d->comp, d->comp_cap * sizeof(*d->comp));
		}
		d->comp[d->ncomp++] = (struct pathdel_level){ .off = start, .len = clen, .fd = -1 };
	}
	for (size_t i = 0; i < d->ncomp; i++)
		d->buf[d->comp[i].off + d->comp[i].len] = '\0';
	return ok;
}

/* --- messages ---------------------------------------------------------- */

static const char *quoted(struct pathdel *d, const char *p, size_t len)
{
	sb_reset(d->msg);
	quote_append(d->msg, p, len);
	return sb_str(d->msg);
}

static int say_error(struct pathdel *d, const char *path, size_t len, int err)
{
	warn_errno(err, "cannot remove %s", quoted(d, path, len));
	d->n.errors++;
	return err;
}

/* -f ignores what GNU rm's -f ignores: a path that does not exist. */
static int missing(struct pathdel *d, const char *path, size_t len, int err)
{
	if (d->o.force && (err == ENOENT || err == ENOTDIR))
		return err;
	return say_error(d, path, len, err);
}

/* Component I of PATH could not be opened with ERR: a symlink is refused,
 * naming it; the rest is as for a missing path. */
static int walk_failed(struct pathdel *d, const char *path, size_t len, size_t i, int err)
{
	if (err == ELOOP || err == ENOTDIR) {
		struct stat st;
		int parent = i ? d->lv[i - 1].fd : chain_root(d);
		if (i <= d->depth &&
		    fstatat(parent, d->buf + d->comp[i].off, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			struct strbuf link = STRBUF_INIT;
			quote_append(&link, path, d->comp[i].off + d->comp[i].len);
			warn_errno(0, "refusing to remove %s: %s is a symbolic link",
				   quoted(d, path, len), sb_str(&link));
			sb_free(&link);
			d->n.errors++;
			return ELOOP;
		}
	}
	return missing(d, path, len, err);
}

/* --- unlinking --------------------------------------------------------- */

/* A listed directory: the prune pass may remove it (never recursively). */
static int listed_dir(struct pathdel *d, const char *path, size_t len)
{
	if (!d->o.prune || !d->spool)
		return say_error(d, path, len, EISDIR);
	int err = prune_spool_dir(d->spool, path, len);
	if (err) {
		warn_errno(err, "cannot write the prune list");
		d->n.errors++;
		return err;
	}
	d->n.listed_dirs++;
	return EISDIR;
}

/* The leaf of a path written with a trailing slash: only a directory. */
static int trailing_slash(struct pathdel *d, int pfd, const char *leaf, const char *path, size_t len)
{
	struct stat st;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return missing(d, path, len, errno);
	if (S_ISDIR(st.st_mode))
		return listed_dir(d, path, len);
	return say_error(d, path, len, ENOTDIR);
}

static int refuse_dot(struct pathdel *d, const char *path, size_t len, bool leaf)
{
	if (leaf)
		warn_errno(0, "refusing to remove '.' or '..' directory: skipping %s",
			   quoted(d, path, len));
	else
		warn_errno(0, "refusing to remove %s: it has a '..' component", quoted(d, path, len));
	d->n.errors++;
	return EINVAL;
}

/* --max-ops: a purge's unlinks spaced out, as the engine's are (pace.c):
 * each takes the next slot of the shared clock and sleeps until it comes;
 * an idle spell earns no burst. */
static void pace(const struct pathdel_opts *o)
{
	if (!o->interval_ns || !o->next)
		return;
	uint64_t now = now_ns(), start;
	uint64_t next = atomic_load_explicit(o->next, memory_order_relaxed);
	do {
		start = next > now ? next : now;
	} while (!atomic_compare_exchange_weak_explicit(o->next, &next, start + o->interval_ns,
							memory_order_relaxed, memory_order_relaxed));
	if (start > now)
		nanosleep(&(struct timespec){ (time_t)((start - now) / 1000000000u),
					      (long)((start - now) % 1000000000u) },
			  NULL);
}

int pathdel_unlink(struct pathdel *d, const char *path, size_t len)
{
	size_t e = len;
	while (e > 1 && path[e - 1] == '/')
		e--;
	if (e == 0)
		return missing(d, path, len, ENOENT);
	if (e == 1 && path[0] == '/')
		return say_error(d, path, len, EISDIR);
	size_t ls = e;
	while (ls > 0 && path[ls - 1] != '/')
		ls--;
	size_t leaf_len = e - ls;
	if ((leaf_len == 1 && path[ls] == '.') ||
	    (leaf_len == 2 && path[ls] == '.' && path[ls + 1] == '.'))
		return refuse_dot(d, path, len, true);
	if (!split(d, path, len, ls))
		return refuse_dot(d, path, len, false);
	d->buf[e] = '\0';
	const char *leaf = d->buf + ls;

	size_t failed = 0;
	int pfd = chain_walk(d, path[0] == '/', &failed);
	if (pfd < 0 && pfd != AT_FDCWD)
		return walk_failed(d, path, len, failed, -pfd);
	if (e < len)
		return trailing_slash(d, pfd, leaf, path, len);
	pace(&d->o);
	int r = sys_unlinkat(pfd, leaf, 0);
	if (r == -EISDIR)
		return listed_dir(d, path, len);
	if (r < 0)
		return missing(d, path, len, -r);
	d->n.files++;
	if (d->o.verbose)
		printf("removed %s\n", quoted(d, path, len));
	return 0;
}

/* --- pruning ----------------------------------------------------------- */

/* The chain's first I + 1 levels as a path, for -v and messages. */
static const char *chain_path(struct pathdel *d, size_t i)
{
	struct strbuf *sb = d->msg;
	sb_reset(sb);
	struct strbuf raw = STRBUF_INIT;
	if (d->abs)
		sb_addc(&raw, '/');
	for (size_t j = 0; j <= i; j++) {
		if (j > 0)
			sb_addc(&raw, '/');
		sb_add(&raw, level_name(d, j), d->lv[j].len);
	}
	quote_append(sb, raw.buf, raw.len);
	sb_free(&raw);
	return sb_str(sb);
}

/* Pop the chain's deepest level, trying rmdir on it unless it is at or
 * above depth KEEP. Not empty, or already gone: silent. */
static void prune_pop(struct pathdel *d, size_t keep)
{
	size_t i = d->depth - 1;
	struct pathdel_level *l = &d->lv[i];
	if (l->fd >= 0)
		sys_close(l->fd);
	l->fd = -1;
	if (i < keep) {
		d->depth = i;
		if (d->lo > i)
			d->lo = i;
		return;
	}
	if (i > 0 && d->lv[i - 1].fd < 0) {
		d->depth = i; /* reopen the parent, then put the level back */
		chain_reopen_deepest(d);
		if (d->depth != i)
			return; /* the parent is gone: nothing to prune there */
		d->depth = i + 1;
	}
	int parent = i ? d->lv[i - 1].fd : chain_root(d);
	pace(&d->o);
	int r = parent < 0 && parent != AT_FDCWD ?
			parent :
			sys_unlinkat(parent, level_name(d, i), AT_REMOVEDIR);
	if (r == 0) {
		d->n.dirs++;
		if (d->o.verbose)
			printf("removed directory %s\n", chain_path(d, i));
	} else if (r != -ENOTEMPTY && r != -EEXIST && r != -ENOENT) {
		warn_errno(-r, "cannot remove %s", chain_path(d, i));
		d->n.errors++;
	}
	d->depth = i;
	if (d->lo > i)
		d->lo = i;
}

static size_t keep_depth(const struct pathlist_keep *k, bool abs)
{
	if (abs)
		return k->abs_seen ? k->abs_depth : SIZE_MAX;
	return k->rel_seen ? k->rel_depth : SIZE_MAX;
}

/* One spooled directory: pop what it does not share, push the rest. */
static void prune_visit(struct pathdel *d, const struct pathlist_keep *keep, const char *p, size_t len)
{
	bool abs = p[0] == '/';
	if (!split(d, p, len, len))
		return; /* a '..' path: refused when it was listed */
	size_t k = chain_common(d, abs);
	while (d->depth > k)
		prune_pop(d, keep_depth(keep, d->abs));
	size_t failed;
	chain_walk(d, abs, &failed); /* missing, or a symlink: said when listed */
}

int prune_spool_replay(struct prune_spool *s, struct pathdel *d, const struct pathlist_keep *keep)
{
	if (!keep)
		keep = prune_spool_keep(s);
	int fd = prune_spool_rewind(s);
	if (fd < 0)
		return -fd;
	/* the chain is the stack: start it empty */
	chain_truncate(d, 0);
	struct pathlist_reader r;
	pathlist_init_fd(&r, fd, '\0');
	char *p;
	size_t len;
	int got;
	while ((got = pathlist_next(&r, &p, &len)) > 0)
		prune_visit(d, keep, p, len);
	while (d->depth > 0)
		prune_pop(d, keep_depth(keep, d->abs));
	pathlist_close(&r);
	return got < 0 ? -got : 0;
}
