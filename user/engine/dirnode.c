// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/dirnode.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)

struct dnode *dnode_try_new(struct dnode *parent, const char *name, size_t len)
{
	struct dnode *n = malloc(sizeof(*n) + len + 1);
	if (n)
		dnode_init(n, parent, name, len);
	return n;
}

void dnode_init(struct dnode *n, struct dnode *parent, const char *name, size_t len)
{
	n->parent = parent;
	n->lru_prev = n->lru_next = NULL;
	atomic_init(&n->refs, 1);
	atomic_init(&n->flags, 0);
	atomic_init(&n->progress, 0);
	n->fd = -1;
	n->pins = 0;
	n->budget = 0;
	n->dev = 0;
	n->ino = 0;
	n->retries = 0;
	n->namelen = (uint16_t)len;
	memcpy(n->name, name, len);
	n->name[len] = '\0';
}

struct dnode *dnode_new(struct dnode *parent, const char *name, size_t len)
{
	struct dnode *n = dnode_try_new(parent, name, len);
	if (!n)
		xalloc_die();
	return n;
}

void dnode_free(struct dnode *n)
{
	free(n);
}

void dnode_init_anchor(struct dnode *a, int fd)
{
	memset(a, 0, sizeof(*a));
	atomic_init(&a->refs, 1);
	atomic_init(&a->flags, DN_ANCHOR);
	a->fd = fd;
}

static bool is_anchor(const struct dnode *n)
{
	return atomic_load_explicit(&n->flags, memory_order_relaxed) & DN_ANCHOR;
}

void fdc_init(struct fdcache *c, unsigned budget)
{
	pthread_mutex_init(&c->lock, NULL);
	memset(&c->lru, 0, sizeof(c->lru));
	c->lru.lru_next = c->lru.lru_prev = &c->lru;
	c->budget = budget ? budget : 1;
	c->open = 0;
	atomic_init(&c->reopens, 0);
	atomic_init(&c->evictions, 0);
}

void fdc_destroy(struct fdcache *c)
{
	pthread_mutex_destroy(&c->lock);
}

/* --- LRU list (cache lock held) --- */

static void lru_unlink(struct dnode *n)
{
	n->lru_prev->lru_next = n->lru_next;
	n->lru_next->lru_prev = n->lru_prev;
	n->lru_prev = n->lru_next = NULL;
}

static void lru_push_front(struct fdcache *c, struct dnode *n)
{
	n->lru_next = c->lru.lru_next;
	n->lru_prev = &c->lru;
	c->lru.lru_next->lru_prev = n;
	c->lru.lru_next = n;
}

/* Fds taken out of the cache under its lock, closed after it is released:
 * close() is a syscall (and the final fput of a directory), and the other
 * workers must not queue on the lock behind it (20,000 small directories
 * on 2 workers: one futex wait per five directories). The fd numbers stay
 * ours until closed, so nothing can reuse them in between. */
struct fd_batch {
	int fd[4];
	int n;
};

static void batch_close_later(struct fd_batch *b, int fd)
{
	if (b->n < (int)(sizeof b->fd / sizeof b->fd[0]))
		b->fd[b->n++] = fd;
	else
		close(fd); /* rare: the budget shrank, or pinned fds beyond it came back */
}

static void batch_close(struct fd_batch *b)
{
	while (b->n > 0)
		close(b->fd[--b->n]);
}

/* Take out the least recently used unpinned fd; false if there is none. */
static bool evict_one(struct fdcache *c, struct fd_batch *b)
{
	struct dnode *victim = c->lru.lru_prev;
	if (victim == &c->lru)
		return false;
	lru_unlink(victim);
	batch_close_later(b, victim->fd);
	victim->fd = -1;
	c->open--;
	atomic_fetch_add_explicit(&c->evictions, 1, memory_order_relaxed);
	return true;
}

static void pin_locked(struct dnode *n)
{
	if (n->pins++ == 0 && n->lru_next)
		lru_unlink(n);
}

/* Record FD as N's, pinned. If another thread got there first, keep theirs. */
static int install_locked(struct fdcache *c, struct dnode *n, int fd, struct fd_batch *b)
{
	if (n->fd >= 0) {
		batch_close_later(b, fd);
	} else {
		n->fd = fd;
		c->open++;
		while (c->open > c->budget && evict_one(c, b))
			;
	}
	pin_locked(n);
	return n->fd;
}

int fdc_install(struct fdcache *c, struct dnode *n, int fd)
{
	struct fd_batch b = { .n = 0 };
	pthread_mutex_lock(&c->lock);
	fd = install_locked(c, n, fd, &b);
	pthread_mutex_unlock(&c->lock);
	batch_close(&b);
	return fd;
}

void fdc_put(struct fdcache *c, struct dnode *n)
{
	if (is_anchor(n))
		return;
	pthread_mutex_lock(&c->lock);
	if (--n->pins == 0 && n->fd >= 0)
		lru_push_front(c, n);
	pthread_mutex_unlock(&c->lock);
}

int fdc_take(struct fdcache *c, struct dnode *n)
{
	int fd = -1;
	pthread_mutex_lock(&c->lock);
	if (n->fd >= 0) {
		if (n->lru_next)
			lru_unlink(n);
		fd = n->fd;
		n->fd = -1;
		c->open--;
	}
	pthread_mutex_unlock(&c->lock);
	return fd;
}

int fdc_openat_evicting(struct fdcache *c, int dirfd, const char *name, int flags)
{
	for (;;) {
		/* Shrink the budget to what we have and free one fd. */
		struct fd_batch b = { .n = 0 };
		pthread_mutex_lock(&c->lock);
		bool freed = evict_one(c, &b);
		if (freed && c->budget > 1 && c->open < c->budget)
			c->budget = c->open > 0 ? c->open : 1;
		pthread_mutex_unlock(&c->lock);
		batch_close(&b);
		if (!freed) {
			errno = EMFILE;
			return -1;
		}
		int fd = sys_openat(dirfd, name, flags);
		if (fd >= 0)
			return fd;
		if (fd != -EMFILE && fd != -ENFILE) {
			errno = -fd;
			return -1;
		}
	}
}

/* Open NAME in DIRFD as a directory and check it is the one we recorded. */
static int open_verified(struct fdcache *c, int dirfd, const char *name, const struct dnode *expect,
			 int *err)
{
	int fd = fdc_openat(c, dirfd, name, DIR_OPEN_FLAGS);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		*err = errno;
		close(fd);
		return -1;
	}
	if (st.st_dev != expect->dev || st.st_ino != expect->ino) {
		*err = ESTALE;
		close(fd);
		return -1;
	}
	atomic_fetch_add_explicit(&c->reopens, 1, memory_order_relaxed);
	return fd;
}

int fdc_get(struct fdcache *c, struct dnode *n, int *err)
{
	if (is_anchor(n))
		return n->fd;

	pthread_mutex_lock(&c->lock);
	if (n->fd >= 0) {
		pin_locked(n);
		pthread_mutex_unlock(&c->lock);
		return n->fd;
	}
	/* Find the nearest ancestor with an open fd and pin it. Nodes between
	 * it and N cannot go away: N's unfinished scan holds their counts. */
	size_t depth = 0;
	struct dnode *a = n;
	while (!is_anchor(a) && a->fd < 0) {
		a = a->parent;
		depth++;
	}
	pin_locked(a);
	pthread_mutex_unlock(&c->lock);

	/* The levels below A, top first: all of them in one array if it can be
	 * had, else PATH_SEGMENT at a time in one on the stack, each segment
	 * found by walking up from N again. A re-open must not fail for want
	 * of memory that grows with the depth. */
	enum { PATH_SEGMENT = 64 };
	struct dnode *segment[PATH_SEGMENT];
	size_t cap = depth;
	struct dnode **path = depth > PATH_SEGMENT ? malloc(depth * sizeof(*path)) : NULL;
	if (!path) {
		path = segment;
		cap = PATH_SEGMENT;
	}

	/* Walk down, one verified openat per level, keeping what we open: the
	 * levels just above N are the ones the next tasks will want. */
	int fd = a->fd;
	struct dnode *held = a;
	for (size_t done = 0; done < depth && fd != -1;) {
		size_t seg = depth - done < cap ? depth - done : cap;
		struct dnode *p = n;
		for (size_t below = depth - done - seg; below > 0; below--)
			p = p->parent;
		for (size_t i = seg; i > 0; p = p->parent)
			path[--i] = p;
		for (size_t i = 0; i < seg; i++) {
			int nfd = open_verified(c, fd, path[i]->name, path[i], err);
			if (nfd < 0) {
				fd = -1;
				break;
			}
			fd = fdc_install(c, path[i], nfd);
			fdc_put(c, held);
			held = path[i];
		}
		done += seg;
	}
	if (path != segment)
		free(path);
	if (fd == -1)
		fdc_put(c, held);
	return fd;
}

int fdc_get_parent(struct fdcache *c, struct dnode *child, int *err)
{
	struct dnode *p = child->parent;
	if (is_anchor(p))
		return p->fd;

	pthread_mutex_lock(&c->lock);
	if (p->fd >= 0) {
		pin_locked(p);
		pthread_mutex_unlock(&c->lock);
		return p->fd;
	}
	if (child->fd < 0) {
		pthread_mutex_unlock(&c->lock);
		return fdc_get(c, p, err);
	}
	pin_locked(child);
	pthread_mutex_unlock(&c->lock);

	int pfd = open_verified(c, child->fd, "..", p, err);
	fdc_put(c, child);
	if (pfd < 0) {
		/* ".." is not where we came from (the child was moved): fall
		 * back to the trusted path from above, which verifies too. */
		return fdc_get(c, p, err);
	}
	return fdc_install(c, p, pfd);
}
