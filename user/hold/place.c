#include "hold/place.h"
#include "lib/env.h"
#include "lib/mountinfo.h"
#include "lib/procfile.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define INDEX_FILE "places"

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
	int fd = openat(placefd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	char buf[32];
	int n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
	/* The flock is the lock; the pid only lets --pending name the deleter.
	 * On a full filesystem it may not be written, and the deleter must run
	 * all the same: what it deletes is what frees the space. */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) != n && ftruncate(fd, 0) < 0)
		fprintf(stderr, "adaptrm deleter: cannot write its pid: %s\n", strerror(errno));
	return fd;
}

/* Process PID's command line holds the argument ARG. */
static bool cmdline_has(pid_t pid, const char *arg)
{
	char path[64], buf[8192];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	ssize_t n = procfile_read(path, buf, sizeof buf);
	if (n < 0)
		return false;
	for (char *p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strcmp(p, arg))
			return true;
	return false;
}

pid_t place_locker(int placefd, const char *place, const char *mark)
{
	int fd = openat(placefd, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	pid_t pid = n > 0 ? (pid_t)atoi(buf) : 0;
	/* Looked up, not tried: taking the lock even for a moment could turn
	 * away a deleter starting just then. A pid left by a killed deleter
	 * names another process, or one that is not a deleter of this place. */
	if (pid > 0 && cmdline_has(pid, mark) && cmdline_has(pid, place))
		return pid;
	return 0;
}

char *state_dir(bool create)
{
	struct strbuf sb = STRBUF_INIT;
	const char *x = env_str(ENV_XDG_STATE_HOME), *home = env_str(ENV_HOME);
	if (geteuid() == 0 && !(x && x[0] == '/'))
		sb_adds(&sb, "/var/lib");
	else if (x && x[0] == '/')
		sb_adds(&sb, x);
	else if (home && home[0] == '/')
		sb_addf(&sb, "%s/.local/state", home);
	else
		return NULL;
	if (create)
		mkdir(sb_str(&sb), 0755); /* $HOME/.local/state may not exist yet */
	sb_adds(&sb, "/adaptrm");
	if (create && mkdir(sb_str(&sb), 0700) < 0 && errno != EEXIST) {
		sb_free(&sb);
		return NULL;
	}
	char *s = xstrdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

/* Call FN for each line of the index. */
static void each_indexed(void (*fn)(const char *place, void *arg), void *arg)
{
	char *dir = state_dir(false);
	if (!dir)
		return;
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/" INDEX_FILE, dir);
	free(dir);
	FILE *fp = fopen(sb_str(&sb), "re");
	sb_free(&sb);
	if (!fp)
		return;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (line[0] == '/')
			fn(line, arg);
	}
	free(line);
	fclose(fp);
}

struct seen {
	const char *place;
	bool found;
};

static void find_place(const char *place, void *arg)
{
	struct seen *s = arg;
	if (!strcmp(place, s->place))
		s->found = true;
}

void state_note_place(const char *place)
{
	struct seen s = { .place = place };
	each_indexed(find_place, &s);
	char *dir = s.found ? NULL : state_dir(true);
	if (!dir)
		return;
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/" INDEX_FILE, dir);
	free(dir);
	/* O_APPEND: concurrent callers add whole lines, a duplicate at worst. */
	int fd = open(sb_str(&sb), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	sb_reset(&sb);
	sb_addf(&sb, "%s\n", place);
	if (fd >= 0) {
		if (write(fd, sb_str(&sb), sb.len) < 0) {
			/* The mount roots are searched anyway; only a fallback
			 * place is then found by the next --background there. */
		}
		close(fd);
	}
	sb_free(&sb);
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

void state_each_place(uid_t uid, void (*fn)(const char *place, void *arg), void *arg)
{
	each_indexed(fn, arg);
	struct mount_places m = { .uid = uid, .fn = fn, .arg = arg };
	each_mount(place_at_root, &m);
}
