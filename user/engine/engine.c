#include "engine/engine.h"
#include "engine/dirnode.h"
#include "engine/fsinfo.h"
#include "lib/msg.h"
#include "lib/quote.h"
#include "engine/rawsys.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "lib/clock.h"
#include "lib/env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
#define GETDENTS_MIN 4096u
#define GETDENTS_MAX (16u << 20)

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* One entry of an inode-sorted batch; names live in the batch's arena. */
struct sort_ent {
	uint64_t ino;
	uint32_t name_off;
	uint8_t type;
};

/* A slice of one directory's entries handed to another worker (dir_share).
 * Names follow the entry array in the same allocation. */
struct chunk {
	struct dnode *d;
	uint32_t n;
	uint8_t big_mode;		/* enum big_mode of its unlinks */
	struct sort_ent ents[];
};

#define UNLINK_SAMPLE 8		/* time one unlinkat in 8 (a power of two) */
#define CHUNK_MIN 256		/* entries: below this a hand-off costs more than it saves */
/* getdents64 bytes that hold two chunks' worth of entries (24 bytes or more each) */
#define SHAREABLE_BYTES (2 * CHUNK_MIN * 24)
#define TASK_CHUNK ((uintptr_t)1)	/* tag bit of a chunk on the task stack */

/* Which of the sort trial's measures a timed unlink feeds: one in a big
 * directory (past the sort threshold) where inode order is untried. */
enum big_mode {
	BIG_NONE,
	BIG_PLAIN,		/* readdir order, between reads: sort_asks */
	BIG_BATCH,		/* a whole batch in readdir order: sort_asks, batch_unlink_* */
	BIG_SORTED,		/* a sorted batch: sorted_work, sorted_unlink_* */
};

struct worker {
	struct engine *e;
	int id;
	pthread_t thread;
	_Atomic pid_t tid;
	struct worker_stats *st;
	char *dbuf;			/* getdents64 buffer, reused for every directory */
	size_t dbuf_size;
	const struct linux_dirent64 **rev; /* the buffer's entries, to walk last-first */
	size_t cap_rev;
	struct dnode **newdirs;		/* subdirectories found in the current buffer */
	size_t n_newdirs, cap_newdirs;
	struct sort_ent *ents;		/* inode-sort batch */
	size_t n_ents, cap_ents;
	struct strbuf names;		/* arena for the batch's names */
	struct strbuf msg;		/* message / -v line being built */
	struct strbuf path;		/* path of the entry being reported */
	struct dnode **chain;		/* scratch for building paths */
	size_t cap_chain;
	bool joined;
	unsigned unlink_seq;		/* unlinks so far, for sampling their time */
	uint8_t big_mode;		/* enum big_mode of the unlinks being issued */
	bool base_batch;		/* reading whole batches for the sort trial's base */
	bool dir_past;			/* the directory being read passed the sort
					 * threshold where inode order is untried */
	/* For splitting a shared directory so that the reader's next read
	 * overlaps its helpers' work: the last getdents64 call's time, and
	 * the cost of one entry in the reader's last slice (EWMA). */
	uint64_t read_ns, entry_ns;
};

struct engine {
	struct engine_config cfg;
	struct engine_knobs knobs;
	struct worker *workers;		/* max_threads slots */
	atomic_int nstarted;		/* of which this many threads exist */
	int spawn_err;			/* pthread_create failed: no more */
	struct worker_stats *stats;

	pthread_mutex_t qlock;
	pthread_cond_t work_cond;	/* active workers wait here for tasks */
	pthread_cond_t park_cond;	/* workers beyond active_threads wait here */
	pthread_cond_t done_cond;	/* the caller waits here for the tree */
	uintptr_t *stack;		/* LIFO of tasks: a dnode to scan, or a chunk
					 * (tagged). Depth-first keeps the frontier small. */
	size_t qlen, qcap;
	/* Time some task sat in the stack with no worker taking it, in waits
	 * long enough for another worker to take it (WAIT_MIN_NS): the most
	 * such a worker could have gained. Under qlock. */
	uint64_t waited_ns, waiting_since;
	int idle;			/* active workers waiting for work */
	atomic_int in_chunk;		/* workers removing a chunk right now */
	int seen_active;		/* active_threads as the workers last saw it */
	bool shutdown;
	atomic_int stop;		/* lock-free, so the signal handler may set it */

	struct fdcache fdc;

	/* the operand being removed */
	struct dnode anchor;
	const char *display;
	dev_t root_dev;
	bool op_done;

	engine_tick_fn tick;
	void *tick_arg;
};

static inline void stat_add(_Atomic uint64_t *c, uint64_t v)
{
	/* single writer: a relaxed load+store is enough and cheaper than a RMW */
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */

/* Path of directory N (and LEAF inside it, if given) as the user would see it:
 * the operand as spelled, then the names below it. */
static void build_path(struct worker *w, struct strbuf *sb, struct dnode *n,
		       const char *leaf)
{
	size_t depth = 0;
	for (struct dnode *p = n; p && !(atomic_load(&p->flags) & DN_ANCHOR); p = p->parent) {
		if (depth == w->cap_chain) {
			w->cap_chain = w->cap_chain ? 2 * w->cap_chain : 64;
			w->chain = xrealloc(w->chain, w->cap_chain * sizeof(*w->chain));
		}
		w->chain[depth++] = p;
	}
	sb_reset(sb);
	sb_adds(sb, w->e->display);
	/* chain[depth-1] is the operand itself: its name is the display */
	for (size_t i = depth - 1; i-- > 0;) {
		if (sb->len && sb->buf[sb->len - 1] != '/')
			sb_addc(sb, '/');
		sb_add(sb, w->chain[i]->name, w->chain[i]->namelen);
	}
	if (leaf) {
		if (sb->len && sb->buf[sb->len - 1] != '/')
			sb_addc(sb, '/');
		sb_adds(sb, leaf);
	}
}

static void report(struct worker *w, struct dnode *dir, const char *leaf,
		   const char *what, int err)
{
	build_path(w, &w->path, dir, leaf);
	sb_reset(&w->msg);
	quote_append(&w->msg, w->path.buf, w->path.len);
	warn_errno(err, "%s %s", what, sb_str(&w->msg));
	stat_add(&w->st->errors, 1);
}

static void report_cannot_remove(struct worker *w, struct dnode *dir,
				 const char *leaf, int err)
{
	report(w, dir, leaf, "cannot remove", err);
}

static void verbose_removed(struct worker *w, struct dnode *dir, const char *leaf,
			    bool is_dir)
{
	build_path(w, &w->path, dir, leaf);
	sb_reset(&w->msg);
	sb_adds(&w->msg, is_dir ? "removed directory " : "removed ");
	quote_append(&w->msg, w->path.buf, w->path.len);
	sb_addc(&w->msg, '\n');
	flockfile(stdout);
	fwrite(w->msg.buf, 1, w->msg.len, stdout);
	funlockfile(stdout);
}

static void mark_failed(struct dnode *n)
{
	atomic_fetch_or(&n->flags, DN_FAILED);
}

/* ------------------------------------------------------------------ */
/* The task stack                                                       */

/* A wait shorter than waking an idle worker (a futex wake-up and a
 * schedule: tens of µs on a VM) is one the owner ends itself: a chain's
 * child waits while its parent reads the final, empty getdents64 (~10% of
 * each level on tmpfs, but 1-2 µs at a time; ~1 ms on a 1 ms/op FUSE
 * filesystem, where a second worker does take it). Only longer waits
 * count. */
#define WAIT_MIN_NS 50000

static uint64_t waited_long(uint64_t ns)
{
	return ns >= WAIT_MIN_NS ? ns : 0;
}

static void push_locked(struct engine *e, size_t n)
{
	if (e->qlen == 0 && n > 0)
		e->waiting_since = now_ns();
	if (e->qlen + n > e->qcap) {
		while (e->qlen + n > e->qcap)
			e->qcap = e->qcap ? 2 * e->qcap : 1024;
		e->stack = xrealloc(e->stack, e->qcap * sizeof(*e->stack));
	}
}

static void wake_workers(struct engine *e, size_t n)
{
	if (e->idle > 0) {
		if (n == 1)
			pthread_cond_signal(&e->work_cond);
		else
			pthread_cond_broadcast(&e->work_cond);
	}
}

/* Workers that could help with a directory's next slice: those waiting
 * for work and those finishing a slice (of a shared directory; with nothing
 * queued they are next to wait). None while other tasks wait. */
static unsigned idle_helpers(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	unsigned n = e->qlen == 0 ? (unsigned)(e->idle + atomic_load(&e->in_chunk)) : 0;
	pthread_mutex_unlock(&e->qlock);
	return n;
}

static void push_chunks(struct engine *e, struct chunk **chunks, size_t n)
{
	pthread_mutex_lock(&e->qlock);
	push_locked(e, n);
	for (size_t i = 0; i < n; i++)
		e->stack[e->qlen++] = (uintptr_t)chunks[i] | TASK_CHUNK;
	wake_workers(e, n);
	pthread_mutex_unlock(&e->qlock);
}

static void push_tasks(struct engine *e, struct dnode **nodes, size_t n)
{
	if (n == 0)
		return;
	pthread_mutex_lock(&e->qlock);
	push_locked(e, n);
	/* Reversed, so that the first one found is the first one taken: with
	 * one thread the traversal order then matches readdir order. */
	for (size_t i = n; i-- > 0;)
		e->stack[e->qlen++] = (uintptr_t)nodes[i];
	if (e->idle > 0) {
		if (n == 1)
			pthread_cond_signal(&e->work_cond);
		else
			pthread_cond_broadcast(&e->work_cond);
	}
	pthread_mutex_unlock(&e->qlock);
}

static uintptr_t pop_task(struct worker *w)
{
	struct engine *e = w->e;
	uintptr_t n = 0;
	pthread_mutex_lock(&e->qlock);
	for (;;) {
		if (e->shutdown || e->stop)
			break;
		int active = atomic_load_explicit(&e->knobs.active_threads, memory_order_relaxed);
		if (active != e->seen_active) {
			/* the controller moved the limit: let parked workers re-check */
			e->seen_active = active;
			pthread_cond_broadcast(&e->park_cond);
		}
		if (w->id >= active) {
			pthread_cond_wait(&e->park_cond, &e->qlock);
			continue;
		}
		if (e->qlen > 0) {
			n = e->stack[--e->qlen];
			if (e->qlen == 0)
				e->waited_ns += waited_long(now_ns() - e->waiting_since);
			break;
		}
		e->idle++;
		pthread_cond_wait(&e->work_cond, &e->qlock);
		e->idle--;
	}
	pthread_mutex_unlock(&e->qlock);
	return n;
}

/* ------------------------------------------------------------------ */
/* Finishing directories: the last one out removes the parent           */

static void operand_finished(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	e->op_done = true;
	pthread_cond_broadcast(&e->done_cond);
	pthread_mutex_unlock(&e->qlock);
}

static void flush_newdirs(struct worker *w)
{
	push_tasks(w->e, w->newdirs, w->n_newdirs);
	w->n_newdirs = 0;
}

/* Drop one reference of D. If it was the last, D is empty (or failed): remove
 * it and continue with its parent, iteratively, so deep trees need no stack.
 * Inlined at the end of scan_dir, where most directories are removed; the
 * other callers share one out-of-line copy (node_release). */
static inline __attribute__((always_inline)) void node_release_inline(struct worker *w,
								     struct dnode *d)
{
	struct engine *e = w->e;
	while (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) == 1) {
		struct dnode *p = d->parent;
		if (atomic_load(&d->flags) & DN_ANCHOR) {
			operand_finished(e);
			return;
		}
		if (e->stop)
			return;	/* abandoned: the process is about to exit */
		unsigned flags = atomic_load(&d->flags);
		if (flags & DN_FAILED) {
			/* something inside stays: the ancestors stay too, silently */
			fdc_drop(&e->fdc, d);
			mark_failed(p);
			dnode_free(d);
			d = p;
			continue;
		}
		int err = 0;
		int pfd = fdc_get_parent(&e->fdc, d, &err);
		fdc_drop(&e->fdc, d);
		if (pfd == -1) {
			report_cannot_remove(w, d, NULL, err);
			mark_failed(p);
			dnode_free(d);
			d = p;
			continue;
		}
		stat_add(&w->st->syscalls, 1);
		int r = sys_unlinkat(pfd, d->name, AT_REMOVEDIR);
		if (r == 0) {
			stat_add(&w->st->dirs, 1);
			atomic_fetch_add_explicit(&p->progress, 1, memory_order_relaxed);
			if (e->cfg.verbose)
				verbose_removed(w, d, NULL, true);
		} else {
			err = -r;
			if ((err == ENOTEMPTY || err == EEXIST) &&
			    atomic_load(&d->progress) > 0 && d->retries < e->cfg.max_retries) {
				/* Refilled while we deleted it. Scan again, but only
				 * while each pass makes progress. */
				d->retries++;
				atomic_store(&d->progress, 0);
				atomic_store(&d->refs, 1);
				fdc_put(&e->fdc, p);
				push_tasks(e, &d, 1);
				return;
			}
			if (!(err == ENOENT && e->cfg.force)) {
				report_cannot_remove(w, d, NULL, err);
				mark_failed(p);
			}
		}
		fdc_put(&e->fdc, p);
		dnode_free(d);
		d = p;
	}
}

static __attribute__((noinline)) void node_release(struct worker *w, struct dnode *d)
{
	node_release_inline(w, d);
}

/* ------------------------------------------------------------------ */
/* Scanning one directory                                               */

static bool is_dot_or_dotdot(const char *s)
{
	return s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0'));
}

/* A timed unlink in a big directory where inode order is untried: what the
 * sort trial measures. */
static void big_unlink_timed(struct worker *w, uint64_t ns)
{
	struct worker_stats *s = w->st;
	switch (w->big_mode) {
	case BIG_PLAIN:
		stat_add(&s->sort_asks, 1);
		break;
	case BIG_BATCH:
		stat_add(&s->sort_asks, 1);
		stat_add(&s->batch_unlink_ns, ns);
		stat_add(&s->batch_unlink_calls, 1);
		break;
	case BIG_SORTED:
		stat_add(&s->sorted_work, 1);
		stat_add(&s->sorted_unlink_ns, ns);
		stat_add(&s->sorted_unlink_calls, 1);
		break;
	}
}

/* A plain unlink, timed one call in UNLINK_SAMPLE: the controller wants the
 * mean unlinkat time, and sampling gives it at a fraction of the clock reads.
 * Returns 0 or -errno. Inline, with the syscall itself (user/rawsys.h). */
static inline __attribute__((always_inline)) int unlink_timed(struct worker *w, int fd,
								const char *name)
{
	bool timed = (w->unlink_seq++ & (UNLINK_SAMPLE - 1)) == 0;
	uint64_t t0 = timed ? now_ns() : 0;
	int r = sys_unlinkat(fd, name, 0);
	if (timed) {
		uint64_t ns = now_ns() - t0;
		stat_add(&w->st->unlink_ns, ns);
		stat_add(&w->st->unlink_calls, 1);
		if (w->big_mode != BIG_NONE)
			big_unlink_timed(w, ns);
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
		verbose_removed(w, d, name, false);
}

/* Subdirectory NAME of D becomes a task, pushed with the buffer's others. */
static void queue_subdir(struct worker *w, struct dnode *d, const char *name)
{
	struct dnode *child = dnode_new(d, name, strlen(name));
	atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
	if (w->n_newdirs == w->cap_newdirs) {
		w->cap_newdirs = w->cap_newdirs ? 2 * w->cap_newdirs : 64;
		w->newdirs = xrealloc(w->newdirs, w->cap_newdirs * sizeof(*w->newdirs));
	}
	w->newdirs[w->n_newdirs++] = child;
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
			queue_subdir(w, d, name);
			return;
		}
	}
	if (err == ENOENT && w->e->cfg.force)
		return;
	report_cannot_remove(w, d, name, err);
	mark_failed(d);
}

/* An entry whose d_type is DT_DIR or DT_UNKNOWN: a directory becomes a task,
 * an unknown type is asked for, never following links. True if it is a
 * non-directory for the caller to unlink. Out of line, so that the common
 * case in remove_entry inlines into the loops over a directory's entries. */
static __attribute__((noinline)) bool not_a_directory(struct worker *w, struct dnode *d, int fd,
						      const char *name, unsigned char type)
{
	if (type == DT_UNKNOWN) {
		struct stat st;
		stat_add(&w->st->syscalls, 1);
		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT || !w->e->cfg.force) {
				report_cannot_remove(w, d, name, errno);
				mark_failed(d);
			}
			return false;
		}
		if (!S_ISDIR(st.st_mode))
			return true;
	}
	queue_subdir(w, d, name);
	return false;
}

/* Remove one entry of D (open as FD). Subdirectories become tasks; files
 * are unlinked here, the syscall inline in the caller's loop. */
static inline __attribute__((always_inline)) void remove_entry(struct worker *w, struct dnode *d,
								int fd, const char *name,
								unsigned char type)
{
	if ((type == DT_DIR || type == DT_UNKNOWN) && !not_a_directory(w, d, fd, name, type))
		return;
	int r = unlink_timed(w, fd, name);
	if (r == 0)
		file_removed(w, d, name);
	else
		unlink_failed(w, d, fd, name, -r);
}

static int cmp_ino(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static unsigned dir_share(struct engine *e, struct dnode *d);
static bool want_reverse(struct engine *e, struct dnode *d);

/* How many of N entries split K ways the reader keeps: fewer than an even
 * share, by what its next getdents64 call will take, so that the next
 * batch is read while the helpers still work and nobody waits for it
 * (tmpfs flat 200,000, 2 workers: a 64 KiB read takes 0.75 ms, the time of
 * ~200 unlinks; with even slices each helper waited that long for every
 * batch, 15% of its time, and 4 workers beat 2 by 10-20%). At least half
 * an even share: the estimates come from the last batch. */
static size_t reader_slice(const struct worker *w, size_t n, size_t k)
{
	size_t even = n / k;
	if (!w->entry_ns)
		return even;
	size_t lead = (size_t)(w->read_ns / w->entry_ns) * (k - 1) / k;
	return lead > even / 2 ? even - even / 2 : even - lead;
}

/* Copy entries [from, to) of the worker's batch into a chunk for another worker. */
static struct chunk *chunk_new(struct worker *w, struct dnode *d, size_t from, size_t to)
{
	size_t names = 0;
	for (size_t i = from; i < to; i++)
		names += strlen(w->names.buf + w->ents[i].name_off) + 1;
	size_t n = to - from;
	struct chunk *c = xmalloc(sizeof(*c) + n * sizeof(c->ents[0]) + names);
	char *dst = (char *)&c->ents[n];
	size_t off = 0;
	c->d = d;
	c->n = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		const char *name = w->names.buf + w->ents[from + i].name_off;
		size_t len = strlen(name) + 1;
		c->ents[i] = w->ents[from + i];
		c->ents[i].name_off = (uint32_t)off;
		memcpy(dst + off, name, len);
		off += len;
	}
	return c;
}

/* Remove the batched entries of D: sorted by inode if asked and big enough,
 * and split among up to dir_share workers if that knob is on. */
static void flush_batch(struct worker *w, struct dnode *d, int fd, bool sort)
{
	struct engine *e = w->e;
	size_t n = w->n_ents;
	unsigned threshold = atomic_load_explicit(&e->knobs.sort_threshold, memory_order_relaxed);
	bool sorted = sort && n > threshold;
	if (sorted)
		qsort(w->ents, n, sizeof(*w->ents), cmp_ino);
	bool ask = atomic_load_explicit(&d->flags, memory_order_relaxed) & DN_SORT_ASK;
	w->big_mode = !ask	       ? BIG_NONE :
		      sorted	       ? BIG_SORTED :
		      w->base_batch && n > threshold ? BIG_BATCH :
		      !sort && w->dir_past ? BIG_PLAIN : BIG_NONE;

	unsigned share = dir_share(e, d);
	if (share > 1 && n >= 2 * CHUNK_MIN) {
		/* Subdirectories become tasks at once (a chunk of them would only
		 * hand their names on); the files are what may be split. Stable,
		 * so a sorted batch stays in inode order. */
		size_t nf = 0;
		for (size_t i = 0; i < n; i++) {
			if (w->ents[i].type == DT_DIR)
				queue_subdir(w, d, w->names.buf + w->ents[i].name_off);
			else
				w->ents[nf++] = w->ents[i];
		}
		flush_newdirs(w);
		n = w->n_ents = nf;
	}
	size_t local = n;
	/* Only workers with nothing else to do help: unlinkers in one
	 * directory queue on its i_rwsem, so while other directories wait, a
	 * second worker here only adds contention (perf on an ext4 200 x 1000
	 * tree: 10% of the time spinning in do_unlinkat's down_write, 18% more
	 * system time than one worker per directory). */
	if (share > 1 && n >= 2 * CHUNK_MIN) {
		unsigned helpers = idle_helpers(e);
		if (share > helpers + 1)
			share = helpers + 1;
	}
	if (share > 1 && n >= 2 * CHUNK_MIN) {
		size_t k = n / CHUNK_MIN < share ? n / CHUNK_MIN : share;
		local = reader_slice(w, n, k);
		size_t per = (n - local + k - 2) / (k - 1);
		struct chunk *chunks[k];
		size_t nc = 0;
		/* contiguous slices keep each worker's inodes close together */
		for (size_t from = local; from < n; from += per) {
			size_t to = from + per < n ? from + per : n;
			chunks[nc++] = chunk_new(w, d, from, to);
			chunks[nc - 1]->big_mode = w->big_mode;
		}
		atomic_fetch_add_explicit(&d->refs, (int)nc, memory_order_relaxed);
		push_chunks(e, chunks, nc);
	}
	/* Sorted and last-first (btrfs): descending inode order, so the
	 * inode and directory-index items go from the ends of their leaves. */
	bool reverse = want_reverse(e, d);
	uint64_t t0 = local < n ? now_ns() : 0;
	for (size_t k = 0; k < local && !e->stop; k++) {
		size_t i = reverse ? local - 1 - k : k;
		remove_entry(w, d, fd, w->names.buf + w->ents[i].name_off, w->ents[i].type);
	}
	if (local < n && local > 0) {
		uint64_t per_entry = (now_ns() - t0) / local;
		w->entry_ns = w->entry_ns ? (3 * w->entry_ns + per_entry) / 4 : per_entry;
	}
	w->n_ents = 0;
	w->big_mode = BIG_NONE;
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
		report_cannot_remove(w, d, NULL, err);
		mark_failed(d);
	} else {
		const char *names = (const char *)&c->ents[c->n];
		/* a sorted slice stays in inode order: reversed only where the
		 * type unlinks last-first (btrfs: descending inode order) */
		bool reverse = want_reverse(e, d);
		w->big_mode = c->big_mode;
		for (uint32_t k = 0; k < c->n && !e->stop; k++) {
			uint32_t i = reverse ? c->n - 1 - k : k;
			remove_entry(w, d, fd, names + c->ents[i].name_off, c->ents[i].type);
		}
		w->big_mode = BIG_NONE;
		flush_newdirs(w);
		fdc_put(&e->fdc, d);
	}
	free(c);
	atomic_fetch_sub(&e->in_chunk, 1);
	node_release(w, d);
}

static void batch_add(struct worker *w, const struct linux_dirent64 *de)
{
	if (w->n_ents == w->cap_ents) {
		w->cap_ents = w->cap_ents ? 2 * w->cap_ents : 1024;
		w->ents = xrealloc(w->ents, w->cap_ents * sizeof(*w->ents));
	}
	struct sort_ent *s = &w->ents[w->n_ents++];
	s->ino = de->d_ino;
	s->type = de->d_type;
	s->name_off = (uint32_t)w->names.len;
	sb_add(&w->names, de->d_name, strlen(de->d_name) + 1);
}

/* Per-filesystem policy of directory D, decided by fstatfs only where the
 * device changes (the root, mount points); below that it is inherited. */
static void fs_policy(struct engine *e, struct dnode *d, int fd)
{
	struct dnode *p = d->parent;
	unsigned flags;
	if (!(atomic_load(&p->flags) & DN_ANCHOR) && p->dev == d->dev) {
		flags = atomic_load(&p->flags) &
			(DN_SORT | DN_SORT_ASK | DN_SHARE | DN_SHARE_ASK | DN_REVERSE | DN_SIZE_BOUND);
	} else {
		uint64_t type = fsinfo_type(fd);
		flags = (fsinfo_type_sort_pays(type) ? DN_SORT : 0) |
			(fsinfo_type_sort_known(type) ? 0 : DN_SORT_ASK) |
			(fsinfo_type_share_pays(type) ? DN_SHARE : 0) |
			(fsinfo_type_share_known(type) ? 0 : DN_SHARE_ASK) |
			(fsinfo_type_reverse_pays(type) ? DN_REVERSE : 0) |
			(fsinfo_type_dirsize_bounds(type) ? DN_SIZE_BOUND : 0);
	}
	atomic_fetch_or(&d->flags, flags);
}

/* Whether D (DIR_SIZE bytes) is read in sorted batches. A batch is sorted
 * only past the threshold, and reading a directory whole before unlinking
 * costs where it cannot get there: ext4 200 x 1000, one thread on one CPU,
 * 4 interleaved runs: 2.43 s read whole, 2.20 s interleaved (rmz 2.16). */
static bool want_sort(struct engine *e, struct dnode *d, uint64_t dir_size)
{
	int policy = atomic_load_explicit(&e->knobs.sort_policy, memory_order_relaxed);
	if (policy == SORT_NEVER)
		return false;
	unsigned flags = atomic_load(&d->flags);
	bool by_type = (flags & DN_SORT) ||
		       ((flags & DN_SORT_ASK) &&
			atomic_load_explicit(&e->knobs.sort_unknown, memory_order_relaxed));
	if (policy != SORT_ALWAYS && !by_type)
		return false;
	unsigned threshold = atomic_load_explicit(&e->knobs.sort_threshold, memory_order_relaxed);
	return !(flags & DN_SIZE_BOUND) || dir_size / FSINFO_MIN_DIRENT > threshold;
}

static bool want_reverse(struct engine *e, struct dnode *d)
{
	int policy = atomic_load_explicit(&e->knobs.reverse_policy, memory_order_relaxed);
	if (policy != SORT_AUTO)
		return policy == SORT_ALWAYS;
	return atomic_load(&d->flags) & DN_REVERSE;
}

/* Whether a directory with FLAGS is shared under DIR_SHARE_AUTO: where its
 * filesystem type gains, or where nobody knows and the controller says so. */
static bool shares(struct engine *e, unsigned flags)
{
	return (flags & DN_SHARE) ||
	       ((flags & DN_SHARE_ASK) &&
		atomic_load_explicit(&e->knobs.share_unknown, memory_order_relaxed));
}

/* Workers that may share directory D's entries right now (1: none). */
static unsigned dir_share(struct engine *e, struct dnode *d)
{
	unsigned share = atomic_load_explicit(&e->knobs.dir_share, memory_order_relaxed);
	if (share == DIR_SHARE_AUTO)
		share = shares(e, atomic_load_explicit(&d->flags, memory_order_relaxed))
			? (unsigned)atomic_load_explicit(&e->knobs.active_threads,
							 memory_order_relaxed)
			: 1;
	return share;
}

static void scan_dir(struct worker *w, struct dnode *d)
{
	struct engine *e = w->e;
	int err = 0;
	int pfd = fdc_get(&e->fdc, d->parent, &err);
	if (pfd == -1) {
		report_cannot_remove(w, d, NULL, err);
		mark_failed(d);
		node_release(w, d);
		return;
	}
	stat_add(&w->st->syscalls, 1);
	int fd = fdc_openat(&e->fdc, pfd, d->name, DIR_OPEN_FLAGS);
	if (fd < 0) {
		err = errno;
		bool gone = false;
		if (err == ENOTDIR || err == ELOOP) {
			/* no longer a directory (replaced under us): remove what is there */
			stat_add(&w->st->syscalls, 1);
			gone = unlinkat(pfd, d->name, 0) == 0;
			if (gone) {
				stat_add(&w->st->files, 1);
				if (e->cfg.verbose)
					verbose_removed(w, d, NULL, false);
			}
		} else if (err == EACCES || err == EPERM) {
			/* unreadable: it can still go if it is empty (GNU does the same) */
			stat_add(&w->st->syscalls, 1);
			gone = unlinkat(pfd, d->name, AT_REMOVEDIR) == 0;
			if (gone) {
				stat_add(&w->st->dirs, 1);
				if (e->cfg.verbose)
					verbose_removed(w, d, NULL, true);
			}
		}
		if (gone) {
			atomic_fetch_add(&d->parent->progress, 1);
		} else if (!(err == ENOENT && e->cfg.force)) {
			report_cannot_remove(w, d, NULL, err);
			mark_failed(d->parent);
		}
		fdc_put(&e->fdc, d->parent);
		/* d is done without an rmdir: finish it by hand */
		struct dnode *p = d->parent;
		dnode_free(d);
		node_release(w, p);
		return;
	}
	fdc_put(&e->fdc, d->parent);

	struct stat st;
	stat_add(&w->st->syscalls, 1);
	int r = sys_fstat(fd, &st);
	if (r < 0) {
		err = -r;
		sys_close(fd);
		report_cannot_remove(w, d, NULL, err);
		mark_failed(d);
		node_release(w, d);
		return;
	}
	bool is_root = atomic_load(&d->parent->flags) & DN_ANCHOR;
	if (is_root && (st.st_dev != d->dev || st.st_ino != d->ino)) {
		/* the operand was swapped between lstat and open */
		close(fd);
		report_cannot_remove(w, d, NULL, ESTALE);
		mark_failed(d);
		node_release(w, d);
		return;
	}
	if (e->cfg.one_file_system && st.st_dev != e->root_dev) {
		close(fd);
		build_path(w, &w->path, d, NULL);
		sb_reset(&w->msg);
		quote_append(&w->msg, w->path.buf, w->path.len);
		warn_errno(0, "skipping %s, since it's on a different device", sb_str(&w->msg));
		stat_add(&w->st->errors, 1);
		mark_failed(d);
		node_release(w, d);
		return;
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	fdc_install(&e->fdc, d, fd);

	fs_policy(e, d, fd);
	bool sort = want_sort(e, d, (uint64_t)st.st_size);
	unsigned batch = atomic_load_explicit(&e->knobs.sort_batch, memory_order_relaxed);

	size_t want = atomic_load_explicit(&e->knobs.getdents_size, memory_order_relaxed);
	if (want < GETDENTS_MIN)
		want = GETDENTS_MIN;
	if (want > GETDENTS_MAX)
		want = GETDENTS_MAX;
	if (want != w->dbuf_size) {
		free(w->dbuf);
		w->dbuf = xmalloc(want);
		w->dbuf_size = want;
	}
	bool reverse = want_reverse(e, d);
	if (reverse && w->cap_rev < w->dbuf_size / 24 + 1) {
		/* a dirent takes at least 24 bytes: this holds a full buffer */
		w->cap_rev = w->dbuf_size / 24 + 1;
		free(w->rev);
		w->rev = xmalloc(w->cap_rev * sizeof(*w->rev));
	}

	bool read_any = false;
	bool batching = sort;
	bool big = false;	/* the last read could fill a split (reader_slice) */
	/* Where inode order is untried, the controller's trial switches it
	 * mid-directory; reads and unlinks past the threshold are its measure. */
	bool ask_sort = atomic_load(&d->flags) & DN_SORT_ASK;
	unsigned threshold = atomic_load_explicit(&e->knobs.sort_threshold, memory_order_relaxed);
	uint64_t nread = 0;
	w->dir_past = false;
	while (!e->stop) {
		if (ask_sort) {
			bool now = want_sort(e, d, (uint64_t)st.st_size);
			bool base = !now && atomic_load_explicit(&e->knobs.sort_base, memory_order_relaxed);
			if ((now != sort || base != w->base_batch) && w->n_ents)
				flush_batch(w, d, fd, sort);	/* finish the batch as begun */
			sort = now;
			w->base_batch = base;
		}
		/* dir_share may be switched on by the controller mid-directory */
		batching = sort || w->base_batch || dir_share(e, d) > 1;
		stat_add(&w->st->syscalls, 1);
		/* Only reads of a big directory are timed: the rest never split,
		 * and a small directory's two reads need no clock. */
		bool timed = batching && big;
		uint64_t t_read = timed ? now_ns() : 0;
		long n = sys_getdents64(fd, w->dbuf, w->dbuf_size);
		if (timed)
			w->read_ns = now_ns() - t_read;
		if (n < 0) {
			err = (int)-n;
			if (read_any) {
				build_path(w, &w->path, d, NULL);
				sb_reset(&w->msg);
				quote_maybe_append(&w->msg, w->path.buf, w->path.len);
				warn_errno(err, "traversal failed: %s", sb_str(&w->msg));
				stat_add(&w->st->errors, 1);
			} else {
				report_cannot_remove(w, d, NULL, err);
			}
			mark_failed(d);
			break;
		}
		stat_add(&w->st->getdents_calls, 1);
		stat_add(&w->st->getdents_bytes, (uint64_t)n);
		if (n == 0)
			break;
		read_any = true;
		big = (size_t)n >= SHAREABLE_BYTES;
		/* Enough entries in one read to split among workers, where the
		 * filesystem gains from that: work a helper could take. Where
		 * nobody knows yet, a question for the controller. */
		if (big) {
			unsigned fl = atomic_load_explicit(&d->flags, memory_order_relaxed);
			if (shares(e, fl))
				stat_add(&w->st->shareable, 1);
			else if ((fl & DN_SHARE_ASK) &&
				 atomic_load_explicit(&e->knobs.dir_share, memory_order_relaxed) == DIR_SHARE_AUTO)
				stat_add(&w->st->share_asks, 1);
		}
		if (ask_sort) {
			w->dir_past = nread > threshold;
			if (w->dir_past)
				stat_add(sort ? &w->st->sorted_work : &w->st->sort_asks, 1);
			w->big_mode = w->dir_past && !batching ? BIG_PLAIN : BIG_NONE;
		}
		size_t nrev = 0;
		for (long off = 0; off < n && !e->stop;) {
			const struct linux_dirent64 *de = (const void *)(w->dbuf + off);
			off += de->d_reclen;
			if (is_dot_or_dotdot(de->d_name))
				continue;
			nread++;
			if (batching)
				batch_add(w, de);
			else if (reverse && nrev < w->cap_rev)
				w->rev[nrev++] = de;
			else
				remove_entry(w, d, fd, de->d_name, de->d_type);
		}
		while (nrev > 0 && !e->stop) {
			const struct linux_dirent64 *de = w->rev[--nrev];
			remove_entry(w, d, fd, de->d_name, de->d_type);
		}
		if (!batching)
			flush_newdirs(w);
		else if (!(sort || w->base_batch) || w->n_ents >= batch)
			flush_batch(w, d, fd, sort);
	}
	if (w->n_ents && !e->stop)
		flush_batch(w, d, fd, sort);
	w->n_ents = 0;
	w->big_mode = BIG_NONE;
	w->dir_past = false;
	w->base_batch = false;
	sb_reset(&w->names);
	flush_newdirs(w);
	fdc_put(&e->fdc, d);
	node_release_inline(w, d);
}

/* ------------------------------------------------------------------ */
/* Workers and the engine's life cycle                                  */

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	uintptr_t task;
	while ((task = pop_task(w)) != 0) {
		uint64_t t0 = now_ns();
		if (task & TASK_CHUNK)
			run_chunk(w, (struct chunk *)(task & ~TASK_CHUNK));
		else
			scan_dir(w, (struct dnode *)task);
		stat_add(&w->st->busy_ns, now_ns() - t0);
	}
	return NULL;
}

static unsigned default_fd_budget(int threads)
{
	struct rlimit rl;
	rlim_t lim = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		lim = rl.rlim_cur;
	/* Keep room for stdio, the operand's parent, BPF maps and links, and
	 * for each worker's transient opens beyond its two pinned fds. */
	long room = (long)lim - 24 - 2L * threads;
	if (room > 4096)
		room = 4096;
	return room < 2 ? 2 : (unsigned)room;
}

/* Start workers up to N (threads are created when first wanted: a small
 * delete must not pay for 64 clones, and parked threads cost wakeups).
 * Returns how many run. Called with qlock held, or before any worker runs. */
static int spawn_workers(struct engine *e, int n)
{
	int have = atomic_load(&e->nstarted);
	if (n <= have || e->spawn_err)
		return have;
	/* Workers must not take the signals meant for the main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (; have < n; have++) {
		struct worker *w = &e->workers[have];
		int rc = pthread_create(&w->thread, NULL, worker_main, w);
		if (rc != 0) {
			/* run with the workers we have */
			e->spawn_err = rc;
			break;
		}
		atomic_store(&e->nstarted, have + 1);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return have;
}

struct engine *engine_create(const struct engine_config *cfg, int initial_threads)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	e->cfg = *cfg;
	if (e->cfg.max_threads < 1)
		e->cfg.max_threads = 1;
	if (initial_threads < 1)
		initial_threads = 1;
	if (initial_threads > e->cfg.max_threads)
		initial_threads = e->cfg.max_threads;
	if (e->cfg.max_retries == 0)
		e->cfg.max_retries = 64;
	atomic_init(&e->knobs.active_threads, initial_threads);
	atomic_init(&e->knobs.sort_policy, SORT_AUTO);
	atomic_init(&e->knobs.sort_threshold, 10000);
	atomic_init(&e->knobs.sort_batch, 100000);
	atomic_init(&e->knobs.getdents_size, 64 * 1024);
	/* Developer override for experiments; the controller owns it otherwise. */
	atomic_init(&e->knobs.dir_share, (unsigned)env_int(ENV_DIR_SHARE, DIR_SHARE_AUTO));
	atomic_init(&e->knobs.share_unknown, false);
	atomic_init(&e->knobs.sort_unknown, false);
	atomic_init(&e->knobs.sort_base, false);
	int rev = env_flag(ENV_REVERSE, -1);
	atomic_init(&e->knobs.reverse_policy, rev < 0 ? SORT_AUTO : rev ? SORT_ALWAYS : SORT_NEVER);
	e->seen_active = initial_threads;

	pthread_mutex_init(&e->qlock, NULL);
	pthread_cond_init(&e->work_cond, NULL);
	pthread_cond_init(&e->park_cond, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->done_cond, &ca);
	pthread_condattr_destroy(&ca);

	unsigned budget = cfg->fd_budget ? cfg->fd_budget : default_fd_budget(e->cfg.max_threads);
	fdc_init(&e->fdc, budget);

	int n = e->cfg.max_threads;
	e->workers = xcalloc((size_t)n, sizeof(*e->workers));
	if (posix_memalign((void **)&e->stats, 64, (size_t)n * sizeof(*e->stats)) != 0)
		die(ENOMEM, "memory exhausted");
	memset(e->stats, 0, (size_t)n * sizeof(*e->stats));

	for (int i = 0; i < n; i++) {
		struct worker *w = &e->workers[i];
		w->e = e;
		w->id = i;
		w->st = &e->stats[i];
	}
	int got = spawn_workers(e, initial_threads);
	if (got < 1)
		die(e->spawn_err, "cannot create worker thread");
	if (got < initial_threads) {
		pthread_mutex_lock(&e->qlock);	/* the workers read seen_active under it */
		atomic_store(&e->knobs.active_threads, got);
		e->seen_active = got;
		pthread_mutex_unlock(&e->qlock);
	}
	return e;
}

void engine_destroy(struct engine *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->qlock);
	e->shutdown = true;
	pthread_cond_broadcast(&e->work_cond);
	pthread_cond_broadcast(&e->park_cond);
	pthread_mutex_unlock(&e->qlock);
	int started = atomic_load(&e->nstarted);
	for (int i = 0; i < e->cfg.max_threads; i++) {
		struct worker *w = &e->workers[i];
		if (i < started && !w->joined)
			pthread_join(w->thread, NULL);
		free(w->dbuf);
		free(w->rev);
		free(w->newdirs);
		free(w->ents);
		free(w->chain);
		sb_free(&w->names);
		sb_free(&w->msg);
		sb_free(&w->path);
	}
	/* Tasks left by a stop are abandoned nodes: free them. */
	for (size_t i = 0; i < e->qlen; i++) {
		if (e->stack[i] & TASK_CHUNK)
			free((void *)(e->stack[i] & ~TASK_CHUNK));
		else
			dnode_free((struct dnode *)e->stack[i]);
	}
	free(e->stack);
	fdc_destroy(&e->fdc);
	pthread_mutex_destroy(&e->qlock);
	pthread_cond_destroy(&e->work_cond);
	pthread_cond_destroy(&e->park_cond);
	pthread_cond_destroy(&e->done_cond);
	free(e->workers);
	free(e->stats);
	free(e);
}

struct engine_knobs *engine_knobs(struct engine *e) { return &e->knobs; }
int engine_max_threads(const struct engine *e) { return e->cfg.max_threads; }
pid_t engine_worker_tid(const struct engine *e, int i) { return atomic_load(&e->workers[i].tid); }

void engine_set_active(struct engine *e, int n)
{
	if (n < 1)
		n = 1;
	if (n > e->cfg.max_threads)
		n = e->cfg.max_threads;
	pthread_mutex_lock(&e->qlock);
	int got = spawn_workers(e, n);
	if (got < n)
		n = got;
	atomic_store(&e->knobs.active_threads, n);
	pthread_cond_broadcast(&e->park_cond);
	pthread_cond_broadcast(&e->work_cond);
	pthread_mutex_unlock(&e->qlock);
}
const struct worker_stats *engine_worker_stats(const struct engine *e, int i) { return &e->stats[i]; }

void engine_set_tick(struct engine *e, engine_tick_fn fn, void *arg)
{
	e->tick = fn;
	e->tick_arg = arg;
}

void engine_request_stop(struct engine *e)
{
	e->stop = 1;	/* async-signal-safe; waiters notice within one tick */
}

bool engine_stopping(const struct engine *e)
{
	return e->stop;
}

bool engine_join_stopped(struct engine *e, unsigned timeout_ms)
{
	pthread_mutex_lock(&e->qlock);
	e->stop = 1;
	pthread_cond_broadcast(&e->work_cond);
	pthread_cond_broadcast(&e->park_cond);
	pthread_mutex_unlock(&e->qlock);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);	/* pthread_timedjoin_np's clock */
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	bool all = true;
	int started = atomic_load(&e->nstarted);
	for (int i = 0; i < started; i++) {
		struct worker *w = &e->workers[i];
		if (!w->joined && pthread_timedjoin_np(w->thread, NULL, &dl) == 0)
			w->joined = true;
		all = all && w->joined;
	}
	return all;
}

void engine_totals(const struct engine *e, struct engine_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < e->cfg.max_threads; i++) {
		const struct worker_stats *s = &e->stats[i];
#define SUM(f) t->f += atomic_load_explicit(&s->f, memory_order_relaxed)
		SUM(files); SUM(dirs); SUM(errors); SUM(syscalls);
		SUM(getdents_calls); SUM(getdents_bytes); SUM(unlink_ns);
		SUM(unlink_calls); SUM(busy_ns); SUM(shareable); SUM(share_asks);
		SUM(sort_asks); SUM(sorted_work); SUM(batch_unlink_ns); SUM(batch_unlink_calls);
		SUM(sorted_unlink_ns); SUM(sorted_unlink_calls);
#undef SUM
	}
}

uint64_t engine_waited_ns(struct engine *e)
{
	pthread_mutex_lock(&e->qlock);
	uint64_t ns = e->waited_ns + (e->qlen > 0 ? waited_long(now_ns() - e->waiting_since) : 0);
	pthread_mutex_unlock(&e->qlock);
	return ns;
}

bool engine_remove_tree(struct engine *e, int dirfd, const char *name,
			const char *display, dev_t root_dev)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;

	dnode_init_anchor(&e->anchor, dirfd);
	e->display = display;
	e->root_dev = root_dev;
	e->op_done = false;

	struct dnode *root = dnode_new(&e->anchor, name, strlen(name));
	root->dev = st.st_dev;
	root->ino = st.st_ino;
	push_tasks(e, &root, 1);

	pthread_mutex_lock(&e->qlock);
	while (!e->op_done && !e->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&e->done_cond, &e->qlock, &ts);
		if (e->stop) {
			/* wake everyone so they notice and leave their loops */
			pthread_cond_broadcast(&e->work_cond);
			pthread_cond_broadcast(&e->park_cond);
			break;
		}
		if (!e->op_done && e->tick) {
			pthread_mutex_unlock(&e->qlock);
			e->tick(e, e->tick_arg);
			pthread_mutex_lock(&e->qlock);
		}
	}
	pthread_mutex_unlock(&e->qlock);
	if (!e->op_done)
		return false;
	return !(atomic_load(&e->anchor.flags) & DN_FAILED);
}
