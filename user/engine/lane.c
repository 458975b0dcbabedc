// SPDX-License-Identifier: GPL-3.0-or-later
/* The large-file lane: huge files are unlinked by a thread of their own, so
 * that freeing their blocks never holds up the rest of the tree, and with
 * --free-rate they are first truncated from the end in chunks, paced
 * (docs/design.md#large-files-the-lane-and---free-rate).
 *
 * A worker that meets a regular file with lane_bytes allocated or more hands
 * it over: a dup() of its directory's fd, the name, the identity statx saw,
 * and a reference on the directory's node, so the directory is removed only
 * after the file (by whoever drops the last reference: here, often). The
 * queue is bounded. Full, a worker unlinks the file itself (the lane is a
 * helper, not a bottleneck), except under --free-rate, where it waits: the
 * rate is the point. The lane's thread is not one of the worker slots the
 * controller reads, so its blocked time is never a reason to add workers. */
#include "engine/dirnode.h"
#include "engine/engine_int.h"
#include "engine/release.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define LANE_QUEUE 16
/* Truncation steps a file may take beyond those its size at the start
 * needs: a writer that keeps appending cannot keep the lane on it. */
#define LANE_EXTRA_STEPS 16
/* How often a wait checks whether the engine is stopping (a stop is a
 * flag set by a signal handler: nobody signals a condition variable). */
#define LANE_POLL_NS (50ull * 1000 * 1000)

struct lane_item {
	struct dnode *d; /* the directory, one reference held */
	int dirfd;	 /* a dup() of its fd */
	char *name;
	dev_t dev;
	ino_t ino;
};

struct lane {
	struct engine *e;
	struct worker w; /* for messages and counters; never a worker slot */
	uint64_t rate;	 /* --free-rate, bytes per second (0: not paced) */

	pthread_mutex_t lock;
	pthread_cond_t items, room;
	struct lane_item q[LANE_QUEUE];
	unsigned head, n;
	bool quit;
	bool started, spawn_failed;
	bool joined;
	pthread_t thread;

	/* One token bucket for the lane (with no burst): the time before
	 * which the next freeing may not start. Under lock. */
	uint64_t paced_until;
	_Atomic uint64_t files, truncations, paced_bytes, paced_first_ns, paced_last_ns;
};

static void deadline_in(struct timespec *ts, uint64_t ns)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	uint64_t t = (uint64_t)ts->tv_nsec + ns;
	ts->tv_sec += (time_t)(t / 1000000000u);
	ts->tv_nsec = (long)(t % 1000000000u);
}

static bool halting(const struct lane *l)
{
	return atomic_load_explicit(&l->e->halt, memory_order_relaxed);
}

/* HELD still has the write lease hold_file took: nobody has opened the file
 * since (an open breaks it, and it then reads F_RDLCK or F_UNLCK). */
static bool lease_held(int held)
{
	return fcntl(held, F_GETLEASE) == F_WRLCK;
}

/* ------------------------------------------------------------------ */
/* Pacing                                                               */

/* Sleep until monotonic time T; false if the engine halts meanwhile, or
 * if HELD (an fd, or -1) loses its lease (see free_held). */
static bool sleep_until(const struct lane *l, uint64_t t, int held)
{
	for (;;) {
		if (halting(l) || (held >= 0 && !lease_held(held)))
			return false;
		uint64_t now = now_ns();
		if (now >= t)
			return true;
		uint64_t ns = t - now < LANE_POLL_NS ? t - now : LANE_POLL_NS;
		struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
				       .tv_nsec = (long)(ns % 1000000000u) };
		nanosleep(&ts, NULL);
	}
}

/* Wait for the right to free BYTES at the rate: each freeing starts when
 * the last one's share of time (its bytes / rate) is over. False if the
 * engine halted meanwhile, or HELD lost its lease. */
static bool pace(struct lane *l, uint64_t bytes, int held)
{
	pthread_mutex_lock(&l->lock);
	uint64_t now = now_ns(), start = l->paced_until > now ? l->paced_until : now;
	l->paced_until = start + (uint64_t)((double)bytes * 1e9 / (double)l->rate);
	pthread_mutex_unlock(&l->lock);
	if (!sleep_until(l, start, held))
		return false;
	uint64_t zero = 0;
	atomic_compare_exchange_strong(&l->paced_first_ns, &zero, start);
	return true;
}

/* A freeing paced as ESTIMATE bytes freed ACTUAL: the bucket is moved by
 * the difference, so a sparse or fragmented file is paced by the blocks it
 * really holds, not by its size. */
static void pace_correct(struct lane *l, uint64_t estimate, uint64_t actual)
{
	double ns = ((double)actual - (double)estimate) * 1e9 / (double)l->rate;
	pthread_mutex_lock(&l->lock);
	if (ns >= 0)
		l->paced_until += (uint64_t)ns;
	else if ((uint64_t)-ns < l->paced_until)
		l->paced_until -= (uint64_t)-ns;
	pthread_mutex_unlock(&l->lock);
}

/* BYTES were freed under the pacing. The pacing ends when the bucket
 * allows the next freeing (or now, if the last one overran its share), so
 * that N steps count N shares of time, not the N - 1 between them. */
static void paced_done(struct lane *l, uint64_t bytes)
{
	atomic_fetch_add(&l->paced_bytes, bytes);
	pthread_mutex_lock(&l->lock);
	uint64_t now = now_ns(), end = l->paced_until > now ? l->paced_until : now;
	pthread_mutex_unlock(&l->lock);
	atomic_store(&l->paced_last_ns, end);
}

/* ------------------------------------------------------------------ */
/* One file                                                             */

static uint64_t allocated(const struct statx *sx)
{
	return (uint64_t)sx->stx_blocks * 512;
}

/* FD is the file first seen as (DEV, INO): a regular file, and not a mount
 * point (a file bind-mounted into the tree is someone else's data). DEV was
 * checked against the directory's when the file was taken. SX is filled. */
static bool same_file(int fd, dev_t dev, ino_t ino, struct statx *sx)
{
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_INO | STATX_NLINK | STATX_SIZE | STATX_BLOCKS, sx) != 0)
		return false;
	bool mount_root_known = sx->stx_attributes_mask & STATX_ATTR_MOUNT_ROOT;
	return S_ISREG(sx->stx_mode) && sx->stx_ino == ino &&
	       makedev(sx->stx_dev_major, sx->stx_dev_minor) == dev && mount_root_known &&
	       !(sx->stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* --free-rate shrinks a file only where nobody else can see it shrink
 * (docs/design.md#what---free-rate-may-truncate). Before the unlink the file
 * is opened and a write lease taken on it: the kernel grants one only while
 * no other open file description of the inode exists (another process's
 * fd, a mapping, a loop device, an executable being run), and breaks it
 * when anyone opens the inode later. After the unlink, free_held checks on
 * the fd that no name is left (a link count of 0 stays 0: the kernel makes
 * no new link to such an inode) and, before every step, that the lease
 * still holds. SIGIO, which announces a break, is ignored: the lease's
 * state is polled instead. The held fd, or -1 where the file is not one to
 * shrink or no lease can be had (another user's file without CAP_LEASE, a
 * filesystem without leases): such a file is only unlinked. */
static int hold_file(struct lane *l, int dirfd, const char *name, dev_t dev, ino_t ino)
{
	atomic_fetch_add(&l->w.st->syscalls, 1);
	int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct statx sx;
	if (!same_file(fd, dev, ino, &sx) || sx.stx_nlink != 1 ||
	    fcntl(fd, F_SETLEASE, F_WRLCK) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Give up HELD's lease (so that an opener waiting on its break goes on at
 * once) and close it; the kernel frees what is left of an unlinked file. */
static void release_held(int held)
{
	fcntl(held, F_SETLEASE, F_UNLCK);
	close(held);
}

/* The next size down: the multiple of the chunk below SIZE. */
static uint64_t next_size(uint64_t size)
{
	return (size - 1) / ENGINE_LANE_CHUNK * ENGINE_LANE_CHUNK;
}

/* HELD (from hold_file, first seen as DEV, INO) was unlinked: if no name
 * reaches it and nobody else has opened it, truncate it from the end a chunk
 * at a time, paced, until its last chunk, which goes when it is closed
 * (paced too). Stops for good, leaving the rest to whoever holds the file,
 * once the lease is broken. The steps are bounded by the size at the start,
 * plus LANE_EXTRA_STEPS. 0, or the errno of a failed ftruncate. */
static int free_held(struct lane *l, int held, dev_t dev, ino_t ino)
{
	struct statx sx;
	if (!same_file(held, dev, ino, &sx) || sx.stx_nlink != 0 || !lease_held(held))
		return 0;
	uint64_t steps = 0, max_steps = sx.stx_size / ENGINE_LANE_CHUNK + LANE_EXTRA_STEPS;
	while (sx.stx_size > ENGINE_LANE_CHUNK && steps < max_steps) {
		uint64_t target = next_size(sx.stx_size), held_bytes = allocated(&sx);
		/* the step's share of what the file holds, as if spread evenly;
		 * corrected by what it really freed */
		uint64_t cost = (uint64_t)((double)held_bytes * (double)(sx.stx_size - target) /
					   (double)sx.stx_size);
		if (!pace(l, cost, held) || !lease_held(held))
			return 0;
		atomic_fetch_add(&l->w.st->syscalls, 1);
		if (ftruncate(held, (off_t)target) != 0)
			return errno;
		atomic_fetch_add(&l->truncations, 1);
		steps++;
		if (!same_file(held, dev, ino, &sx)) {
			paced_done(l, cost);
			return 0;
		}
		uint64_t freed = held_bytes > allocated(&sx) ? held_bytes - allocated(&sx) : 0;
		pace_correct(l, cost, freed);
		paced_done(l, freed);
	}
	/* the close frees the rest: paced too */
	if (pace(l, allocated(&sx), held))
		paced_done(l, allocated(&sx));
	return 0;
}

/* True if the file is gone (unlinked here, or by someone else first). */
static bool unlink_item(struct lane *l, const struct lane_item *it)
{
	struct worker *w = &l->w;
	stat_add(&w->st->syscalls, 1);
	if (unlinkat(it->dirfd, it->name, 0) == 0) {
		stat_add(&w->st->files, 1);
		atomic_fetch_add(&l->files, 1);
		atomic_fetch_add_explicit(&it->d->progress, 1, memory_order_relaxed);
		if (l->e->cfg.verbose)
			engine_msg_removed(w, it->d, it->name, false);
		return true;
	}
	if (engine_gone(l->e, errno))
		return true;
	engine_msg_cannot_remove(w, it->d, it->name, errno);
	engine_mark_failed(it->d);
	return false;
}

/* The item is done with (or abandoned: the engine halts, and the file and
 * its ancestors stay): its fd, name and reference go. */
static void item_release(struct lane *l, struct lane_item *it, bool abandoned)
{
	close(it->dirfd);
	free(it->name);
	if (abandoned)
		engine_mark_failed(it->d);
	engine_node_release(&l->w, it->d);
}

/* One file: held first under --free-rate, unlinked, then freed paced. */
static void run_item(struct lane *l, struct lane_item *it)
{
	int held = -1;
	if (!halting(l) && l->rate)
		held = hold_file(l, it->dirfd, it->name, it->dev, it->ino);
	if (halting(l)) {
		if (held >= 0)
			release_held(held);
		item_release(l, it, true);
		return;
	}
	bool unlinked = unlink_item(l, it);
	if (held >= 0) {
		int err = unlinked ? free_held(l, held, it->dev, it->ino) : 0;
		if (err)
			engine_msg_path_error(&l->w, it->d, it->name, "cannot truncate", err);
		release_held(held);
	}
	item_release(l, it, false);
}

/* ------------------------------------------------------------------ */
/* The queue and the thread                                             */

/* The next item, or false when told to quit. */
static bool next_item(struct lane *l, struct lane_item *it)
{
	pthread_mutex_lock(&l->lock);
	while (l->n == 0 && !l->quit) {
		struct timespec ts;
		deadline_in(&ts, LANE_POLL_NS);
		pthread_cond_timedwait(&l->items, &l->lock, &ts);
	}
	bool got = l->n > 0;
	if (got) {
		*it = l->q[l->head];
		l->head = (l->head + 1) % LANE_QUEUE;
		l->n--;
		pthread_cond_signal(&l->room);
	}
	pthread_mutex_unlock(&l->lock);
	return got;
}

static void *lane_main(void *arg)
{
	struct lane *l = arg;
	atomic_store(&l->w.tid, (pid_t)syscall(SYS_gettid));
	struct lane_item it;
	while (next_item(l, &it))
		run_item(l, &it);
	return NULL;
}

/* Under lock: the thread runs (started now if it was not); false if it
 * cannot be started (the workers then unlink the files themselves). */
static bool ensure_thread(struct lane *l)
{
	if (l->started || l->spawn_failed)
		return l->started;
	sigset_t old;
	engine_mask_signals(&old);
	int rc = pthread_create(&l->thread, NULL, lane_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	l->started = rc == 0;
	l->spawn_failed = rc != 0;
	return l->started;
}

/* Queue IT for worker W. Full: wait for room if the lane paces (false if
 * the engine halts meanwhile), else false at once. A worker waiting here is
 * in the lane: the watchdog lets another run in its place, so that the rest
 * of the tree goes on at full speed. */
static bool enqueue(struct lane *l, struct worker *w, const struct lane_item *it, bool *halted)
{
	pthread_mutex_lock(&l->lock);
	bool ok = ensure_thread(l);
	while (ok && l->n == LANE_QUEUE) {
		if (!l->rate || halting(l)) {
			*halted = halting(l);
			ok = false;
			break;
		}
		atomic_store_explicit(&w->st->in_unlink, LANE_WAITING, memory_order_relaxed);
		struct timespec ts;
		deadline_in(&ts, LANE_POLL_NS);
		pthread_cond_timedwait(&l->room, &l->lock, &ts);
	}
	atomic_store_explicit(&w->st->in_unlink, 0, memory_order_relaxed);
	if (ok) {
		l->q[(l->head + l->n) % LANE_QUEUE] = *it;
		l->n++;
		pthread_cond_signal(&l->items);
	}
	pthread_mutex_unlock(&l->lock);
	return ok;
}

/* NAME in D (FD) is a regular file with one link, in D's filesystem and
 * not a mount point, with at least LANE_BYTES allocated: SX filled. */
static bool is_large(struct worker *w, struct dnode *d, int fd, const char *name,
		     uint64_t lane_bytes, struct statx *sx)
{
	stat_add(&w->st->syscalls, 1);
	if (statx(fd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_INO | STATX_NLINK | STATX_BLOCKS, sx) != 0)
		return false; /* the unlink will say what is wrong */
	dev_t dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
	return S_ISREG(sx->stx_mode) && sx->stx_nlink == 1 && allocated(sx) >= lane_bytes &&
	       dev == d->dev && !(sx->stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

bool lane_take(struct worker *w, struct dnode *d, int fd, const char *name)
{
	return lane_take_at(w, d, fd, name,
			    atomic_load_explicit(&w->e->knobs.lane_bytes, memory_order_relaxed));
}

bool lane_take_at(struct worker *w, struct dnode *d, int fd, const char *name, uint64_t lane_bytes)
{
	struct lane *l = w->e->lane;
	struct statx sx;
	if (!l || !is_large(w, d, fd, name, lane_bytes, &sx))
		return false;
	struct lane_item it = { .d = d,
				.dev = makedev(sx.stx_dev_major, sx.stx_dev_minor),
				.ino = sx.stx_ino };
	it.name = strdup(name);
	stat_add(&w->st->syscalls, 1);
	it.dirfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (!it.name || it.dirfd < 0) {
		free(it.name);
		if (it.dirfd >= 0)
			close(it.dirfd);
		return false; /* out of memory or fds: unlinked here */
	}
	atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
	bool halted = false;
	if (enqueue(l, w, &it, &halted))
		return true;
	atomic_fetch_sub_explicit(&d->refs, 1, memory_order_relaxed); /* the scan holds one */
	close(it.dirfd);
	free(it.name);
	if (halted)
		engine_mark_failed(d); /* it stays, as everything left does */
	return halted;
}

int engine_hold_file(struct engine *e, int dirfd, const char *name)
{
	struct lane *l = e->lane;
	struct stat dst;
	struct statx sx;
	bool cwd = dirfd == AT_FDCWD;
	if (!l->rate || fstatat(dirfd, cwd ? "." : "", &dst, cwd ? 0 : AT_EMPTY_PATH) != 0 ||
	    statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_INO | STATX_NLINK | STATX_BLOCKS, &sx) != 0)
		return -1;
	dev_t dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	uint64_t lane_bytes = atomic_load_explicit(&e->knobs.lane_bytes, memory_order_relaxed);
	if (!S_ISREG(sx.stx_mode) || sx.stx_nlink != 1 || allocated(&sx) < lane_bytes ||
	    dev != dst.st_dev || (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return -1;
	return hold_file(l, dirfd, name, dev, sx.stx_ino);
}

int engine_free_held(struct engine *e, int held)
{
	struct lane *l = e->lane;
	struct statx sx;
	int err = 0;
	if (statx(held, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &sx) == 0) {
		atomic_fetch_add(&l->files, 1);
		err = free_held(l, held, makedev(sx.stx_dev_major, sx.stx_dev_minor), sx.stx_ino);
	}
	release_held(held);
	return err;
}

struct lane *lane_new(struct engine *e, struct worker_stats *st, uint64_t rate)
{
	struct lane *l = xcalloc(1, sizeof(*l));
	l->e = e;
	l->rate = rate;
	l->w.e = e;
	l->w.id = e->cfg.max_threads;
	l->w.st = st;
	if (rate)
		signal(SIGIO, SIG_IGN); /* a lease's break is polled (hold_file) */
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->items, &ca);
	pthread_cond_init(&l->room, &ca);
	pthread_condattr_destroy(&ca);
	return l;
}

bool lane_join_until(struct lane *l, const struct timespec *deadline)
{
	pthread_mutex_lock(&l->lock);
	l->quit = true;
	pthread_cond_broadcast(&l->items);
	bool started = l->started;
	pthread_mutex_unlock(&l->lock);
	if (started && !l->joined && pthread_timedjoin_np(l->thread, NULL, deadline) == 0)
		l->joined = true;
	return !started || l->joined;
}

void lane_destroy(struct lane *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->quit = true;
	pthread_cond_broadcast(&l->items);
	pthread_mutex_unlock(&l->lock);
	if (l->started && !l->joined)
		pthread_join(l->thread, NULL);
	/* Left by a stop: the process exits, the nodes are abandoned with
	 * the engine's other tasks (engine_destroy). */
	for (unsigned i = 0; i < l->n; i++) {
		struct lane_item *it = &l->q[(l->head + i) % LANE_QUEUE];
		close(it->dirfd);
		free(it->name);
	}
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->items);
	pthread_cond_destroy(&l->room);
	sb_free(&l->w.msg);
	sb_free(&l->w.path);
	free(l);
}

void lane_totals(const struct lane *l, struct lane_totals *t)
{
	t->files = atomic_load(&l->files);
	t->truncations = atomic_load(&l->truncations);
	t->paced_bytes = atomic_load(&l->paced_bytes);
	uint64_t first = atomic_load(&l->paced_first_ns), last = atomic_load(&l->paced_last_ns);
	t->paced_ns = first && last > first ? last - first : 0;
	t->auto_lane = atomic_load(&l->e->auto_lane);
}
