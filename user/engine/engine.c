// SPDX-License-Identifier: GPL-3.0-or-later
/* The engine's life cycle: creating it, its workers' threads (started when
 * first wanted), steering and stopping them, the counters' sums, and the
 * caller's driver: the operand handed to the workers and waited for, with
 * the watchdog that lets workers run in place of those stuck in the lane. */
#include "engine/dirnode.h"
#include "engine/engine_int.h"
#include "engine/fsinfo.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/msg.h"
#include "lib/procfile.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/taskio.h"
#include "lib/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static rlim_t fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		return rl.rlim_cur;
	return 1024;
}

/* Workers the fd limit can hold: each pins two fds (its directory and its
 * parent's) beyond the 24 kept for the rest. Under a small limit fewer
 * workers run instead of failing with EMFILE (ulimit -n 24, 64 threads). */
static int fd_limited_threads(int threads)
{
	long fit = ((long)fd_limit() - 24) / 2;
	if (fit < 1)
		fit = 1;
	return threads > fit ? (int)fit : threads;
}

/* The large-file lane's fds: a directory fd per queued file (16), the file
 * it truncates and the directory it may remove. */
#define LANE_FDS 18

static unsigned default_fd_budget(int threads)
{
	rlim_t lim = fd_limit();
	/* Keep room for stdio, the operand's parent, BPF maps and links, for
	 * each worker's transient opens beyond its two pinned fds, and for the
	 * lane's. */
	long room = (long)lim - 24 - 2L * threads - LANE_FDS;
	if (room > 4096)
		room = 4096;
	return room < 2 ? 2 : (unsigned)room;
}

/* A worker's stack. The engine does not recurse, so its deepest use is a
 * small fraction of this, and 64 workers fit under a small address-space
 * limit, where glibc's default 8 MiB stacks do not. The sanitizers'
 * instrumented frames get the default. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WORKER_STACK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WORKER_STACK 0
#endif
#endif
#ifndef WORKER_STACK
#define WORKER_STACK (256u << 10)
#endif

/* What a worker takes beyond its stack: its getdents64 buffer and the
 * arrays beside it, at their default sizes. */
#define WORKER_BUFFERS (128u << 10)

/* Under an address-space limit (prlimit --as, ulimit -v), the bytes of it
 * not yet mapped, and the limit in *LIMIT; SIZE_MAX if there is no limit or
 * the size cannot be read. */
static size_t as_unmapped(size_t *limit)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	/* read into the stack: malloc may be what is short */
	char buf[64];
	if (procfile_read("/proc/self/statm", buf, sizeof buf) < 0)
		return SIZE_MAX;
	char *end;
	unsigned long pages = strtoul(buf, &end, 10);
	if (end == buf)
		return SIZE_MAX;
	size_t mapped = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
	*limit = (size_t)rl.rlim_cur;
	return mapped < *limit ? *limit - mapped : 0;
}

/* Whether worker number NTH (counting from 0) with a STACK-byte stack
 * fits: under an address-space limit, half of the limit must stay unmapped
 * after its stack and the buffers of every worker up to it (those already
 * started may not have allocated theirs yet). A stack is mapped for as long
 * as its thread lives, and the walk's nodes (one per pending directory) need
 * the room more than the run needs another worker: fewer workers is the
 * fallback, a directory that cannot be removed is not. */
static bool worker_fits(int nth, size_t stack)
{
	size_t limit = 0, left = as_unmapped(&limit);
	if (left == SIZE_MAX)
		return true;
	size_t need = stack + (size_t)(nth + 1) * WORKER_BUFFERS + limit / 2;
	return left >= need;
}

/* Start workers up to N (threads are created when first wanted: a small
 * delete must not pay for 64 clones, and parked threads cost wakeups).
 * Returns how many run. Called with qlock held, or before any worker runs.
 * When a thread cannot be created (EAGAIN, ENOMEM: an address-space,
 * process-count or cgroup limit), or would leave too little address space
 * for the walk (worker_fits), the engine runs with those it has, says so
 * once, and never tries again; with none, the caller's thread does the work
 * (engine_remove_tree). */
int engine_spawn_workers(struct engine *e, int n)
{
	int have = atomic_load(&e->nstarted);
	if (n <= have || e->spawn_err)
		return have;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (WORKER_STACK)
		pthread_attr_setstacksize(&attr, WORKER_STACK);
	size_t stack = 0;
	pthread_attr_getstacksize(&attr, &stack);
	sigset_t old;
	engine_mask_signals(&old);
	int want = n;
	for (; have < n; have++) {
		struct worker *w = &e->workers[have];
		int rc = worker_fits(have, stack) ?
				 pthread_create(&w->thread, &attr, engine_worker_main, w) :
				 ENOMEM;
		if (rc == EINVAL) /* the stack is too small for this libc's TLS */
			rc = pthread_create(&w->thread, NULL, engine_worker_main, w);
		if (rc != 0) {
			/* run with the workers we have */
			e->spawn_err = rc;
			break;
		}
		atomic_store(&e->nstarted, have + 1);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (e->spawn_err)
		warn_errno(e->spawn_err, "warning: started %d of %d workers", have, want);
	return have;
}

/* The lane's threshold and the watchdog's: --free-rate puts every file above
 * a chunk in the lane from the start; otherwise it is off until the watchdog
 * sees a worker stuck in one unlinkat (ADAPTRM_LANE_WATCHDOG_MS, for tests:
 * that long instead of ENGINE_WATCHDOG_MS; 0: the auto lane from the start). */
static void init_lane_knobs(struct engine *e)
{
	int ms = env_int(ENV_LANE_WATCHDOG_MS, (int)ENGINE_WATCHDOG_MS);
	if (ms < 0)
		ms = (int)ENGINE_WATCHDOG_MS;
	e->watchdog_ns = (uint64_t)ms * 1000000u;
	uint64_t lane = e->cfg.free_rate ? ENGINE_LANE_CHUNK : 0;
	if (ms == 0 && !lane) {
		lane = ENGINE_AUTO_LANE_BYTES;
		atomic_init(&e->auto_lane, true);
	}
	atomic_init(&e->knobs.lane_bytes, lane);
}

struct engine *engine_create(const struct engine_config *cfg, int initial_threads)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	e->cfg = *cfg;
	if (e->cfg.max_threads < 1)
		e->cfg.max_threads = 1;
	if (!cfg->fd_budget)
		e->cfg.max_threads = fd_limited_threads(e->cfg.max_threads);
	if (initial_threads < 1)
		initial_threads = 1;
	if (initial_threads > e->cfg.max_threads)
		initial_threads = e->cfg.max_threads;
	if (e->cfg.max_retries == 0)
		e->cfg.max_retries = 64;
	atomic_init(&e->knobs.active_threads, initial_threads);
	atomic_init(&e->knobs.sort_policy, cfg->sort_policy);
	atomic_init(&e->knobs.sort_threshold, cfg->sort_threshold ? cfg->sort_threshold : 10000);
	atomic_init(&e->knobs.sort_batch, 100000);
	atomic_init(&e->knobs.getdents_size, cfg->getdents_size ? cfg->getdents_size : 64 * 1024);
	atomic_init(&e->knobs.op_interval_ns, cfg->op_interval_ns);
	/* Developer override for experiments; the controller owns it otherwise. */
	atomic_init(&e->knobs.dir_share, (unsigned)env_int(ENV_DIR_SHARE, DIR_SHARE_AUTO));
	atomic_init(&e->knobs.trial_plans, 0);
	int rev = env_flag(ENV_REVERSE, -1);
	atomic_init(&e->knobs.reverse_policy, rev < 0 ? SORT_AUTO : rev ? SORT_ALWAYS : SORT_NEVER);
	init_lane_knobs(e);
	e->seen_active = initial_threads;

	pthread_mutex_init(&e->qlock, NULL);
	pthread_cond_init(&e->work_cond, NULL);
	pthread_cond_init(&e->park_cond, NULL);
	pthread_cond_init(&e->mem_cond, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&e->done_cond, &ca);
	pthread_condattr_destroy(&ca);

	unsigned budget = cfg->fd_budget ? cfg->fd_budget : default_fd_budget(e->cfg.max_threads);
	fdc_init(&e->fdc, budget);

	int n = e->cfg.max_threads;
	e->workers = xcalloc((size_t)n, sizeof(*e->workers));
	/* one more slot of counters: the lane's, after the workers' */
	size_t nstats = (size_t)n + 1;
	if (posix_memalign((void **)&e->stats, 64, nstats * sizeof(*e->stats)) != 0)
		xalloc_die();
	memset(e->stats, 0, nstats * sizeof(*e->stats));
	e->lane = lane_new(e, &e->stats[n], e->cfg.free_rate);

	for (int i = 0; i < n; i++) {
		struct worker *w = &e->workers[i];
		w->e = e;
		w->id = i;
		w->st = &e->stats[i];
		w->io_read_bytes = -1; /* its thread looks when it starts */
	}
	int got = engine_spawn_workers(e, initial_threads);
	if (got < 1)
		got = 1; /* none: engine_remove_tree runs worker 0 in the caller */
	if (got < initial_threads) {
		pthread_mutex_lock(&e->qlock); /* the workers read seen_active under it */
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
	pthread_cond_broadcast(&e->mem_cond);
	pthread_mutex_unlock(&e->qlock);
	lane_destroy(e->lane); /* it may remove directories: before the fd cache goes */
	int started = atomic_load(&e->nstarted);
	for (int i = 0; i < e->cfg.max_threads; i++) {
		struct worker *w = &e->workers[i];
		if (i < started && !w->joined)
			pthread_join(w->thread, NULL);
		free(w->dbuf);
		free(w->rev);
		free(w->newdirs);
		free(w->ents);
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
	free(e->donated); /* the steal protocol's token table (steal.c) */
	fdc_destroy(&e->fdc);
	pthread_mutex_destroy(&e->qlock);
	pthread_cond_destroy(&e->work_cond);
	pthread_cond_destroy(&e->park_cond);
	pthread_cond_destroy(&e->mem_cond);
	pthread_cond_destroy(&e->done_cond);
	free(e->workers);
	free(e->stats);
	free(e);
}

void engine_settings(const struct engine *e, struct engine_settings *out)
{
	const struct engine_knobs *k = &e->knobs;
	*out = (struct engine_settings){
		.active_threads = atomic_load(&k->active_threads),
		.sort_policy = atomic_load(&k->sort_policy),
		.sort_threshold = atomic_load(&k->sort_threshold),
		.sort_batch = atomic_load(&k->sort_batch),
		.getdents_size = atomic_load(&k->getdents_size),
		.op_interval_ns = atomic_load(&k->op_interval_ns),
	};
}
int engine_active_threads(const struct engine *e)
{
	return atomic_load(&e->knobs.active_threads);
}
void engine_set_pace(struct engine *e, uint64_t ns)
{
	atomic_store(&e->knobs.op_interval_ns, ns);
}
int engine_max_threads(const struct engine *e)
{
	return e->cfg.max_threads;
}
pid_t engine_worker_tid(const struct engine *e, int i)
{
	return atomic_load(&e->workers[i].tid);
}

int engine_set_active(struct engine *e, int n)
{
	if (n < 1)
		n = 1;
	if (n > e->cfg.max_threads)
		n = e->cfg.max_threads;
	pthread_mutex_lock(&e->qlock);
	int got = engine_spawn_workers(e, n);
	if (got < n)
		n = got > 0 ? got : 1;
	atomic_store(&e->knobs.active_threads, n);
	pthread_cond_broadcast(&e->park_cond);
	pthread_cond_broadcast(&e->work_cond);
	pthread_mutex_unlock(&e->qlock);
	return n;
}
const struct worker_stats *engine_worker_stats(const struct engine *e, int i)
{
	return &e->stats[i];
}

void engine_request_stop(struct engine *e)
{
	e->halt = 1; /* the loops over entries check this one */
	e->stop = 1; /* async-signal-safe; waiters notice within one tick */
}

bool engine_stopping(const struct engine *e)
{
	return e->stop;
}

bool engine_join_stopped(struct engine *e, unsigned timeout_ms)
{
	pthread_mutex_lock(&e->qlock);
	e->halt = 1;
	e->stop = 1;
	pthread_cond_broadcast(&e->work_cond);
	pthread_cond_broadcast(&e->park_cond);
	pthread_cond_broadcast(&e->mem_cond);
	pthread_mutex_unlock(&e->qlock);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl); /* pthread_timedjoin_np's clock */
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
	return lane_join_until(e->lane, &dl) && all;
}

void engine_set_cold(struct engine *e)
{
	atomic_store_explicit(&e->cold, true, memory_order_relaxed);
}

void engine_totals(const struct engine *e, struct engine_totals *t)
{
	memset(t, 0, sizeof(*t));
	/* the workers' slots and the lane's after them */
	for (int i = 0; i <= e->cfg.max_threads; i++) {
		const struct worker_stats *s = &e->stats[i];
#define SUM(f) t->f += atomic_load_explicit(&s->f, memory_order_relaxed)
		SUM(files);
		SUM(dirs);
		SUM(errors);
		SUM(syscalls);
		SUM(getdents_calls);
		SUM(getdents_bytes);
		SUM(unlink_ns);
		SUM(unlink_calls);
		SUM(busy_ns);
		SUM(reads_timed);
		SUM(reads_waited);
		SUM(heavy_splits);
		SUM(heavy_lanes);
		for (int b = 0; b < ENGINE_HIST_BUCKETS; b++)
			SUM(unlink_hist[b]);
		for (int p = 0; p < PLAN_COUNT; p++) {
			SUM(plan[p].reads);
			SUM(plan[p].unlinks);
			SUM(plan[p].unlink_ns);
		}
#undef SUM
	}
	t->cold = atomic_load_explicit(&e->cold, memory_order_relaxed);
	lane_totals(e->lane, &t->lane);
}

/* ------------------------------------------------------------------ */
/* The watchdog                                                         */

/* Worker W inside the same unlinkat (the same syscall count, the in_unlink
 * mark set) since the watchdog first saw it there, for watchdog_ns or more.
 * No clock on the worker's side: the count says it is the same call. */
static bool stuck_in_unlink(struct engine *e, struct worker *w, uint64_t now)
{
	uint64_t sc = atomic_load_explicit(&w->st->syscalls, memory_order_relaxed);
	bool in = atomic_load_explicit(&w->st->in_unlink, memory_order_relaxed) == 1;
	if (!in || sc != w->wd_syscalls || !w->wd_since) {
		w->wd_syscalls = sc;
		w->wd_since = in ? now : 0;
		return false;
	}
	return now - w->wd_since >= e->watchdog_ns;
}

/* The CPU time of worker W's thread, in ns (0 if it cannot be read). */
static uint64_t worker_cpu_ns(const struct worker *w)
{
	clockid_t cid;
	struct timespec ts;
	if (atomic_load_explicit(&w->tid, memory_order_relaxed) <= 0 ||
	    pthread_getcpuclockid(w->thread, &cid) != 0 || clock_gettime(cid, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Since the watchdog's last look no worker used the CPU or ended a system
 * call: every one of them waits, and not for a file's size, which keeps
 * its unlinker on the CPU or ending reads. */
static bool stalled(struct engine *e, int started)
{
	bool moved = false;
	for (int i = 0; i < started; i++) {
		struct worker *w = &e->workers[i];
		uint64_t cpu = worker_cpu_ns(w);
		moved |= cpu == 0 || cpu != w->wd_cpu_ns;
		w->wd_cpu_ns = cpu;
	}
	return !moved;
}

/* The lane from now on, at ENGINE_AUTO_LANE_BYTES unless it is on already. */
static void auto_lane_on(struct engine *e)
{
	if (atomic_exchange(&e->auto_lane, true))
		return;
	uint64_t off = 0;
	atomic_compare_exchange_strong(&e->knobs.lane_bytes, &off, ENGINE_AUTO_LANE_BYTES);
}

/* Every tick of the thread waiting for the tree (qlock held): which workers
 * are stuck in one unlinkat (a huge file met before the lane was on), the
 * workers that run in their place, and the auto lane for the rest of the
 * run. */
static void watchdog(struct engine *e)
{
	uint64_t now = now_ns();
	int started = atomic_load(&e->nstarted), stuck = 0, waiting = 0;
	for (int i = 0; i < started; i++) {
		struct worker *w = &e->workers[i];
		bool waits = atomic_load_explicit(&w->st->in_unlink, memory_order_relaxed) ==
			     LANE_WAITING;
		bool s = !waits && stuck_in_unlink(e, w, now);
		atomic_store_explicit(&w->in_lane, s || waits, memory_order_relaxed);
		stuck += s;
		waiting += waits;
	}
	if (stuck)
		auto_lane_on(e);
	int active = atomic_load_explicit(&e->knobs.active_threads, memory_order_relaxed);
	int extra = stuck + waiting;
	if (active + extra > e->cfg.max_threads)
		extra = e->cfg.max_threads - active > 0 ? e->cfg.max_threads - active : 0;
	/* Workers stuck without using the CPU while nobody else gets anywhere
	 * wait for something that is not the file's size (a frozen
	 * filesystem): one more worker would wait there too. */
	if (stalled(e, started) && extra > e->lane_extra)
		extra = e->lane_extra;
	if (extra == e->lane_extra)
		return;
	int got = engine_spawn_workers(e, active + extra) - active;
	e->lane_extra = got > 0 ? (got < extra ? got : extra) : 0;
	pthread_cond_broadcast(&e->park_cond);
	pthread_cond_broadcast(&e->work_cond);
}

bool engine_worker_in_lane(const struct engine *e, int i)
{
	return atomic_load_explicit(&e->workers[i].in_lane, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* The caller's driver                                                  */

/* No worker thread could be started (engine_spawn_workers): the caller's
 * thread is worker 0, running tasks until END (ns) or until none is left.
 * With one worker nothing waits for helpers, so the stack empties only at
 * the end. True if it found nothing to run. */
static bool run_in_caller(struct engine *e, uint64_t end)
{
	struct worker *w = &e->workers[0];
	atomic_store(&w->tid, (pid_t)syscall(SYS_gettid));
	if (w->io_read_bytes < 0)
		w->io_read_bytes = taskio_read_bytes();
	while (now_ns() < end) {
		uintptr_t task = 0;
		pthread_mutex_lock(&e->qlock);
		if (!e->op_done && !e->stop && e->qlen > 0)
			task = e->stack[--e->qlen];
		pthread_mutex_unlock(&e->qlock);
		if (!task)
			return true;
		engine_run_task(w, task);
	}
	return false;
}

/* The allocation-group shift for a tree in DIRFD (engine_pop_task's order),
 * from the parent's filesystem: the tree's, but for a mount point, where a
 * wrong shift only orders directories no better than the stack does. The
 * controller's engine_ag_order for this operand has read it already. */
static unsigned ag_order_shift(struct engine *e, int dirfd)
{
	if (e->ag_next_valid && e->ag_next_fd == dirfd) {
		e->ag_next_valid = false;
		return e->ag_next_shift;
	}
	e->ag_next_valid = false;
	return env_flag(ENV_AG_ORDER, 1) ? fsinfo_xfs_ag_shift(dirfd) : 0;
}

void engine_ag_order(struct engine *e, int dirfd, struct engine_ag_order *out)
{
	*out = (struct engine_ag_order){ .off = !env_flag(ENV_AG_ORDER, 1) };
	if (!out->off)
		out->groups = fsinfo_xfs_ags(dirfd, &out->shift);
	e->ag_next_valid = true;
	e->ag_next_fd = dirfd;
	e->ag_next_shift = out->shift;
}

bool engine_begin_tree(struct engine *e, int dirfd, const char *name, const char *display,
		       const struct stat *st)
{
	/* No second lstat here: the open checks that the directory is still
	 * the one the caller saw, and one that is gone by then fails there as
	 * any vanished directory does. */
	dnode_init_anchor(&e->anchor, dirfd);
	e->display = display;
	e->op_done = false;

	e->ag_shift = ag_order_shift(e, dirfd);
	struct dnode *root = dnode_new(&e->anchor, name, strlen(name));
	root->dev = st->st_dev;
	root->ino = st->st_ino;
	if (!engine_push_tasks(e, &(struct subdir){ .n = root }, 1)) {
		struct strbuf sb = STRBUF_INIT;
		quote_append(&sb, display, strlen(display));
		warn_errno(ENOMEM, "cannot remove %s", sb_str(&sb));
		sb_free(&sb);
		dnode_free(root);
		return false;
	}
	return true;
}

bool engine_end_tree(struct engine *e)
{
	if (!e->op_done)
		return false;
	return !(atomic_load(&e->anchor.flags) & DN_FAILED);
}

bool engine_remove_tree(struct engine *e, int dirfd, const char *name, const char *display,
			const struct stat *st)
{
	if (!engine_begin_tree(e, dirfd, name, display, st))
		return false;
	while (!engine_wait(e, 100))
		;
	return engine_end_tree(e);
}

void engine_begin_serve(struct engine *e, const atomic_bool *stop)
{
	e->op_done = false;
	e->serve_stop = stop;
	atomic_store(&e->serving, true);
}

void engine_end_serve(struct engine *e)
{
	atomic_store(&e->serving, false);
	e->serve_stop = NULL;
}

void engine_serve(struct engine *e, const atomic_bool *stop)
{
	engine_begin_serve(e, stop);
	while (!engine_wait(e, 100))
		;
	engine_end_serve(e);
}

/* What the caller waits for: its operand, or the serving's stop flag. */
static bool finished(struct engine *e)
{
	return atomic_load(&e->serving) ? atomic_load(e->serve_stop) : e->op_done;
}

/* Without workers: the caller runs the tasks; where none is queued (the
 * directories given away come back as release tasks, adopted ones arrive)
 * it looks again shortly. */
static bool wait_in_caller(struct engine *e, uint64_t end)
{
	bool empty = run_in_caller(e, end);
	if (finished(e) || e->stop)
		return true;
	/* Nothing queued, nothing out with another rank, no serving: nothing
	 * can come that would finish the operand. */
	if (empty && !atomic_load(&e->serving) && !engine_remote_out(e))
		return true;
	uint64_t now = now_ns();
	if (now < end) {
		uint64_t nap = atomic_load(&e->serving) ? 10000000u : 1000000u;
		if (nap > end - now)
			nap = end - now;
		nanosleep(&(struct timespec){ 0, (long)nap }, NULL);
	}
	return finished(e) || e->stop;
}

bool engine_wait(struct engine *e, unsigned ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
	if (atomic_load(&e->nstarted) == 0)
		return wait_in_caller(e, end);
	/* The workers run; the caller waits in steps of at most 100 ms, each
	 * followed by the watchdog. */
	pthread_mutex_lock(&e->qlock);
	while (!finished(e) && !e->stop) {
		uint64_t now = now_ns();
		if (now >= end)
			break;
		uint64_t step = end - now < 100000000u ? end - now : 100000000u;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)step;
		while (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&e->done_cond, &e->qlock, &ts);
		if (!finished(e) && !e->stop)
			watchdog(e);
	}
	if (e->stop) {
		/* wake everyone so they notice and leave their loops */
		pthread_cond_broadcast(&e->work_cond);
		pthread_cond_broadcast(&e->park_cond);
		pthread_cond_broadcast(&e->mem_cond);
	}
	bool done = finished(e) || e->stop;
	pthread_mutex_unlock(&e->qlock);
	return done;
}
