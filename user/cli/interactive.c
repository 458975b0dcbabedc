// SPDX-License-Identifier: GPL-3.0-or-later
/* Serial, prompting traversal (see interactive.h). Iterative: an explicit
 * stack of open directories, post-order like fts, fd-relative openat/unlinkat
 * with O_NOFOLLOW|O_DIRECTORY, never following symlinks. One fd per level of
 * the directory being descended (a prompting delete is walked by a human). */
#include "cli/interactive.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool interactive_needed(const struct rm_options *o)
{
	if (o->interactive == INTERACTIVE_ALWAYS)
		return true;
	return o->interactive == INTERACTIVE_SOMETIMES && o->stdin_tty && !o->ignore_missing &&
	       geteuid() != 0;
}

bool interactive_yesno(void)
{
	char *line = NULL;
	size_t cap = 0;
	fflush(stderr);
	ssize_t n = getline(&line, &cap, stdin);
	bool yes = n > 0 && (line[0] == 'y' || line[0] == 'Y');
	free(line);
	return yes;
}

static const char *file_type(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG: return st->st_size == 0 ? "regular empty file" : "regular file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symbolic link";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	case S_IFBLK: return "block special file";
	case S_IFCHR: return "character special file";
	default: return "weird file";
	}
}

/* GNU's write_protected_non_symlink: root can write anything; else ask the
 * kernel with the effective ids. 1 = protected, 0 = not, -1 = error. */
static int write_protected(int fd, const char *name)
{
	if (geteuid() == 0)
		return 0;
	if (faccessat(fd, name, W_OK, AT_EACCESS) == 0)
		return 0;
	return errno == EACCES ? 1 : -1;
}

static bool dir_unreadable(int fd, const char *name)
{
	int dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		close(dfd);
		return false;
	}
	return errno == EACCES;
}

int interactive_prompt(const struct rm_options *o, int fd, const char *name, const char *display,
		       const struct stat *st, enum prompt_kind kind, bool dir_empty)
{
	if (o->interactive == INTERACTIVE_NEVER)
		return 1;
	int wp = 0;
	if (!o->ignore_missing && (o->interactive == INTERACTIVE_ALWAYS || o->stdin_tty) &&
	    !S_ISLNK(st->st_mode)) {
		wp = write_protected(fd, name);
		if (wp < 0) {
			warn_errno(errno, "cannot remove %s", quote_n(0, display));
			return -1;
		}
	}
	if (!wp && o->interactive != INTERACTIVE_ALWAYS)
		return 1;
	if (S_ISDIR(st->st_mode) && kind == PROMPT_REMOVE && dir_unreadable(fd, name))
		/* coreutils 9.2+: an empty directory we cannot read is removable */
		fprintf(stderr, "%s: attempt removal of inaccessible directory %s? ", program_name,
			quote_n(0, display));
	else if (S_ISDIR(st->st_mode) && kind == PROMPT_DESCEND && !dir_empty)
		fprintf(stderr, "%s: descend into %sdirectory %s? ", program_name,
			wp ? "write-protected " : "", quote_n(0, display));
	else
		fprintf(stderr, "%s: remove %s%s %s? ", program_name, wp ? "write-protected " : "",
			file_type(st), quote_n(0, display));
	return interactive_yesno() ? 1 : 0;
}

struct frame {
	DIR *dir;
	char *path; /* display path of this directory */
	char *name; /* its name in the parent */
	bool keep;  /* a descendant failed or was skipped: do not rmdir */
};

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	bool slash = a > 0 && dir[a - 1] == '/';
	char *p = xmalloc(a + b + 2);
	memcpy(p, dir, a);
	if (!slash)
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

static bool dir_is_empty(int fd, const char *name)
{
	int dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return false;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return false;
	}
	struct dirent *de;
	bool empty = true;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = false;
			break;
		}
	}
	closedir(d);
	return empty;
}

static void removed(const struct rm_options *o, bool dir, const char *display)
{
	if (o->verbose)
		printf(dir ? "removed directory %s\n" : "removed %s\n", quote_n(0, display));
}

struct walk {
	const struct rm_options *o;
	struct frame *stack;
	size_t depth, cap;
	dev_t root_dev;
	bool ok;
};

static void keep_ancestors(struct walk *w)
{
	for (size_t i = 0; i < w->depth; i++)
		w->stack[i].keep = true;
}

/* A directory entry found in FD: ask, then push it (directory) or unlink it. */
static void visit(struct walk *w, int fd, const char *name, const char *display, const struct stat *st)
{
	const struct rm_options *o = w->o;
	if (!S_ISDIR(st->st_mode)) {
		int a = interactive_prompt(o, fd, name, display, st, PROMPT_REMOVE, false);
		if (a < 0) {
			w->ok = false;
			keep_ancestors(w);
		}
		if (a <= 0)
			return;
		if (unlinkat(fd, name, 0) == 0) {
			removed(o, false, display);
		} else {
			warn_errno(errno, "cannot remove %s", quote_n(0, display));
			w->ok = false;
			keep_ancestors(w);
		}
		return;
	}
	if (o->one_file_system && st->st_dev != w->root_dev) {
		warn_errno(0, "skipping %s, since it's on a different device", quote_n(0, display));
		w->ok = false;
		keep_ancestors(w);
		return;
	}
	bool empty = dir_is_empty(fd, name);
	int a = interactive_prompt(o, fd, name, display, st, PROMPT_DESCEND, empty);
	if (a < 0)
		w->ok = false;
	if (a <= 0) {
		keep_ancestors(w);
		return;
	}
	if (empty) {
		/* GNU removes an empty directory at once after "remove directory?". */
		if (unlinkat(fd, name, AT_REMOVEDIR) == 0) {
			removed(o, true, display);
			return;
		}
	}
	int dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		int err = errno;
		if (dfd >= 0)
			close(dfd);
		if (unlinkat(fd, name, AT_REMOVEDIR) == 0) {
			removed(o, true, display);
			return;
		}
		warn_errno(err, "cannot remove %s", quote_n(0, display));
		w->ok = false;
		keep_ancestors(w);
		return;
	}
	if (!try_grow(&w->stack, &w->cap, w->depth + 1, 16))
		xalloc_die();
	w->stack[w->depth++] =
		(struct frame){ .dir = d, .path = xstrdup(display), .name = xstrdup(name) };
}

bool interactive_remove_tree(const struct rm_options *o, int pfd, const char *name,
			     const char *display, const struct stat *st)
{
	struct walk w = { .o = o, .root_dev = st->st_dev, .ok = true };
	visit(&w, pfd, name, display, st);
	while (w.depth > 0) {
		struct frame *f = &w.stack[w.depth - 1];
		int fd = dirfd(f->dir);
		errno = 0;
		struct dirent *de = readdir(f->dir);
		if (de) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *child = join(f->path, de->d_name);
			struct stat cst;
			if (fstatat(fd, de->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0) {
				if (errno != ENOENT) {
					warn_errno(errno, "cannot remove %s", quote_n(0, child));
					w.ok = false;
					keep_ancestors(&w);
				}
			} else {
				visit(&w, fd, de->d_name, child, &cst);
			}
			free(child);
			continue;
		}
		int rerr = errno;
		/* Post-order: the directory is finished; ask about it and rmdir. */
		struct frame done = *f;
		w.depth--;
		int pfd2 = w.depth ? dirfd(w.stack[w.depth - 1].dir) : pfd;
		struct stat dst;
		if (rerr) {
			warn_errno(rerr, "traversal failed: %s", done.path);
			w.ok = false;
			keep_ancestors(&w);
		} else if (!done.keep) {
			/* A declined file does not mark its ancestors: GNU -i still
			 * asks about them (and then fails with "Directory not empty"). */
			if (fstatat(pfd2, done.name, &dst, AT_SYMLINK_NOFOLLOW) == 0) {
				int a = interactive_prompt(o, pfd2, done.name, done.path, &dst,
							   PROMPT_REMOVE, false);
				if (a == 1) {
					if (unlinkat(pfd2, done.name, AT_REMOVEDIR) == 0) {
						removed(o, true, done.path);
					} else {
						warn_errno(errno, "cannot remove %s",
							   quote_n(0, done.path));
						w.ok = false;
						keep_ancestors(&w);
					}
				} else {
					if (a < 0)
						w.ok = false;
					keep_ancestors(&w);
				}
			}
		} else {
			keep_ancestors(&w);
		}
		closedir(done.dir);
		free(done.path);
		free(done.name);
	}
	free(w.stack);
	return w.ok;
}
