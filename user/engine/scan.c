// SPDX-License-Identifier: GPL-3.0-or-later
/* The scanner and the workers' loop: a worker pops a task (tasks.c), reads
 * its directory with getdents64, unlinks what is not a directory, pushes the
 * subdirectories as tasks, and drops the directory's own reference at the
 * end (release.h). */
#include "engine/dirnode.h"
#include "engine/engine_int.h"
#include "engine/opendir.h"
#include "engine/plan.h"
#include "engine/rawsys.h"
#include "engine/release.h"
#include "engine/slice.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/taskio.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GETDENTS_MIN 4096u
#define GETDENTS_MAX (16u << 20)

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define UNLINK_SAMPLE 8 /* time one unlinkat in 8 (a power of two) */
#define CHUNK_MIN 256	/* entries: below this a hand-off costs more than it saves */
/* getdents64 bytes that hold two chunks' worth of entries (24 bytes or more each) */
#define SHAREABLE_BYTES (2 * CHUNK_MIN * 24)


/* ------------------------------------------------------------------ */
/* Subdirectories found: new tasks                                      */

/* Subdirectory N of a directory being scanned cannot become a task (out of
 * memory): it is that directory's error, not the run's end. */
static __attribute__((noinline)) void subdir_lost(struct worker *w, struct dnode *n)
{
	struct dnode *p = n->parent;
	engine_msg_cannot_remove(w, n, NULL, ENOMEM);
	engine_mark_failed(p);
	dnode_free(n);
	engine_node_release(w, p); /* never the last reference: the scan holds one */
}

static int cmp_subdir_ino(const void *a, const void *b)
{
	const struct subdir *x = a, *y = b;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void flush_newdirs(struct worker *w)
{
	if (w->order_subdirs && w->n_newdirs > 1)
		qsort(w->newdirs, w->n_newdirs, sizeof(*w->newdirs), cmp_subdir_ino);
	bool pushed = engine_push_tasks(w->e, w->newdirs, w->n_newdirs);
	while (!pushed && engine_wait_for_memory(w))
		pushed = engine_push_tasks(w->e, w->newdirs, w->n_newdirs);
	if (!pushed)
		for (size_t i = 0; i < w->n_newdirs; i++)
			subdir_lost(w, w->newdirs[i].n);
	w->n_newdirs = 0;
}

/* Out of memory for a subdirectory's node: "cannot remove 'dir/NAME':
 * Cannot allocate memory", and D fails. */
static __attribute__((noinline)) void subdir_no_memory(struct worker *w, struct dnode *d,
						       const char *name)
{
	engine_msg_cannot_remove(w, d, name, ENOMEM);
	engine_mark_failed(d);
}

/* ------------------------------------------------------------------ */
/* Scanning one directory                                               */

static bool is_dot_or_dotdot(const char *s)
{
	return s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0'));
}

/* log2 of NS in µs, as engine_hist buckets count them */
static unsigned us_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b = us ? 64 - (unsigned)__builtin_clzll(us) : 0;
	return b < ENGINE_HIST_BUCKETS ? b : ENGINE_HIST_BUCKETS - 1;
}

/* A plain unlink, timed one call in UNLINK_SAMPLE: the controller wants the
 * mean unlinkat time, and sampling gives it at a fraction of the clock reads.
 * Returns 0 or -errno. Inline, with the syscall itself (user/engine/rawsys.h). */
static inline __attribute__((always_inline)) int unlink_timed(struct worker *w, int fd,
							      const char *name)
{
	engine_pace(w->e);
	if (__builtin_expect(engine_over_count(w), 0))
		engine_hold_over(w);
	bool timed = (w->unlink_seq++ & (UNLINK_SAMPLE - 1)) == 0;
	uint64_t t0 = timed ? now_ns() : 0;
	/* for the watchdog: two plain stores, no clock (the watchdog, engine.c) */
	atomic_store_explicit(&w->st->in_unlink, 1, memory_order_relaxed);
	int r = sys_unlinkat(fd, name, 0);
	atomic_store_explicit(&w->st->in_unlink, 0, memory_order_relaxed);
	if (timed) {
		uint64_t ns = now_ns() - t0;
		stat_add(&w->st->unlink_ns, ns);
		stat_add(&w->st->unlink_calls, 1);
		stat_add(&w->st->unlink_hist[us_bucket(ns)], 1);
		struct plan_stats *ps = &w->st->plan[w->unlink_plan];
		stat_add(&ps->unlinks, 1);
		stat_add(&ps->unlink_ns, ns);
	}
	stat_add(&w->st->syscalls, 1);
	return r;
}

static inline __attribute__((always_inline)) void file_removed(struct worker *w, struct dnode *d,
							       const char *name)
{
	stat_add(&w->st->files, 1);
	atomic_fetch_add_explicit(&d->progress, 1, memory_order_relaxed);
	if (w->e->cfg.verbose)
		engine_msg_removed(w, d, name, false);
}

/* Room for one more subdirectory in the worker's list; false if out of
 * memory. */
static bool grow_newdirs(struct worker *w)
{
	return try_grow(&w->newdirs, &w->cap_newdirs, w->n_newdirs + 1, 64);
}

/* The node of subdirectory NAME of D could not be allocated: try again each
 * time another worker's task ends (engine_wait_for_memory); NULL once nobody else
 * is at work. */
static __attribute__((noinline)) struct dnode *subdir_node_waiting(struct worker *w,
								   struct dnode *d, const char *name)
{
	struct dnode *n = NULL;
	while (!n && engine_wait_for_memory(w))
		n = dnode_try_new(d, name, strlen(name));
	return n;
}

/* Subdirectory NAME (inode INO, 0 if unknown) of D becomes a task, pushed
 * with the buffer's others. */
static void queue_subdir(struct worker *w, struct dnode *d, const char *name, uint64_t ino)
{
	if (w->n_newdirs == w->cap_newdirs) {
		bool room = grow_newdirs(w);
		while (!room && engine_wait_for_memory(w))
			room = grow_newdirs(w);
		if (!room) {
			subdir_no_memory(w, d, name);
			return;
		}
	}
	struct dnode *child = dnode_try_new(d, name, strlen(name));
	if (__builtin_expect(!child, 0))
		child = subdir_node_waiting(w, d, name);
	if (!child) {
		subdir_no_memory(w, d, name);
		return;
	}
	child->ino = ino; /* what a thief checks if it is given away */
	atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
	w->newdirs[w->n_newdirs++] = (struct subdir){ .ino = ino, .n = child };
}

/* unlinkat of a non-directory NAME failed with ERR. */
static __attribute__((noinline)) void unlink_failed(struct worker *w, struct dnode *d, int fd,
						    const char *name, int err)
{
	if (err == EISDIR || err == EPERM) {
		/* d_type said non-directory, but it is one now (or always was:
		 * EPERM is what unlink(2) returns for directories on Linux). */
		struct stat st;
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
			queue_subdir(w, d, name, st.st_ino);
			return;
		}
	}
	if (engine_gone(w->e, err))
		return;
	engine_msg_cannot_remove(w, d, name, err);
	engine_mark_failed(d);
}

/* An entry whose d_type is DT_DIR or DT_UNKNOWN: a directory becomes a task,
 * an unknown type is asked for, never following links. True if it is a
 * non-directory for the caller to unlink. Out of line, so that the common
 * case in remove_entry inlines into the loops over a directory's entries. */
static __attribute__((noinline)) bool not_a_directory(struct worker *w, struct dnode *d, int fd,
						      const char *name, unsigned char type,
						      uint64_t ino)
{
	if (type == DT_UNKNOWN) {
		struct stat st;
		stat_add(&w->st->syscalls, 1);
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (!engine_gone(w->e, errno)) {
				engine_msg_cannot_remove(w, d, name, errno);
				engine_mark_failed(d);
			}
			return false;
		}
		if (!S_ISDIR(st.st_mode))
			return true;
	}
	queue_subdir(w, d, name, ino);
	return false;
}

/* Remove one entry of D (open as FD). Subdirectories become tasks; files
 * are unlinked here, the syscall inline in the caller's loop. */
static inline __attribute__((always_inline)) void remove_entry(struct worker *w, struct dnode *d,
							       int fd, const char *name,
							       unsigned char type, uint64_t ino)
{
	if ((type == DT_DIR || type == DT_UNKNOWN) && !not_a_directory(w, d, fd, name, type, ino))
		return;
	/* The lane is off unless asked for: then no file is stat'ed. */
	if (__builtin_expect(
		    atomic_load_explicit(&w->e->knobs.lane_bytes, memory_order_relaxed) != 0, 0) &&
	    (type == DT_REG || type == DT_UNKNOWN) && lane_take(w, d, fd, name))
		return;
	int r = unlink_timed(w, fd, name);
	if (r == 0)
		file_removed(w, d, name);
	else
		unlink_failed(w, d, fd, name, -r);
}

/* Last-first (reverse mode): the subdirectories are reversed too, so that
 * they go last-first as the files do. */
static void reverse_newdirs(struct worker *w)
{
	for (size_t i = 0, j = w->n_newdirs; i + 1 < j; i++, j--) {
		struct subdir t = w->newdirs[i];
		w->newdirs[i] = w->newdirs[j - 1];
		w->newdirs[j - 1] = t;
	}
}

/* The DT_DIR entries of the read (N bytes in the buffer) become tasks,
 * pushed now; true if there were any (consume_batch then skips them). */
static bool queue_dirs_first(struct worker *w, struct dnode *d, long n, bool reverse)
{
	for (long off = 0; off < n;) {
		const struct linux_dirent64 *de = (const void *)(w->dbuf + off);
		off += de->d_reclen;
		if (de->d_type == DT_DIR && !is_dot_or_dotdot(de->d_name))
			queue_subdir(w, d, de->d_name, de->d_ino);
	}
	if (!w->n_newdirs)
		return false;
	if (reverse)
		reverse_newdirs(w);
	flush_newdirs(w);
	return true;
}

/* Other ranks asked for work and found none: read on (a FUSE or network
 * filesystem hands out a few hundred names a read) until there are slices
 * for them too, where plan P shares. On one client the VFS holds a
 * directory's lock through each unlink, so only other clients unlink a big
 * directory in parallel. */
static bool remote_slices(struct engine *e, const struct dir_plan *p)
{
	return p->shareable && atomic_load_explicit(&e->remote_hunger, memory_order_relaxed) > 0;
}

static bool gather_for_remote(struct worker *w, const struct dir_plan *p)
{
	int hunger = atomic_load_explicit(&w->e->remote_hunger, memory_order_relaxed);
	return remote_slices(w->e, p) && w->n_ents < (size_t)CHUNK_MIN * (size_t)(hunger + 2);
}

static int cmp_ino(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void run_chunk(struct worker *w, struct chunk *c);

/* One directory being read: what scan_dir's steps share. */
struct scan {
	struct dnode *d;
	int fd;
	bool read_any;	 /* a read succeeded: a failure now is a traversal's */
	bool big;	 /* the last read could fill a split (reader_slice) */
	uint64_t nread;	 /* entries read so far */
	uint64_t limit;	 /* entries this pass may read (pass_limit) */
	uint64_t opened; /* the clock before the directory's open, for its
			  * first read's cold_check (0 after it) */
	struct dir_plan plan;
};

/* How many of N entries split K ways the reader keeps: fewer than an even
 * share, by what its next getdents64 call will take, so that the next
 * batch is read while the helpers still work and nobody waits for it
 * (docs/lab/log.md#readers-slice). At least half an even share: the
 * estimates come from the last batch. */
static size_t reader_slice(const struct worker *w, size_t n, size_t k)
{
	size_t even = n / k;
	if (!w->entry_ns)
		return even;
	size_t lead = (size_t)(w->read_ns / w->entry_ns) * (k - 1) / k;
	return lead > even / 2 ? even - even / 2 : even - lead;
}

/* Entries [from, to) of the worker's batch as a chunk. */
static struct chunk *chunk_new(struct worker *w, struct dnode *d, size_t from, size_t to)
{
	return slice_chunk(d, w->ents, w->names.buf, from, to);
}

/* The batch's subdirectories become tasks at once, published before any
 * file is unlinked (one unlinkat may take seconds: a huge file on a cold
 * disk, and the other workers must have them meanwhile); a chunk of them
 * would only hand their names on. The files stay in the batch, in their
 * order (a sorted batch stays in inode order). */
static void publish_subdirs(struct worker *w, const struct scan *s)
{
	size_t nf = 0;
	for (size_t i = 0; i < w->n_ents; i++) {
		if (w->ents[i].type == DT_DIR)
			queue_subdir(w, s->d, w->names.buf + w->ents[i].name_off, w->ents[i].ino);
		else
			w->ents[nf++] = w->ents[i];
	}
	if (s->plan.reverse)
		reverse_newdirs(w);
	flush_newdirs(w);
	w->n_ents = nf;
}

/* Workers to split a batch of N files among (1: the reader keeps it). Only
 * workers with nothing else to do help: unlinkers in one directory queue on
 * its i_rwsem, so while other directories wait, a second worker here only
 * adds contention (docs/design.md#shared-directories). Plus a slice for
 * each rank that asked for work and found none. */
static unsigned batch_sharers(struct engine *e, const struct dir_plan *p, size_t n)
{
	unsigned share = p->share_k;
	bool remote = remote_slices(e, p);
	if ((share > 1 || remote) && n >= 2 * CHUNK_MIN) {
		unsigned hunger = remote ? (unsigned)atomic_exchange(&e->remote_hunger, 0) : 0;
		unsigned helpers = engine_idle_helpers(e) + hunger;
		share += hunger;
		if (share > helpers + 1)
			share = helpers + 1;
	}
	return share;
}

/* Hand the batch's N files past the reader's own slice to SHARE - 1 other
 * workers, in contiguous slices (each worker's inodes stay close
 * together). Returns how many the reader keeps: all of them where the
 * batch is too small to split, or out of memory. */
static size_t split_into_chunks(struct worker *w, struct dnode *d, size_t n, unsigned share)
{
	if (share <= 1 || n < 2 * CHUNK_MIN)
		return n;
	size_t k = n / CHUNK_MIN < share ? n / CHUNK_MIN : share;
	size_t local = reader_slice(w, n, k);
	size_t per = (n - local + k - 2) / (k - 1);
	struct chunk *chunks[k];
	size_t nc = 0;
	for (size_t from = local; from < n; from += per) {
		size_t to = from + per < n ? from + per : n;
		struct chunk *c = chunk_new(w, d, from, to);
		if (!c)
			break;
		c->plan = w->unlink_plan;
		chunks[nc++] = c;
	}
	if (nc < k - 1) {
		/* out of memory: the whole batch stays with this worker */
		for (size_t i = 0; i < nc; i++)
			free(chunks[i]);
		return n;
	}
	atomic_fetch_add_explicit(&d->refs, (int)nc, memory_order_relaxed);
	engine_jitter(w->e);
	if (!engine_push_chunks(w->e, chunks, nc)) {
		/* no room to hand them on: this worker runs them */
		for (size_t i = 0; i < nc; i++)
			run_chunk(w, chunks[i]);
	}
	return local;
}

/* Unlink slice S, looking at the clock every HEAVY_CHECK entries for
 * heavy ones to share or hand to the lane (slice.c). */
static void unlink_rest(struct worker *w, struct slice *s)
{
	struct heavy_clock h = { .t0 = now_ns() };
	while (s->lo < s->hi && !w->e->halt) {
		size_t i = s->reverse ? --s->hi : s->lo++;
		const char *name = s->names + s->ents[i].name_off;
		if (!s->lane || s->ents[i].type != DT_REG ||
		    !lane_take_at(w, s->d, s->fd, name, HEAVY_LANE_BYTES))
			remove_entry(w, s->d, s->fd, name, s->ents[i].type, s->ents[i].ino);
		if (s->lane || (++h.done & (HEAVY_CHECK - 1)) || s->hi - s->lo < 2)
			continue;
		slice_look(w, s, &h);
	}
}

/* Unlink the first LOCAL of the batch's N files, the reader's slice: last
 * first where the plan says so (sorted and last-first, as on btrfs:
 * descending inode order, so the inode and directory-index items go from
 * the ends of their leaves). With slices given away, the time an entry
 * took, for the next split. */
static void unlink_slice(struct worker *w, const struct scan *s, size_t local, size_t n)
{
	uint64_t t0 = local < n ? now_ns() : 0;
	struct slice sl = { .d = s->d,
			    .fd = s->fd,
			    .ents = w->ents,
			    .names = w->names.buf,
			    .hi = local,
			    .reverse = s->plan.reverse };
	unlink_rest(w, &sl);
	if (local < n && local > 0) {
		uint64_t per_entry = (now_ns() - t0) / local;
		w->entry_ns = w->entry_ns ? (3 * w->entry_ns + per_entry) / 4 : per_entry;
	}
}

/* Remove the batched entries of the directory S reads, as its plan says:
 * sorted by inode if big enough, and split among workers where it shares. */
static void flush_batch(struct worker *w, const struct scan *s)
{
	size_t n = w->n_ents;
	if (s->plan.sort && n > s->plan.threshold)
		qsort(w->ents, n, sizeof(*w->ents), cmp_ino);
	w->unlink_plan = plan_batch_id(&s->plan, n);
	publish_subdirs(w, s);
	n = w->n_ents;
	size_t local = split_into_chunks(w, s->d, n, batch_sharers(w->e, &s->plan, n));
	unlink_slice(w, s, local, n);
	w->n_ents = 0;
	w->unlink_plan = PLAN_SETTLED;
	sb_reset(&w->names);
	flush_newdirs(w);
}

static void run_chunk(struct worker *w, struct chunk *c)
{
	struct engine *e = w->e;
	atomic_fetch_add(&e->in_chunk, 1);
	struct dnode *d = c->d;
	int err = 0;
	int fd = fdc_get(&e->fdc, d, &err);
	if (fd == -1) {
		engine_msg_cannot_remove(w, d, NULL, err);
		engine_mark_failed(d);
	} else {
		/* a sorted slice stays in inode order: reversed only where the
		 * type unlinks last-first (btrfs: descending inode order) */
		struct slice sl = { .d = d,
				    .fd = fd,
				    .ents = c->ents,
				    .names = (const char *)&c->ents[c->n],
				    .hi = c->n,
				    .reverse = plan_reverse(e, d) };
		w->unlink_plan = c->plan;
		unlink_rest(w, &sl);
		w->unlink_plan = PLAN_SETTLED;
		flush_newdirs(w);
		fdc_put(&e->fdc, d);
		if (atomic_load_explicit(&e->halt, memory_order_relaxed))
			engine_mark_failed(d); /* what it skipped stays */
	}
	free(c);
	atomic_fetch_sub(&e->in_chunk, 1);
	engine_jitter(e);
	engine_node_release(w, d);
}

/* Add an entry to the batch; false if out of memory (the caller removes it
 * at once instead: unbatched, unsorted, but removed). */
static bool batch_add(struct worker *w, const struct linux_dirent64 *de)
{
	if (!try_grow(&w->ents, &w->cap_ents, w->n_ents + 1, 1024))
		return false;
	size_t len = strlen(de->d_name) + 1;
	/* grown here, where failing is allowed: sb_add then has room */
	if (!try_grow(&w->names.buf, &w->names.cap, w->names.len + len + 1, 4096))
		return false;
	struct sort_ent *s = &w->ents[w->n_ents++];
	s->ino = de->d_ino;
	s->type = de->d_type;
	s->name_off = (uint32_t)w->names.len;
	sb_add(&w->names, de->d_name, len);
	return true;
}

/* Cold (the plan's order): a worker's directory read took COLD_READ_NS (warm,
 * microseconds) and the worker has had the block layer read for it since
 * it last looked (lib/taskio.h): its work goes to the disk. A slow read
 * without reads (a lock, a lost CPU) only moves the mark on. */
#define COLD_READ_NS 100000u

/* Count a directory read from T0 to T_END; true if it found the tree cold. */
static bool cold_check(struct worker *w, uint64_t t0, uint64_t t_end)
{
	stat_add(&w->st->reads_timed, 1);
	if (t_end - t0 < COLD_READ_NS)
		return false;
	stat_add(&w->st->reads_waited, 1);
	int64_t now = taskio_read_bytes(), before = w->io_read_bytes;
	w->io_read_bytes = now;
	if (now < 0 || before < 0 || now == before)
		return false;
	atomic_store_explicit(&w->e->cold, true, memory_order_relaxed);
	return true;
}

/* Entries a pass may read past what the directory could hold when first
 * opened: room for a writer that stops soon, and for the estimate's slack. */
#define PASS_MARGIN 1024u
/* Where st_size bounds nothing: the entries one pass reads at least before
 * it ends in an rmdir (whose ENOTEMPTY starts another, max_retries at most). */
#define PASS_UNBOUNDED (1u << 20)

/* How many entries this pass over D (ST: as just opened) may read. A
 * directory that writers keep filling must not be read forever (GNU rm reads
 * it once and reports the rmdir's ENOTEMPTY): where st_size bounds the
 * entries, all the passes over D together read at most what it could hold
 * when first opened, plus PASS_MARGIN (its budget, spent by scan_end; what
 * the bound overestimates is left for the rescans of a directory refilled
 * after its pass, max_retries at most), and what the read that spends it
 * returned past it, one getdents64 buffer; elsewhere each pass reads at most
 * twice an estimate at 8 bytes an entry, and at least PASS_UNBOUNDED. */
static uint64_t pass_limit(struct dnode *d, const struct stat *st)
{
	unsigned per = (atomic_load(&d->flags) & DN_DIRENT_MASK) >> DN_DIRENT_SHIFT;
	uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	if (!per) {
		d->budget = UINT32_MAX;
		return 2 * (size / 8) > PASS_UNBOUNDED ? 2 * (size / 8) : PASS_UNBOUNDED;
	}
	if (d->retries == 0) {
		uint64_t b = size / per + PASS_MARGIN;
		d->budget = b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
	}
	return d->budget;
}

/* The worker's getdents64 buffer at the knob's size. Out of memory, a
 * smaller one (halved down to GETDENTS_MIN) beats none: it only costs more
 * reads. A worker that has a buffer keeps it rather than shrink it, and
 * tries a size once, not again for every directory. False if it has none. */
static bool size_dbuf(struct worker *w, size_t want)
{
	if (want == w->dbuf_size || (want == w->dbuf_tried && w->dbuf))
		return true;
	w->dbuf_tried = want;
	char *buf = malloc(want);
	while (!buf && !w->dbuf && want > GETDENTS_MIN) {
		want = want / 2 > GETDENTS_MIN ? want / 2 : GETDENTS_MIN;
		buf = malloc(want);
	}
	if (!buf)
		return w->dbuf != NULL;
	free(w->dbuf);
	w->dbuf = buf;
	w->dbuf_size = want;
	return true;
}

/* Room to walk a full getdents64 buffer last-first: a dirent takes at
 * least 24 bytes (out of memory, the entries past the old room go in
 * order). */
static void size_rev(struct worker *w)
{
	size_t cap = w->dbuf_size / 24 + 1;
	if (w->cap_rev >= cap)
		return;
	const struct linux_dirent64 **rev = malloc(cap * sizeof(*rev));
	if (rev) {
		free(w->rev);
		w->rev = rev;
		w->cap_rev = cap;
	}
}

/* Begin reading D (FD, ST): its plan, and the worker's buffers sized for
 * the knobs and the plan. False if out of memory for even the smallest
 * getdents64 buffer. */
static bool scan_start(struct worker *w, struct scan *s, struct dnode *d, int fd,
		       const struct stat *st)
{
	struct engine *e = w->e;
	*s = (struct scan){ .d = d, .fd = fd };
	plan_start(e, d, fd, (uint64_t)st->st_size, &s->plan);
	s->limit = pass_limit(d, st);
	size_t want = atomic_load_explicit(&e->knobs.getdents_size, memory_order_relaxed);
	if (want < GETDENTS_MIN)
		want = GETDENTS_MIN;
	if (want > GETDENTS_MAX)
		want = GETDENTS_MAX;
	if (!size_dbuf(w, want))
		return false;
	w->order_subdirs = s->plan.subdirs_by_ino;
	if (s->plan.reverse)
		size_rev(w);
	return true;
}

/* The plan of the next read. Where it changes how entries are batched,
 * the batch begun goes first, as it was begun. */
static void next_plan(struct worker *w, struct scan *s)
{
	struct dir_plan p = s->plan;
	if (plan_next(w->e, &p, s->nread, s->big) && w->n_ents)
		flush_batch(w, s);
	s->plan = p;
	w->order_subdirs = p.subdirs_by_ino;
}

/* getdents64 failed with ERR: the directory fails. */
static __attribute__((noinline)) void read_failed(struct worker *w, const struct scan *s, int err)
{
	if (s->read_any) {
		engine_msg_path(w, &w->path, s->d, NULL);
		sb_reset(&w->msg);
		quote_maybe_append(&w->msg, w->path.buf, w->path.len);
		warn_errno(err, "traversal failed: %s", sb_str(&w->msg));
		stat_add(&w->st->errors, 1);
	} else {
		engine_msg_cannot_remove(w, s->d, NULL, err);
	}
	engine_mark_failed(s->d);
}

/* Read the next entries into the worker's buffer: the bytes read, 0 at the
 * end, -1 after a failure (reported). Inline: the syscall is (rawsys.h). */
static inline __attribute__((always_inline)) long read_batch(struct worker *w, struct scan *s)
{
	stat_add(&w->st->syscalls, 1);
	/* timed for the split and, where the order depends on it and the tree
	 * is not known to be cold yet, for the cold check */
	bool check = s->plan.watch_cold;
	uint64_t t_read = s->plan.timed || check ? now_ns() : 0;
	long n = sys_getdents64(s->fd, w->dbuf, w->dbuf_size);
	if (t_read) {
		uint64_t t_end = now_ns();
		if (s->plan.timed)
			w->read_ns = t_end - t_read;
		if (check && cold_check(w, s->opened ? s->opened : t_read, t_end)) {
			plan_cold(w->e, &s->plan);
			w->order_subdirs = s->plan.subdirs_by_ino;
		}
	}
	s->opened = 0;
	/* A directory removed while it is open reads ENOENT: by another
	 * delete, or through another path to it (a bind mount of it elsewhere
	 * in the tree, another operand). POSIX makes that the end of the
	 * directory, as glibc's readdir does: its entries are gone, since only
	 * an empty directory can be removed, and its rmdir tells why it stays
	 * if it does (a mount point: EBUSY). */
	if (n == -ENOENT)
		n = 0;
	if (n < 0) {
		read_failed(w, s, (int)-n);
		return -1;
	}
	stat_add(&w->st->getdents_calls, 1);
	stat_add(&w->st->getdents_bytes, (uint64_t)n);
	if (n > 0) {
		s->read_any = true;
		s->big = (size_t)n >= SHAREABLE_BYTES;
	}
	return n;
}

/* The last-first entries of a read not unlinked yet (w->rev[0, NREV))
 * gathered into the worker's batch, in their order; those that find no
 * room are unlinked here. */
static __attribute__((noinline)) void gather_rev(struct worker *w, const struct scan *s, size_t nrev)
{
	for (size_t i = 0; i < nrev; i++)
		if (!batch_add(w, w->rev[i]))
			remove_entry(w, s->d, s->fd, w->rev[i]->d_name, w->rev[i]->d_type,
				     w->rev[i]->d_ino);
}

/* The rest of a read of heavy entries, gathered into the worker's batch:
 * half to an idle worker, the rest unlinked here, in the read's order
 * (REVERSE: from the back). */
static __attribute__((noinline)) void share_gathered(struct worker *w, const struct scan *s,
						     bool reverse, enum heavy_way way,
						     struct engine_slow_slice *seen)
{
	struct slice sl = { .d = s->d,
			    .fd = s->fd,
			    .ents = w->ents,
			    .names = w->names.buf,
			    .hi = w->n_ents,
			    .reverse = reverse,
			    .lane = way == HEAVY_LANE };
	slice_hand_on(w, &sl, way, seen);
	unlink_rest(w, &sl);
	w->n_ents = 0;
	sb_reset(&w->names);
}

/* Dispatch the N bytes of entries read: each unlinked at once (last-first
 * where that pays), or batched for flush_batch. always_inline: the unlinkat
 * must be issued in this loop itself (rawsys.h). */
static inline __attribute__((always_inline)) void consume_batch(struct worker *w, struct scan *s,
								long n)
{
	struct engine *e = w->e;
	struct dnode *d = s->d;
	int fd = s->fd;
	bool batching = s->plan.batch, reverse = s->plan.reverse;
	uint64_t nread = s->nread;
	size_t nrev = 0;
	/* Unlinked as read, heavy entries (big files) are looked for
	 * (slice_heavy_look, over the read so far); once found, the rest of the
	 * read gathers into the batch to be shared. */
	enum heavy_way way = HEAVY_NONE;
	struct heavy_clock h = { .t0 = batching ? 0 : now_ns() };
	/* The subdirectories first, published before any file of the read is
	 * unlinked: one unlinkat may take seconds (a huge file on a cold
	 * disk), and the other workers (and the lane's stand-in) must not
	 * wait for it to have the directories to go on with. */
	bool dirs_first = !batching && queue_dirs_first(w, d, n, reverse);
	for (long off = 0; off < n && !e->halt;) {
		const struct linux_dirent64 *de = (const void *)(w->dbuf + off);
		off += de->d_reclen;
		if (is_dot_or_dotdot(de->d_name))
			continue;
		nread++;
		if (dirs_first && de->d_type == DT_DIR)
			continue;
		if (batching || way != HEAVY_NONE) {
			if (__builtin_expect(!batch_add(w, de), 0))
				remove_entry(w, d, fd, de->d_name, de->d_type, de->d_ino);
		} else if (reverse && nrev < w->cap_rev) {
			w->rev[nrev++] = de;
		} else {
			remove_entry(w, d, fd, de->d_name, de->d_type, de->d_ino);
			if (!(++h.done & (HEAVY_CHECK - 1)))
				way = slice_heavy_look(w, &h);
		}
	}
	s->nread = nread;
	while (nrev > 0 && !e->halt) {
		const struct linux_dirent64 *de = w->rev[--nrev];
		remove_entry(w, d, fd, de->d_name, de->d_type, de->d_ino);
		if (!(++h.done & (HEAVY_CHECK - 1)) && nrev >= 2 &&
		    (way = slice_heavy_look(w, &h)) != HEAVY_NONE) {
			gather_rev(w, s, nrev);
			nrev = 0;
		}
	}
	if (way != HEAVY_NONE)
		share_gathered(w, s, reverse, way, &h.seen);
	if (!batching)
		flush_newdirs(w);
	else if (w->n_ents >= s->plan.batch_size ||
		 (!s->plan.whole && !gather_for_remote(w, &s->plan)))
		flush_batch(w, s);
}

/* The directory is read: what is batched goes, then the directory itself
 * if it was the last reference (inline: most directories end here). */
static inline __attribute__((always_inline)) void scan_end(struct worker *w, struct scan *s)
{
	struct engine *e = w->e;
	struct dnode *d = s->d;
	if (w->n_ents && !e->halt)
		flush_batch(w, s);
	w->n_ents = 0;
	w->unlink_plan = PLAN_SETTLED;
	sb_reset(&w->names);
	flush_newdirs(w);
	fdc_put(&e->fdc, d);
	if (d->budget != UINT32_MAX)
		d->budget -= s->nread < d->budget ? (uint32_t)s->nread : d->budget;
	if (atomic_load_explicit(&e->halt, memory_order_relaxed))
		engine_mark_failed(d); /* what it skipped stays */
	engine_jitter(e);
	node_release_inline(w, d);
}

/* Remove directory task D: open it, take its plan, then read and unlink
 * until it is read to the end; the last reference to it removes it. Each
 * read goes the way its plan says: its entries unlinked as read, or
 * gathered into a batch that flush_batch sorts, splits and unlinks. */
static void scan_dir(struct worker *w, struct dnode *d)
{
	if (atomic_load_explicit(&w->e->halt, memory_order_relaxed)) {
		engine_mark_failed(d);
		engine_node_release(w, d);
		return;
	}
	struct stat st;
	uint64_t opened = now_ns();
	int fd = engine_open_task_dir(w, d, &st);
	if (fd == -1)
		return;
	struct scan s;
	bool started = scan_start(w, &s, d, fd, &st);
	s.opened = opened;
	if (!started) {
		engine_msg_cannot_remove(w, d, NULL, ENOMEM);
		engine_mark_failed(d);
		scan_end(w, &s);
		return;
	}
	/* One pass: until the end of the directory, or its limit, after which
	 * whatever writers added goes to the rmdir's ENOTEMPTY. */
	while (!w->e->halt && s.nread < s.limit) {
		next_plan(w, &s);
		long n = read_batch(w, &s);
		if (n <= 0)
			break;
		plan_count_read(w->st, &s.plan, s.big);
		w->unlink_plan = plan_read_id(&s.plan);
		consume_batch(w, &s, n);
	}
	scan_end(w, &s);
}

/* ------------------------------------------------------------------ */
/* The workers                                                          */

void engine_run_task(struct worker *w, uintptr_t task)
{
	uint64_t t0 = now_ns();
	if (task & TASK_CHUNK)
		run_chunk(w, (struct chunk *)(task & ~TASK_CHUNK));
	else if (task & TASK_RELEASE)
		engine_node_release(w, (struct dnode *)(task & ~TASK_RELEASE));
	else
		scan_dir(w, (struct dnode *)task);
	stat_add(&w->st->busy_ns, now_ns() - t0);
}

void *engine_worker_main(void *arg)
{
	struct worker *w = arg;
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	w->io_read_bytes = taskio_read_bytes();
	uintptr_t task;
	while ((task = engine_pop_task(w)) != 0)
		engine_run_task(w, task);
	return NULL;
}
