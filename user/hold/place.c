// SPDX-License-Identifier: GPL-3.0-or-later
#include "hold/place.h"
#include "lib/mountinfo.h"
#include "lib/ownfile.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void place_name(uid_t uid, struct strbuf *sb)
{
	sb_addf(sb, ".adaptrm-held-%u", (unsigned)uid);
}

/* What makes a place safe: nobody but its owner can plant or swap entries
 * in it, and it is the filesystem the rename stays on. */
static bool place_safe(const struct stat *st, uid_t uid, dev_t dev)
{
	return S_ISDIR(st->st_mode) && st->st_uid == uid && (st->st_mode & 07777) == 0700 &&
	       (!dev || st->st_dev == dev);
}

int place_open_at(int dirfd, const char *name, uid_t uid, dev_t dev, bool create,
		  enum place_check *why)
{
	*why = PLACE_ABSENT;
	if (create && mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		struct stat st;
		/* A symlink or a file in the place's name was planted there. */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			*why = PLACE_FOREIGN;
		errno = err;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !place_safe(&st, uid, dev)) {
		close(fd);
		*why = PLACE_FOREIGN;
		errno = EPERM;
		return -1;
	}
	*why = PLACE_OK;
	return fd;
}

int place_open(const char *path, uid_t uid, bool create, enum place_check *why)
{
	char *copy = xstrdup(path);
	char *slash = strrchr(copy, '/');
	int dfd = -1, fd = -1;
	*why = PLACE_ABSENT;
	if (slash && slash[1]) {
		*slash = '\0';
		dfd = open(slash == copy ? "/" : copy, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0)
			fd = place_open_at(dfd, slash + 1, uid, 0, create, why);
	} else {
		errno = EINVAL;
	}
	int err = errno;
	if (dfd >= 0)
		close(dfd);
	free(copy);
	errno = err;
	return fd;
}

char *place_fd_path(int fd)
{
	if (fd == AT_FDCWD)
		return getcwd(NULL, 0);
	char link[64], buf[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, sizeof buf - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/* PATH is TARGET or below it. */
static bool under(const char *path, const char *target)
{
	size_t n = strlen(target);
	if (n == 1 && target[0] == '/')
		return true;
	return !strncmp(path, target, n) && (path[n] == '\0' || path[n] == '/');
}

/* Call FN(target, arg) for every mount in mountinfo. */
static void each_mount(void (*fn)(const char *target, void *arg), void *arg)
{
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	if (!fp)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, fp) > 0) {
		struct mount_entry e;
		if (mountinfo_parse(line, &e))
			fn(e.target, arg);
	}
	free(line);
	fclose(fp);
}

struct root_search {
	const char *path;
	char *best;
};

static void consider_root(const char *target, void *arg)
{
	struct root_search *s = arg;
	if (under(s->path, target) && (!s->best || strlen(target) >= strlen(s->best))) {
		free(s->best);
		s->best = xstrdup(target);
	}
}

char *place_mount_root(const char *path)
{
	struct root_search s = { .path = path };
	each_mount(consider_root, &s);
	return s.best;
}

struct below_search {
	const char *path;
	bool found;
};

static void consider_below(const char *target, void *arg)
{
	struct below_search *s = arg;
	if (under(target, s->path))
		s->found = true;
}

bool place_mount_below(const char *path)
{
	struct below_search s = { .path = path };
	each_mount(consider_below, &s);
	return s.found;
}

int place_lock(int placefd)
{
	int fd = own_file_open(placefd, PLACE_LOCK, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return -1;
	/* An open file description's lock: it goes with the fd to the
	 * deleter spawned with it, and F_OFD_GETLK lets anyone see it held
	 * without taking it. */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		int err = errno;
		close(fd);
		errno = err == EACCES ? EAGAIN : err;
		return -1;
	}
	return fd;
}

void place_lock_note_pid(int lockfd, pid_t pid)
{
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%d\n", (int)pid);
	/* The lock is the truth; the pid only lets --pending name the deleter.
	 * On a full filesystem it may not be written, and the deleter must run
	 * all the same: what it deletes is what frees the space. */
	if (ftruncate(lockfd, 0) == 0 && pwrite(lockfd, buf, (size_t)n, 0) != n &&
	    ftruncate(lockfd, 0) < 0) {
		/* an empty lock file names no pid: --pending says so */
	}
}

bool place_locked(int placefd, pid_t *pid)
{
	*pid = 0;
	int fd = own_file_open(placefd, PLACE_LOCK, O_RDONLY, 0);
	if (fd < 0)
		return false;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	bool held = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	char buf[32] = "";
	ssize_t n = held ? pread(fd, buf, sizeof buf - 1, 0) : 0;
	close(fd);
	if (n > 0)
		*pid = (pid_t)atoi(buf);
	return held;
}

struct mount_places {
	uid_t uid;
	void (*fn)(const char *place, void *arg);
	void *arg;
};

static void place_at_root(const char *target, void *arg)
{
	struct mount_places *m = arg;
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, target);
	if (strcmp(target, "/") != 0)
		sb_addc(&sb, '/');
	place_name(m->uid, &sb);
	struct stat st;
	if (lstat(sb_str(&sb), &st) == 0 && S_ISDIR(st.st_mode))
		m->fn(sb_str(&sb), m->arg);
	sb_free(&sb);
}

void place_each_at_mount_roots(uid_t uid, void (*fn)(const char *place, void *arg), void *arg)
{
	struct mount_places m = { .uid = uid, .fn = fn, .arg = arg };
	each_mount(place_at_root, &m);
}
