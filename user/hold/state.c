// SPDX-License-Identifier: GPL-3.0-or-later
/* The state directory, its index and its log (see state.h). */
#include "hold/state.h"
#include "hold/place.h"
#include "lib/env.h"
#include "lib/ownfile.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_FILE "places"

/* mkdir -p of the absolute PATH below its existing part, each new directory
 * made 0700: what is made here is the user's alone. */
static void make_parents(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, path);
	char *s = sb.buf;
	for (char *p = s + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(s, 0700) < 0 && errno != EEXIST) {
			*p = c;
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	sb_free(&sb);
}

int state_dir_open(bool create, struct strbuf *path)
{
	struct strbuf base = STRBUF_INIT;
	const char *x = env_str(ENV_XDG_STATE_HOME), *home = env_str(ENV_HOME);
	bool xdg = x && x[0] == '/';
	if (geteuid() == 0 && !xdg)
		sb_adds(&base, "/var/lib");
	else if (xdg)
		sb_adds(&base, x);
	else if (home && home[0] == '/' && strcmp(home, "/") != 0)
		sb_addf(&base, "%s/.local/state", home);
	else {
		errno = ENOENT;
		return -1;
	}
	/* The home itself is never made: one that does not exist (nobody's
	 * /nonexistent) has no state directory. */
	if (create && (xdg || geteuid() != 0) && (xdg || access(home, F_OK) == 0))
		make_parents(sb_str(&base));
	int bfd = open(sb_str(&base), O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = bfd < 0 ? -1 : own_dir_open(bfd, "adaptrm", create);
	int err = errno;
	if (bfd >= 0)
		close(bfd);
	if (fd >= 0 && path)
		sb_addf(path, "%s/adaptrm", sb_str(&base));
	sb_free(&base);
	errno = err;
	return fd;
}

int state_log_open(int placefd, const char *place, struct strbuf *path)
{
	int sfd = state_dir_open(true, path);
	int fd = sfd < 0 ? -1 : own_file_open(sfd, STATE_LOG, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (sfd >= 0)
		close(sfd);
	if (fd >= 0) {
		if (path)
			sb_adds(path, "/" STATE_LOG);
		return fd;
	}
	if (path) {
		sb_reset(path);
		sb_addf(path, "%s/" STATE_LOG, place);
	}
	return own_file_open(placefd, STATE_LOG, O_WRONLY | O_APPEND | O_CREAT, 0600);
}

void state_log_path(int placefd, const char *place, struct strbuf *path)
{
	struct stat st;
	int sfd = state_dir_open(false, path);
	if (sfd >= 0 && fstatat(sfd, STATE_LOG, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstatat(placefd, STATE_LOG, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(sfd);
		sb_adds(path, "/" STATE_LOG);
		return;
	}
	if (sfd >= 0)
		close(sfd);
	sb_reset(path);
	sb_addf(path, "%s/" STATE_LOG, place);
}

/* The index opened with FLAGS, or NULL. */
static FILE *index_open(bool create, int flags, const char *mode)
{
	int sfd = state_dir_open(create, NULL);
	if (sfd < 0)
		return NULL;
	int fd = own_file_open(sfd, INDEX_FILE, flags, 0600);
	close(sfd);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, mode);
	if (!fp && fd >= 0)
		close(fd);
	return fp;
}

/* Call FN for each place in the index FP. */
static void each_line(FILE *fp, void (*fn)(const char *place, void *arg), void *arg)
{
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
	/* A name with a newline would be two lines of the index: such a place
	 * is found at its mount's root, or not at all, never misread. */
	if (strchr(place, '\n'))
		return;
	FILE *fp = index_open(true, O_RDWR | O_APPEND | O_CREAT, "a+");
	if (!fp)
		return; /* the mount roots are searched anyway */
	struct seen s = { .place = place };
	each_line(fp, find_place, &s);
	/* O_APPEND: concurrent callers add whole lines, a duplicate at worst. */
	if (!s.found)
		fprintf(fp, "%s\n", place);
	fclose(fp);
}

void state_each_place(uid_t uid, void (*fn)(const char *place, void *arg), void *arg)
{
	FILE *fp = index_open(false, O_RDONLY, "r");
	if (fp) {
		each_line(fp, fn, arg);
		fclose(fp);
	}
	place_each_at_mount_roots(uid, fn, arg);
}
