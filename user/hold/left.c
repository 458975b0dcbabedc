// SPDX-License-Identifier: GPL-3.0-or-later
/* Notes of what a deleter left (see left.h). */
#include "hold/left.h"
#include "lib/fdio.h"
#include "lib/ownfile.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOTE_MAX 8192 /* PATH_MAX and the kind, with room */

int left_note_write(int placefd, const char *path, bool back)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char name[64];
	snprintf(name, sizeof name, LEFT_PREFIX "%lld-%09ld-%d-%u", (long long)ts.tv_sec,
		 ts.tv_nsec, (int)getpid(), counter++);
	int fd = own_file_open(placefd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return errno;
	const char *kind = back ? "back\n" : "held\n";
	size_t n = strlen(path);
	int err = write(fd, kind, 5) == 5 && write(fd, path, n) == (ssize_t)n ? 0 :
		  errno							      ? errno :
										EIO;
	close(fd);
	if (err)
		unlinkat(placefd, name, 0);
	return err;
}

/* The note FILE read into N: false for anything that is no whole note. */
static bool note_read(int placefd, const char *file, struct left_note *n)
{
	int fd = own_file_open(placefd, file, O_RDONLY, 0);
	if (fd < 0)
		return false;
	char *buf = xmalloc(NOTE_MAX);
	ssize_t len = read(fd, buf, NOTE_MAX - 1);
	close(fd);
	bool ok = len > 5 && (!memcmp(buf, "back\n", 5) || !memcmp(buf, "held\n", 5));
	if (ok) {
		buf[len] = '\0';
		snprintf(n->file, sizeof n->file, "%s", file);
		n->back = buf[0] == 'b';
		n->path = xstrdup(buf + 5);
	}
	free(buf);
	return ok;
}

void left_note_each(int placefd, void (*fn)(int placefd, const struct left_note *n, void *arg),
		    void *arg)
{
	int dfd = openat(placefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(dir))) {
		struct left_note n;
		if (strncmp(de->d_name, LEFT_PREFIX, strlen(LEFT_PREFIX)) ||
		    strlen(de->d_name) >= sizeof n.file || !note_read(placefd, de->d_name, &n))
			continue;
		fn(placefd, &n, arg);
		free(n.path);
	}
	closedir(dir);
}

void left_note_remove(int placefd, const struct left_note *n)
{
	unlinkat(placefd, n->file, 0);
}
