// SPDX-License-Identifier: GPL-3.0-or-later
/* The engine's insides, shared by its files: tasks.c (the task stack),
 * release.h (children remove their parents), plan.c (how one directory is
 * deleted), scan.c (the scanner and the workers' loop), lane.c (large
 * files), steal.c (scale-out), diag.c (messages) and engine.c (creating,
 * steering and destroying an engine, and the caller's driver). Not part of
 * the API. */
#ifndef ADAPTRM_ENGINE_INT_H
#define ADAPTRM_ENGINE_INT_H

#include "engine/dirnode.h"
#include "engine/engine.h"
#include "lib/strbuf.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define TASK_CHUNK ((uintptr_t)1) /* tag bit of a chunk on the task stack */
#define TASK_RELEASE \
	((uintptr_t)2) /* tag bit of a donated directory its thief
				     * is done with: drop its last count */

/* One entry of an inode-sorted batch; names live in the batch's arena. */
/* The knobs the workers read live. Written by the engine at its creation and
 * by the steering through engine_set_active and engine_set_pace (and the
 * trials through engine_use_plan); nobody outside the engine reaches them. */
struct engine_knobs {
	_Atomic int active_threads;	 /* workers allowed to run (1..max_threads) */
	_Atomic int sort_policy;	 /* enum sort_policy */
	_Atomic unsigned sort_threshold; /* sort a batch only above this many entries */
	_Atomic unsigned sort_batch;	 /* entries read and sorted at a time */
	_Atomic unsigned getdents_size;	 /* bytes per getdents64 call */
	_Atomic unsigned dir_share;	 /* workers that may unlink inside one directory
					 * at once (1: one worker per directory;
					 * DIR_SHARE_AUTO: all active workers where the
					 * filesystem type says it pays, else 1) */
	_Atomic unsigned trial_plans;	 /* where the filesystem type leaves it
					 * open, use these plans (bits 1 << enum
					 * plan_id): PLAN_SHARED in place of
					 * PLAN_UNSHARED, PLAN_SORTED or
					 * PLAN_BATCHED in place of PLAN_READDIR;
					 * the controller's trials set them */
	_Atomic int reverse_policy;	 /* unlink each getdents64 batch last-first:
					 * enum sort_policy's AUTO (by filesystem
					 * type), NEVER or ALWAYS */
	_Atomic uint64_t lane_bytes;	 /* regular files with this many bytes
					 * allocated or more are unlinked by the
					 * large-file lane (0: off, and no file is
					 * stat'ed) */
	_Atomic uint64_t op_interval_ns; /* --max-ops: at least this long between
					  * two unlinks or rmdirs of the engine's
					  * workers (0: not paced; ENGINE_PACE_HOLD:
					  * none until it changes) */
};

struct sort_ent {
	uint64_t ino;
	uint32_t name_off;
	uint8_t type;
};

/* A slice of one directory's entries handed to another worker (dir_share),
 * or to another engine (steal.c). Names follow the entry array in the same
 * allocation. */
struct chunk {
	struct dnode *d;
	uint32_t n;
	uint8_t plan; /* enum plan_id its unlinks count under */
	struct sort_ent ents[];
};

/* A subdirectory found in a read, with its d_ino: the key when the new
 * tasks are pushed in inode order. */
struct subdir {
	uint64_t ino;
	struct dnode *n;
};

struct worker {
	struct engine *e;
	int id;
	pthread_t thread;
	_Atomic pid_t tid;
	struct worker_stats *st;
	char *dbuf; /* getdents64 buffer, reused for every directory */
	size_t dbuf_size;
	size_t dbuf_tried;		   /* the size last asked for (size_dbuf) */
	const struct linux_dirent64 **rev; /* the buffer's entries, to walk last-first */
	size_t cap_rev;
	struct subdir *newdirs; /* subdirectories found in the current buffer */
	size_t n_newdirs, cap_newdirs;
	bool order_subdirs;    /* push them in inode order (the plan's subdirs_by_ino) */
	struct sort_ent *ents; /* inode-sort batch */
	size_t n_ents, cap_ents;
	struct strbuf names; /* arena for the batch's names */
	struct strbuf msg;   /* message / -v line being built */
	struct strbuf path;  /* path of the entry being reported */
	bool joined;
	bool busy;	     /* popped a task and not yet back for the next (qlock) */
	bool borrowing;	     /* past the allowed count, in an idle worker's place */
	unsigned unlink_seq; /* unlinks so far, for sampling their time */
	uint8_t unlink_plan; /* enum plan_id the unlinks being issued count under */
	/* For splitting a shared directory so that the reader's next read
	 * overlaps its helpers' work: the last getdents64 call's time, and
	 * the cost of one entry in the reader's last slice (EWMA). */
	uint64_t read_ns, entry_ns;
	/* The watchdog's view (written by the thread that waits for the tree):
	 * the syscall count it last saw, since when it saw the worker inside
	 * that same unlinkat (0: not), and whether that is too long. */
	uint64_t wd_syscalls, wd_since;
	uint64_t wd_cpu_ns; /* its thread's CPU time at the watchdog's last look */
	_Atomic bool in_lane;
	/* read_bytes of the worker's thread when it last looked (cold_check;
	 * -1: unknown) */
	int64_t io_read_bytes;
};

struct lane;

struct engine {
	struct engine_config cfg;
	struct engine_knobs knobs;
	struct worker *workers; /* max_threads slots */
	atomic_int nstarted;	/* of which this many threads exist */
	int spawn_err;		/* pthread_create failed: no more */
	struct worker_stats *stats;

	pthread_mutex_t qlock;
	pthread_cond_t work_cond; /* active workers wait here for tasks */
	pthread_cond_t park_cond; /* workers beyond active_threads wait here */
	pthread_cond_t done_cond; /* the caller waits here for the tree */
	uintptr_t *stack;	  /* LIFO of tasks: a dnode to scan, or a chunk
					 * (tagged). Depth-first keeps the frontier small. */
	size_t qlen, qcap;
	/* xfs: inode number >> ag_shift is its allocation group (0: not xfs,
	 * or AG order off); set by the caller before the operand's root is
	 * pushed, read under qlock (engine_pop_task). */
	unsigned ag_shift;
	/* The geometry engine_ag_order read ahead for the next operand in
	 * ag_next_fd (so that it is read once), until engine_remove_tree
	 * takes it. */
	bool ag_next_valid;
	int ag_next_fd;
	unsigned ag_next_shift;
	/* The first slow slice handed on (engine_first_slow_slice): the worker
	 * that claims it writes it, then sets heavy_ready. */
	atomic_bool heavy_claimed, heavy_ready;
	struct engine_slow_slice heavy_first;
	/* Time some task sat in the stack with no worker taking it, in waits
	 * long enough for another worker to take it (WAIT_MIN_NS): the most
	 * such a worker could have gained. Under qlock. */
	uint64_t waited_ns, waiting_since;
	/* Out of memory in a task (wait_for_memory): workers running a task,
	 * tasks ended so far, and the workers waiting on mem_cond for one to
	 * end. Under qlock. */
	int busy;
	uint64_t tasks_ended;
	int mem_waiters;
	pthread_cond_t mem_cond;
	int idle;	     /* active workers waiting for work */
	int held;	     /* workers past the allowed count waiting mid-directory */
	int borrowed;	     /* of the idle ones, whose place such a worker took */
	bool mem_short;	     /* ran out of memory: one worker from then on (qlock) */
	atomic_int in_chunk; /* workers removing a chunk right now */
	int seen_active;     /* active_threads as the workers last saw it */
	bool shutdown;
	atomic_int stop; /* lock-free, so the signal handler may set it */
	/* Remove nothing more, but finish the tree's bookkeeping: every task
	 * left fails silently and its ancestors with it (stdout is a closed
	 * pipe). Set with stop too: the loops over entries check this one. */
	atomic_int halt;

	struct fdcache fdc;

	/* the operand being removed */
	struct dnode anchor;
	const char *display;
	bool op_done;

	const atomic_bool *serve_stop; /* engine_begin_serve's flag */

	/* The large-file lane (lane.c): its thread and queue, made with the
	 * engine, its thread started by the first file it takes. */
	struct lane *lane;
	int lane_extra;	       /* workers allowed beyond active_threads in place of
				 * those stuck in an unlinkat (qlock) */
	atomic_bool auto_lane; /* the watchdog switched the lane on */
	/* Directory reads wait for the disk (cold_check): last-first order,
	 * which pays on a warm cache, walks the disk backwards against every
	 * readahead below, so from then on entries go in readdir order. */
	atomic_bool cold;
	uint64_t watchdog_ns; /* an unlinkat this long puts its worker in the lane */

	/* Scale-out (steal.c): directories given to other engines, by token
	 * (slot index and generation), and how many are out; the stack keeps
	 * room for each one's release task. Under qlock. */
	struct donated *donated;
	uint32_t ndonated, cap_donated, free_donated; /* free list head (+1; 0: none) */
	size_t remote_out;
	engine_remote_fn remote_fn;
	void *remote_arg;
	/* The seeded simulation's pauses at the protocol's steps (NULL
	 * elsewhere): engine_jitter. */
	_Atomic(void (*)(void *)) jitter_fn; /* set while workers run: atomic */
	_Atomic(void *) jitter_arg;
	atomic_bool serving;	   /* engine_serve is running: no operand of its own */
	_Atomic uint64_t op_next;  /* --max-ops: when the next unlink may start */
	_Atomic uint64_t given_on; /* donations of directories this engine was given */
	atomic_int remote_hunger;  /* ranks that asked and found nothing: a shared
				    * directory's reader cuts slices for them */
};

/* A slot of the donated table: the node, or the next free slot. */
struct donated {
	struct dnode *n;
	uint32_t gen;
	uint32_t next_free;
};

/* What a thief was given: its own way down (an anchor on the operand's
 * parent, then DN_PATH nodes), shown as this engine's spelling of the
 * operand. The anchor must be last: a dnode ends in its name. */
struct adoption {
	const char *display;
	struct dnode anchor;
};

/* A directory given by another engine: whom to tell when it is empty. */
struct stolen {
	int donor;
	uint64_t token;
	struct dnode n;
};

static inline void stat_add(_Atomic uint64_t *c, uint64_t v)
{
	/* single writer: a relaxed load+store is enough and cheaper than a RMW */
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

/* --max-ops: wait for this unlink's turn (pace.c), if paced at all. */
void engine_pace_slow(struct engine *e, uint64_t interval_ns);
static inline void engine_pace(struct engine *e)
{
	uint64_t iv = atomic_load_explicit(&e->knobs.op_interval_ns, memory_order_relaxed);
	if (__builtin_expect(iv != 0, 0))
		engine_pace_slow(e, iv);
}

/* A point where the simulation may hold this thread up a while: between
 * the steps of handing work between workers and engines, where an
 * interleaving the scheduler rarely makes can be forced. Once per task, not
 * per entry. */
static inline void engine_jitter(struct engine *e)
{
	void (*fn)(void *) = atomic_load_explicit(&e->jitter_fn, memory_order_acquire);
	if (__builtin_expect(fn != NULL, 0))
		fn(atomic_load_explicit(&e->jitter_arg, memory_order_relaxed));
}

/* Node D of a thief reached its last count (steal.c): a DN_STOLEN node is
 * reported to its donor, a DN_PATH node freed, an adoption's anchor freed.
 * Returns the node to release next (the parent), or NULL. */
struct dnode *engine_remote_finished(struct worker *w, struct dnode *d);

/* Threads created until the caller restores *OLD with pthread_sigmask must
 * not take the signals meant for the main thread, but a -v line's write into
 * a closed pipe must kill the process as it would GNU rm: SIGPIPE stays as
 * the caller has it. */
static inline void engine_mask_signals(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	if (!sigismember(old, SIGPIPE))
		sigdelset(&all, SIGPIPE);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
}

/* The thread function of every worker (scan.c). */
void *engine_worker_main(void *arg);
/* Run one task popped from the stack (scan.c). */
void engine_run_task(struct worker *w, uintptr_t task);
/* Start worker threads up to N (engine.c; qlock held, or before any
 * worker runs): how many run. */
int engine_spawn_workers(struct engine *e, int n);

/* The task stack (tasks.c). Push N new directory tasks (reversed: the first
 * is taken first); false if out of memory, nothing pushed. */
bool engine_push_tasks(struct engine *e, const struct subdir *nodes, size_t n);
/* Push N chunks (slices of their directories' names) as tasks; false if
 * out of memory, nothing pushed. */
bool engine_push_chunks(struct engine *e, struct chunk **chunks, size_t n);
/* The next task for W, waiting for one; 0 when the engine stops. */
uintptr_t engine_pop_task(struct worker *w);
/* Workers that could help with a directory's next slice: those waiting
 * for work and those finishing a slice. None while other tasks wait. */
unsigned engine_idle_helpers(struct engine *e);
/* Workers waiting for work with none queued (a slice's slow rest may go to
 * one of them). */
unsigned engine_idle_workers(struct engine *e);
/* Out of memory in a task: true if another task ended meanwhile (try
 * again), false if the memory will not come back. */
bool engine_wait_for_memory(struct worker *w);
/* Called before each unlink of a worker past the allowed count (tasks.c). */
void engine_hold_over(struct worker *w);
/* How deep below the top of the stack a worker looks for a directory of its
 * own allocation groups: a bounded scan under qlock, deep enough to hold
 * the subdirectories of a few directories. */
#define ENGINE_AG_LOOK 64
/* The index in STACK (QLEN > 0 tasks, the top last) of the task worker ID
 * of ACTIVE takes next. On xfs (AG_SHIFT > 0), with more than one worker,
 * each takes directories of its own allocation groups first (the AG number
 * modulo ACTIVE is its ID): a directory's files share its AG, so two
 * unlinkers, and the inode-GC workers that free what each unlinked, rarely
 * queue on the same AGI and AGF buffer locks
 * (docs/design.md#allocation-groups). Else, and for chunks and release
 * tasks on top, the top. */
size_t engine_ag_pick(const uintptr_t *stack, size_t qlen, unsigned ag_shift, unsigned active,
		      unsigned id);
static inline bool engine_over_count(const struct worker *w)
{
	return w->id >= atomic_load_explicit(&w->e->knobs.active_threads, memory_order_relaxed);
}

/* ERR on a name inside the tree means someone else removed it (or moved it
 * out of the tree) first: under -f that is not an error, as GNU's
 * ignorable_missing says. The one place the engine decides this. */
static inline bool engine_gone(const struct engine *e, int err)
{
	return err == ENOENT && e->cfg.force;
}

/* D could not be emptied: it and its ancestors stay. */
static inline void engine_mark_failed(struct dnode *d)
{
	atomic_fetch_or(&d->flags, DN_FAILED);
}

/* The lane (lane.c). */
struct lane *lane_new(struct engine *e, struct worker_stats *st, uint64_t rate);
/* Stop its thread (after its current file) and free what is queued. */
void lane_destroy(struct lane *l);
/* Wait until DEADLINE (CLOCK_REALTIME) for its thread to leave: true if it
 * did (or never started). */
bool lane_join_until(struct lane *l, const struct timespec *deadline);
/* Entry NAME of directory D (open as FD), a non-directory: if it is a
 * regular file with lane_bytes allocated or more, the lane takes it (or,
 * the engine halting, skips it). True if the caller must leave it alone. */
bool lane_take(struct worker *w, struct dnode *d, int fd, const char *name);
/* The same at BYTES allocated or more, whatever lane_bytes says. */
bool lane_take_at(struct worker *w, struct dnode *d, int fd, const char *name, uint64_t bytes);
void lane_totals(const struct lane *l, struct lane_totals *t);
/* worker_stats.in_unlink of a worker waiting for room in the lane's queue
 * (1: inside a file's unlinkat), which the watchdog counts as in the lane. */
#define LANE_WAITING 2u

/* Messages (diag.c). The path of directory N, and LEAF inside it if given,
 * as the user would see it, built in SB. */
void engine_msg_path(struct worker *w, struct strbuf *sb, struct dnode *n, const char *leaf);
/* "cannot remove 'path': strerror(ERR)" on stderr, counted as an error. */
void engine_msg_cannot_remove(struct worker *w, struct dnode *dir, const char *leaf, int err);
/* The same with another verb: "WHAT 'path': strerror(ERR)". */
void engine_msg_path_error(struct worker *w, struct dnode *dir, const char *leaf, const char *what,
			   int err);
/* GNU rm's warning that directory D is part of a cycle (fts' FTS_DC). */
void engine_msg_cycle(struct worker *w, struct dnode *d);
/* -v: "removed 'path'" (or "removed directory 'path'") on stdout. */
void engine_msg_removed(struct worker *w, struct dnode *dir, const char *leaf, bool is_dir);

#endif
