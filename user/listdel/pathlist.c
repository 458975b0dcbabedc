// SPDX-License-Identifier: GPL-3.0-or-later
/* The list reader, the parent hash, the kept ancestors and the prune spool
 * (pathlist.h); the unlinker and the replay are in pathdel.c. */
#include "listdel/pathlist.h"
#include "lib/env.h"
#include "lib/fdio.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PL_BLOCK 65536		 /* one read at most */
#define SEP_BLOCK (PL_BLOCK / 2) /* the separator is decided from this many bytes */

/* --- reader ------------------------------------------------------------ */

void pathlist_init_fd(struct pathlist_reader *r, int fd, int sep)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->sep = sep;
	r->cap = PL_BLOCK;
	r->buf = xmalloc(r->cap);
}

int pathlist_open(struct pathlist_reader *r, const char *file)
{
	int fd = STDIN_FILENO;
	if (strcmp(file, "-") != 0) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
	}
	pathlist_init_fd(r, fd, -1);
	r->own_fd = fd != STDIN_FILENO;
	return 0;
}

void pathlist_close(struct pathlist_reader *r)
{
	if (r->own_fd)
		close(r->fd);
	free(r->buf);
	r->buf = NULL;
}

/* Room for one more block after the unread bytes: slide them to the front,
 * grow only when a record fills the whole buffer. */
static void make_room(struct pathlist_reader *r)
{
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scan -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < PL_BLOCK / 2) {
		r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap);
	}
}

/* One read(2) into the buffer: 0, or -errno. Sets eof. */
static int fill(struct pathlist_reader *r)
{
	make_room(r);
	ssize_t n;
	do
		n = read(r->fd, r->buf + r->end, r->cap - r->end - 1); /* 1: the last NUL */
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		r->eof = true;
	r->end += (size_t)n;
	return 0;
}

/* NUL if the first SEP_BLOCK bytes (or the whole input, if shorter) hold
 * one: the same answer however the reads of a pipe are cut. */
static int decide_separator(struct pathlist_reader *r)
{
	while (!r->eof && r->end - r->start < SEP_BLOCK) {
		int err = fill(r);
		if (err)
			return err;
	}
	size_t n = r->end - r->start < SEP_BLOCK ? r->end - r->start : SEP_BLOCK;
	r->sep = memchr(r->buf + r->start, '\0', n) ? '\0' : '\n';
	return 0;
}

int pathlist_next(struct pathlist_reader *r, char **path, size_t *len)
{
	if (r->sep < 0) {
		int err = decide_separator(r);
		if (err)
			return err;
	}
	for (;;) {
		if (r->scan < r->start)
			r->scan = r->start;
		char *hit = memchr(r->buf + r->scan, r->sep, r->end - r->scan);
		size_t stop = hit ? (size_t)(hit - r->buf) : r->end;
		if (hit || (r->eof && r->start < r->end)) {
			size_t s = r->start;
			r->buf[stop] = '\0'; /* fill leaves a byte for the last record's NUL */
			r->start = r->scan = hit ? stop + 1 : stop;
			if (stop == s)
				continue; /* an empty record */
			*path = r->buf + s;
			*len = stop - s;
			return 1;
		}
		if (r->eof)
			return 0;
		r->scan = r->end;
		int err = fill(r);
		if (err)
			return err;
	}
}

/* --- dealing ----------------------------------------------------------- */

size_t pathlist_parent_len(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len > 0 && path[len - 1] != '/')
		len--;
	/* "a//f": the parent is "a"; "/f" and "//f": "/" */
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

uint64_t pathlist_parent_hash(const char *path, size_t len)
{
	size_t n = pathlist_parent_len(path, len);
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a splitmix64 finish */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)path[i]) * 0x100000001b3ull;
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* --- kept ancestors ---------------------------------------------------- */

/* Cut the stored components *STORE (*SLEN bytes, *DEPTH of them) to the
 * prefix they share with PARENT's. */
static void keep_cut(const char *store, size_t *slen, unsigned *depth, const char *parent, size_t len)
{
	size_t pos = 0, start, clen, off = 0;
	unsigned d = 0;
	while (d < *depth && pathlist_component(parent, len, &pos, &start, &clen)) {
		size_t slen_c = strlen(store + off);
		if (slen_c != clen || memcmp(store + off, parent + start, clen) != 0)
			break;
		off += slen_c + 1;
		d++;
	}
	*depth = d;
	*slen = off;
}

/* Store every component of PARENT, each NUL-terminated. */
static void keep_set(char **store, size_t *slen, unsigned *depth, const char *parent, size_t len)
{
	free(*store);
	*store = xmalloc(len + 1);
	size_t pos = 0, start, clen, off = 0;
	unsigned d = 0;
	while (pathlist_component(parent, len, &pos, &start, &clen)) {
		memcpy(*store + off, parent + start, clen);
		(*store)[off + clen] = '\0';
		off += clen + 1;
		d++;
	}
	*slen = off;
	*depth = d;
}

void pathlist_keep_note(struct pathlist_keep *k, const char *parent, size_t len)
{
	bool abs = len > 0 && parent[0] == '/';
	char **store = abs ? &k->abs : &k->rel;
	size_t *slen = abs ? &k->abs_len : &k->rel_len;
	unsigned *depth = abs ? &k->abs_depth : &k->rel_depth;
	bool *seen = abs ? &k->abs_seen : &k->rel_seen;
	if (!*seen) {
		keep_set(store, slen, depth, parent, len);
		*seen = true;
		return;
	}
	keep_cut(*store, slen, depth, parent, len);
}

/* Components joined by '\0' back into a path (for a merge). */
static char *keep_path(const char *store, size_t slen, bool abs, size_t *len)
{
	char *p = xmalloc(slen + 2);
	size_t n = 0;
	if (abs)
		p[n++] = '/';
	for (size_t i = 0; i < slen; i++)
		p[n++] = store[i] ? store[i] : '/';
	*len = n;
	return p;
}

void pathlist_keep_merge(struct pathlist_keep *k, const struct pathlist_keep *other)
{
	size_t len;
	if (other->abs_seen) {
		char *p = keep_path(other->abs, other->abs_len, true, &len);
		pathlist_keep_note(k, p, len);
		free(p);
	}
	if (other->rel_seen) {
		char *p = keep_path(other->rel, other->rel_len, false, &len);
		pathlist_keep_note(k, p, len);
		free(p);
	}
}

void pathlist_keep_free(struct pathlist_keep *k)
{
	free(k->abs);
	free(k->rel);
	memset(k, 0, sizeof(*k));
}

/* --- the prune spool --------------------------------------------------- */

struct prune_spool {
	int fd;
	pthread_mutex_t lock; /* the reader's parents and the workers' directories */
	char *wbuf;
	size_t wlen;
	char *last; /* the last parent spooled, to skip its repeats */
	size_t last_len, last_cap;
	bool have_last;
	struct pathlist_keep keep;
};

/* An unlinked file in DIR: O_TMPFILE, or where the filesystem has none a
 * named one unlinked at once. */
static int open_unlinked(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	size_t n = strlen(dir) + 32;
	char *name = xmalloc(n);
	strcpy(name, dir);
	strcat(name, "/adaptrm-prune.XXXXXX");
	fd = mkostemp(name, O_CLOEXEC);
	if (fd >= 0)
		unlink(name);
	free(name);
	return fd;
}

const char *prune_spool_dir_name(void)
{
	const char *tmp = env_str(ENV_TMPDIR);
	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

unsigned pathdel_threads(int asked)
{
	if (asked > 0)
		return (unsigned)asked;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > PATHDEL_THREADS_MAX ? PATHDEL_THREADS_MAX : (unsigned)cpus;
}

struct prune_spool *prune_spool_new(const char *tmpdir, int *err)
{
	int fd = open_unlinked(tmpdir && *tmpdir ? tmpdir : prune_spool_dir_name());
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	struct prune_spool *s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	pthread_mutex_init(&s->lock, NULL);
	s->wbuf = xmalloc(PL_BLOCK);
	return s;
}

void prune_spool_free(struct prune_spool *s)
{
	if (!s)
		return;
	close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s->wbuf);
	free(s->last);
	pathlist_keep_free(&s->keep);
	free(s);
}

static int spool_flush(struct prune_spool *s)
{
	int err = write_all(s->fd, s->wbuf, s->wlen);
	s->wlen = 0;
	return err;
}

/* One NUL-terminated record; the caller holds the lock. */
static int spool_put(struct prune_spool *s, const char *p, size_t len)
{
	int err = 0;
	if (s->wlen + len + 1 > PL_BLOCK)
		err = spool_flush(s);
	if (len + 1 > PL_BLOCK) { /* longer than the buffer: straight through */
		if (!err)
			err = write_all(s->fd, p, len);
		return err ? err : write_all(s->fd, "", 1);
	}
	memcpy(s->wbuf + s->wlen, p, len);
	s->wbuf[s->wlen + len] = '\0';
	s->wlen += len + 1;
	return err;
}

int prune_spool_parent(struct prune_spool *s, const char *parent, size_t len)
{
	if (s->have_last && s->last_len == len && memcmp(s->last, parent, len) == 0)
		return 0;
	if (s->last_cap < len + 1) {
		s->last_cap = len + 1;
		s->last = xrealloc(s->last, s->last_cap);
	}
	memcpy(s->last, parent, len);
	s->last_len = len;
	s->have_last = true;
	pthread_mutex_lock(&s->lock);
	pathlist_keep_note(&s->keep, parent, len);
	int err = 0;
	/* the cwd and "/" are never pruned: only their notes count */
	size_t pos = 0, start, clen;
	if (pathlist_component(parent, len, &pos, &start, &clen))
		err = spool_put(s, parent, len);
	pthread_mutex_unlock(&s->lock);
	return err;
}

int prune_spool_dir(struct prune_spool *s, const char *path, size_t len)
{
	pthread_mutex_lock(&s->lock);
	int err = spool_put(s, path, len);
	pthread_mutex_unlock(&s->lock);
	return err;
}

struct pathlist_keep *prune_spool_keep(struct prune_spool *s)
{
	return &s->keep;
}

/* The spool's fd, flushed and rewound, for the replay (pathdel.c). */
int prune_spool_rewind(struct prune_spool *s)
{
	pthread_mutex_lock(&s->lock);
	int err = spool_flush(s);
	pthread_mutex_unlock(&s->lock);
	if (err)
		return -err;
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return -errno;
	return s->fd;
}
