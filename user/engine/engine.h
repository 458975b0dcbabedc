// SPDX-License-Identifier: GPL-3.0-or-later
/* The parallel deletion engine.
 *
 * One task per directory, run by a pool of workers. A worker opens the
 * directory relative to its parent's fd, reads it with getdents64, unlinks
 * the non-directories at once and queues each subdirectory as a new task.
 * Every directory node counts its unfinished children plus one for its own
 * scan; whoever drops that count to zero removes the directory and walks on
 * to the parent, so no thread ever waits on children (fuc's model).
 *
 * Live knobs (struct engine_knobs) may be changed from another thread while a
 * delete runs: that is how the adaptive controller steers the engine.
 */
#ifndef ADAPTRM_ENGINE_H
#define ADAPTRM_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct strbuf;

enum sort_policy {
	SORT_AUTO = 0, /* by filesystem type: ext2/3/4, btrfs, reiserfs */
	SORT_NEVER,
	SORT_ALWAYS,
};

#define DIR_SHARE_AUTO 0u
#define ENGINE_HIST_BUCKETS 24


/* op_interval_ns's value that holds every unlink and rmdir until it changes:
 * a background deleter keeps its metadata out of the commits of others'
 * syncs this way. */
#define ENGINE_PACE_HOLD UINT64_MAX

/* The large-file lane (docs/design.md#large-files-the-lane-and---free-rate).
 * --free-rate truncates files above a chunk, RocksDB's default for the same
 * job; the watchdog switches the lane on at ENGINE_AUTO_LANE_BYTES once a
 * worker has been inside one unlinkat for ENGINE_WATCHDOG_MS. */
#define ENGINE_LANE_CHUNK (64ull << 20)
#define ENGINE_AUTO_LANE_BYTES (1ull << 30)
#define ENGINE_WATCHDOG_MS 250u

struct engine_config {
	int max_threads;      /* worker slots (threads start when first made
				 * active); active_threads ≤ this */
	bool force;	      /* -f: missing files are not errors */
	bool verbose;	      /* -v: "removed 'x'" on stdout */
	bool one_file_system; /* do not descend into other mounts */
	unsigned fd_budget;   /* directory fds kept open at most (0: from RLIMIT_NOFILE) */
	unsigned max_retries; /* rescans of a directory refilled while we delete it */
	uint64_t free_rate;   /* --free-rate: bytes freed per second at most by
			       * the lane's truncations (0: not paced) */
	/* Where the workers start; afterwards only the steering (ctl/steer.c)
	 * and the controller's trials change them. */
	int sort_policy;	 /* enum sort_policy (SORT_AUTO: 0) */
	unsigned sort_threshold; /* 0: the default */
	unsigned getdents_size;	 /* 0: the default */
	uint64_t op_interval_ns; /* --max-ops's pace (0: not paced) */
};

/* The engine's settings as the workers read them, for the controller's
 * record and the progress line. */
struct engine_settings {
	int active_threads, sort_policy;
	unsigned sort_threshold, sort_batch, getdents_size;
	uint64_t op_interval_ns;
};

/* The plans a directory's reads and unlinks are counted under, as far as
 * the controller's trials tell them apart (engine/plan.c decides which). */
enum plan_id {
	PLAN_SETTLED,  /* nothing in question: the filesystem type decides */
	PLAN_SHARED,   /* big reads where sharing is on (by type, or a trial's) */
	PLAN_UNSHARED, /* big reads where sharing is untried, and off */
	/* Past the sort threshold where inode order is untried: */
	PLAN_READDIR, /* readdir order, as read */
	PLAN_BATCHED, /* readdir order, in whole batches */
	PLAN_SORTED,  /* inode order, in sorted batches */
	PLAN_COUNT,
};

/* What one plan did: the reads counted under it, and the unlinkat calls
 * timed while its entries went (the 1-in-8 sample) with their time. */
struct plan_stats {
	_Atomic uint64_t reads, unlinks, unlink_ns;
};

/* Per-worker counters. Written only by their worker (relaxed atomics), read
 * by the progress line, --stats and the controller at any time. */
struct worker_stats {
	_Atomic uint64_t files;	   /* non-directories removed */
	_Atomic uint64_t dirs;	   /* directories removed */
	_Atomic uint64_t errors;   /* diagnostics printed */
	_Atomic uint64_t syscalls; /* syscalls issued by the worker */
	_Atomic uint64_t getdents_calls;
	_Atomic uint64_t getdents_bytes;
	_Atomic uint64_t unlink_ns;    /* wall time inside the timed unlinkat calls */
	_Atomic uint64_t unlink_calls; /* unlinkat calls timed (a sample, 1 in 8) */
	_Atomic uint64_t busy_ns;      /* time spent running tasks (not parked/idle) */
	_Atomic uint32_t in_unlink;    /* inside a file's unlinkat (the watchdog) */
	/* the timed unlinkat calls by log2 of their µs (bucket i: < 2^i µs;
	 * the last, longer): the ranks' shared budget sums these */
	_Atomic uint64_t unlink_hist[ENGINE_HIST_BUCKETS];
	/* directory opens and getdents64 calls timed for the cold check, and
	 * those that took 100 µs or more (scan.c, cold_check) */
	_Atomic uint64_t reads_timed, reads_waited;
	/* halves of a slice's rest handed on for its slow unlinks (scan.c),
	 * and slices whose big files went to the lane for the same reason */
	_Atomic uint64_t heavy_splits, heavy_lanes;
	struct plan_stats plan[PLAN_COUNT];
} __attribute__((aligned(64)));

/* The sums of struct plan_stats over the workers. */
struct plan_totals {
	uint64_t reads, unlinks, unlink_ns;
};

/* What the large-file lane did (its files are in engine_totals' too). */
struct lane_totals {
	uint64_t files;	      /* unlinked by the lane */
	uint64_t truncations; /* --free-rate: ftruncate steps */
	uint64_t paced_bytes; /* --free-rate: bytes freed under the pacing */
	uint64_t paced_ns;    /* from the first paced step to the last one's end */
	bool auto_lane;	      /* the watchdog switched the lane on */
};

struct engine_totals {
	uint64_t files, dirs, errors, syscalls, getdents_calls, getdents_bytes;
	uint64_t unlink_ns, unlink_calls, busy_ns;
	uint64_t unlink_hist[ENGINE_HIST_BUCKETS];
	uint64_t reads_timed, reads_waited, heavy_splits, heavy_lanes;
	bool cold; /* reads waited for the disk: readdir order from then on */
	struct plan_totals plan[PLAN_COUNT];
	struct lane_totals lane;
};

struct engine;

struct engine *engine_create(const struct engine_config *cfg, int initial_threads);
void engine_destroy(struct engine *e);

void engine_settings(const struct engine *e, struct engine_settings *out);
int engine_active_threads(const struct engine *e);
int engine_max_threads(const struct engine *e);
/* Thread id of worker I (0 until it started), for per-thread /proc signals. */
pid_t engine_worker_tid(const struct engine *e, int i);
/* Let N workers run (clamped to 1..max_threads); wakes parked ones at once.
 * Returns how many may run (fewer where threads could not be started). Only
 * the steering (ctl/steer.c) calls it. */
int engine_set_active(struct engine *e, int n);
/* At least NS between two unlinks or rmdirs of the workers (0: not paced;
 * ENGINE_PACE_HOLD: none until it changes). Only the steering calls it. */
void engine_set_pace(struct engine *e, uint64_t ns);
/* Use plan PLAN where the filesystem type leaves it open (ON), or not:
 * knobs.trial_plans, one plan's bit (engine/plan.c). */
void engine_use_plan(struct engine *e, enum plan_id plan, bool on);

/* Delete the tree NAME inside directory DIRFD (AT_FDCWD or an open fd), NAME
 * being a directory that was lstat'ed as ST. DISPLAY is the operand as the
 * user spelled it, used for messages. engine_begin_tree hands it to the
 * workers (false if it could not be queued: said); the caller then calls
 * engine_wait until it returns true, doing its own work between (the
 * progress line, the steering), and engine_end_tree says whether
 * everything, the top directory included, was removed. */
bool engine_begin_tree(struct engine *e, int dirfd, const char *name, const char *display,
		       const struct stat *st);
bool engine_end_tree(struct engine *e);
/* Up to MS milliseconds of the delete: true once the tree (or the serving)
 * is done or the engine stops. Without worker threads the caller's thread
 * runs the tasks meanwhile. */
bool engine_wait(struct engine *e, unsigned ms);
/* The three in one, for a caller with nothing to do between. */
bool engine_remove_tree(struct engine *e, int dirfd, const char *name, const char *display,
			const struct stat *st);

/* --free-rate for a file operand, in the caller's thread and paced by the
 * lane's bucket: if NAME in DIRFD is a file the lane would take, open it and
 * take its write lease before the caller unlinks it (the fd, else -1). Then
 * engine_free_held frees it in steps if nobody else can reach it (no name
 * left, the lease unbroken) and closes it: 0, or the errno of a failed
 * ftruncate. */
int engine_hold_file(struct engine *e, int dirfd, const char *name);
int engine_free_held(struct engine *e, int held);

/* The cache is cold (a read of the tree waited for the disk): entries go
 * in readdir order from now on, where last-first would pay warm. The
 * workers find it out themselves too; this is for a caller that read the
 * tree first (the controller's shape sample). */
void engine_set_cold(struct engine *e);

/* Ask the workers to stop as soon as possible (async-signal-safe). */
void engine_request_stop(struct engine *e);
bool engine_stopping(const struct engine *e);
/* After a stop: wait up to TIMEOUT_MS for every worker to leave (each
 * finishes at most the syscall it is in). True if all did; the engine can
 * then only be destroyed. */
bool engine_join_stopped(struct engine *e, unsigned timeout_ms);

void engine_totals(const struct engine *e, struct engine_totals *t);

/* The allocation-group order on xfs (engine_pop_task) of the tree in DIRFD
 * that engine_remove_tree removes next, for --explain: read now, and that
 * engine_remove_tree takes it rather than reading the geometry again. */
struct engine_ag_order {
	bool off;	 /* ADAPTRM_AG_ORDER=0: the geometry is not read */
	unsigned groups; /* allocation groups (0: not xfs, or unreadable) */
	unsigned shift;	 /* inode number >> shift is its group (0: no order) */
};
void engine_ag_order(struct engine *e, int dirfd, struct engine_ag_order *out);

/* The first slice of slow unlinks handed on (scan.c), with the evidence
 * that moved it, for --explain and --json. */
struct engine_slow_slice {
	bool lane;	       /* its big files went to the lane (one worker),
				* else half its rest to an idle worker */
	bool forced;	       /* ADAPTRM_HEAVY_US=0: handed on unmeasured */
	unsigned entries;      /* unlinks the wall clock covered */
	uint64_t wall_ns;      /* wall time per unlink over them */
	uint64_t cpu_ns;       /* the thread's CPU per unlink that confirmed
				* it (0: not measured) */
	uint64_t threshold_ns; /* per unlink, the bar both passed */
};
/* False until a slice was handed on; then its evidence into *OUT. */
bool engine_first_slow_slice(struct engine *e, struct engine_slow_slice *out);
/* Time, summed since the engine started, during which a task waited in the
 * stack for a worker (now included). */
uint64_t engine_waited_ns(struct engine *e);
const struct worker_stats *engine_worker_stats(const struct engine *e, int i);
/* Worker I has been inside one unlinkat for ENGINE_WATCHDOG_MS or more (a
 * huge file): its blocked time is the lane's, not a reason to add workers.
 * Another worker runs in its place meanwhile (within max_threads). */
bool engine_worker_in_lane(const struct engine *e, int i);

/* Scale-out (engine/steal.c, docs/design.md#scale-out). Only unscanned
 * directories move between engines (ranks), each sent as its path from the
 * operand's root with the inode number of every component; the thief opens
 * it component by component with O_NOFOLLOW and checks each inode. The
 * donor keeps the directory counted in its parent; the thief reports it
 * back when its subtree is gone (or failed), and the donor removes it
 * through its own verified fds and walks on to the parent as ever. */

/* Called in a worker when directory TOKEN given by DONOR is done with. */
typedef void (*engine_remote_fn)(void *arg, int donor, uint64_t token, bool failed);
void engine_set_remote(struct engine *e, engine_remote_fn fn, void *arg);
/* Testing: FN(ARG) is called, from any thread, between the steps of the
 * hand-offs of work (donations, slices, reports, tasks taken), where the
 * seeded simulation pauses threads at random. Before any work. */
void engine_set_jitter(struct engine *e, void (*fn)(void *arg), void *arg);

/* Directories waiting in the stack plus workers running a task: the work
 * a budget shared between ranks is dealt by. */
size_t engine_backlog(struct engine *e);
/* Nothing waits in the stack and a worker waits for work: time to steal. */
bool engine_wants_work(struct engine *e);
/* Give away up to MAX of the oldest (shallowest) directories waiting to be
 * scanned, at most half of those waiting, all children of one directory,
 * encoded in OUT (reset first). Returns how many (0: none to give). */
size_t engine_donate(struct engine *e, size_t max, struct strbuf *out);
/* The operand's root inode a donation is under (false: not a donation). */
bool engine_donation_root(const void *msg, size_t len, uint64_t *root_ino);

/* How this engine reaches an operand: PFD (or AT_FDCWD) and the last
 * component BASE, (DEV, INO) as lstat'ed here, DISPLAY for messages. The
 * strings and PFD must outlive the engine. */
struct engine_root {
	int pfd;
	const char *base, *display;
	dev_t dev;
	ino_t ino;
};
/* Take the directories of donation MSG from rank DONOR under ROOT; they are
 * scanned as tasks, and each is reported through the remote callback when
 * its subtree is gone. False if MSG is malformed or out of memory (each
 * directory then reported failed at once). */
bool engine_adopt(struct engine *e, int donor, const void *msg, size_t len,
		  const struct engine_root *root);
/* Give every directory of donation MSG back to DONOR as failed (this
 * engine cannot reach its operand). */
void engine_refuse(struct engine *e, int donor, const void *msg, size_t len);
/* The thief of TOKEN is done with it: remove it (unless FAILED) and walk on.
 * False if TOKEN is not one given away. */
bool engine_remote_done(struct engine *e, uint64_t token, bool failed);
/* Donations of directories this engine had itself been given (a re-steal:
 * the reports go back along a chain of donors). */
uint64_t engine_given_on(struct engine *e);
/* Directories given away and not yet reported back. */
size_t engine_remote_out(struct engine *e);
/* With no operand of its own, run what is adopted until *STOP or the engine
 * stops: engine_begin_serve, engine_wait until true, engine_end_serve, as
 * for a tree; engine_serve is the three in one. */
void engine_begin_serve(struct engine *e, const atomic_bool *stop);
void engine_end_serve(struct engine *e);
void engine_serve(struct engine *e, const atomic_bool *stop);
/* What E holds and its workers do, one line appended to OUT: a watchdog's
 * report of a run that does not end. */
void engine_describe(struct engine *e, struct strbuf *out);
/* *STOP was set: engine_serve returns now, not at its next look. */
void engine_serve_wake(struct engine *e);

#endif
