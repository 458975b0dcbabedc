// SPDX-License-Identifier: GPL-3.0-or-later
#include "hold/deleter.h"
#include "ctl/controller.h"
#include "ctl/steer.h"
#include "engine/engine.h"
#include "engine/fsinfo.h"
#include "hold/left.h"
#include "hold/place.h"
#include "hold/polite.h"
#include "hold/record.h"
#include "hold/state.h"
#include "lib/clock.h"
#include "lib/quote.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_WHO_PGRP 2
#define IOPRIO_BE_NORM 4

bool deleter_spawn(int placefd, const char *place, const struct deleter_options *o)
{
	/* The lock first, taken here and handed to the deleter: a deleter runs
	 * from before the caller returns, and one already running (the lock
	 * taken) deletes what was just held (drain's last look). */
	int lock = place_lock(placefd);
	if (lock < 0)
		return errno == EAGAIN;
	/* The log is opened here, where its checks can refuse it and a
	 * failure is the caller's to report, so that the child opens nothing
	 * that could block (a FIFO in its name) or lead elsewhere. */
	int log = state_log_open(placefd, place, NULL);
	int err = log < 0 ? errno : 0;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 && !err)
		err = errno;
	if (err) {
		close(lock);
		if (log >= 0)
			close(log);
		if (null >= 0)
			close(null);
		errno = err;
		return false;
	}
	char rate[24], ops[24];
	snprintf(rate, sizeof rate, "%" PRIu64, o->free_rate);
	snprintf(ops, sizeof ops, "%" PRIu64, o->max_ops);
	char *argv[] = { "adaptrm",
			 DELETER_ARG,
			 (char *)place,
			 rate,
			 ops,
			 o->stats ? "stats" : "-",
			 DELETER_LOCK_FD_ARG,
			 NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, null, 0);
	posix_spawn_file_actions_adddup2(&fa, log, 1);
	posix_spawn_file_actions_adddup2(&fa, log, 2);
	posix_spawn_file_actions_adddup2(&fa, lock, DELETER_LOCK_FD);
	posix_spawnattr_init(&at);
	/* Its own session, no terminal: a hangup or ^C of the caller's
	 * terminal does not reach it. Spawned without a wait, so that the
	 * caller returns at once; it is reaped by init once the caller is
	 * gone. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	fflush(NULL);
	pid_t pid;
	err = posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (!err)
		place_lock_note_pid(lock, pid);
	close(lock);
	close(log);
	close(null);
	errno = err;
	return err == 0;
}

/* The lowest CPU priority, before any worker starts: the workers inherit
 * it. It costs nothing while the CPUs are otherwise idle. */
static void be_polite(void)
{
	if (setpriority(PRIO_PROCESS, 0, 19) < 0)
		fprintf(stderr, "adaptrm deleter: nice 19 refused: %s\n", strerror(errno));
}

/* The idle I/O class while backing off, the normal one otherwise, for every
 * thread at once: the deleter leads its own process group (its session). */
static void set_io_class(bool idle)
{
	int prio = idle ? IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT :
			  IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT | IOPRIO_BE_NORM;
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PGRP, 0, prio) < 0)
		fprintf(stderr, "adaptrm deleter: I/O class refused: %s\n", strerror(errno));
}

struct deleter {
	const char *place;
	int placefd;
	dev_t dev;
	struct polite_device devs; /* the block devices below it */
	struct engine *engine;
	struct steer *steer;	/* the engine's count and pace: politeness, then policy */
	struct controller *ctl; /* the foreground's, steering while nobody is hurt */
	bool in_tree;		/* the controller has a tree to steer */
	int forced_threads;	/* backing off: the workers it allows (0: none) */
	bool idle_io;
	bool cpu_idle_ok; /* it may leave the idle CPU policy again */
	bool cpu_idle;	  /* its threads run the idle CPU policy */
	uint64_t base_interval_ns;
	/* politeness between ticks */
	uint64_t last_ns, dev_sectors, own_bytes, unlink_ns, unlink_calls, floor_ns;
	uint64_t runq_ns;  /* the workers' run-queue wait at the last tick */
	uint64_t paced_ns; /* polite_decide's pacing, whatever a yield holds */
	bool have_dev;
	bool in_memory;			   /* tmpfs, ramfs */
	bool have_flushes;		   /* the device counts its flush requests */
	uint64_t dev_flushes, own_flushes; /* at the last tick; ours since */
	struct polite_sync sync;
	uint64_t backoff_ns; /* for the log: the time polite_decide backed off */
	bool stats;	     /* --stats: the log tells each probe's finding */
	unsigned ticks;
	time_t started;
	uint64_t begin_ns;
	struct held_record *current;
};

static const char *state_name(enum polite_state s)
{
	return s == POLITE_YIELD ? "yield" : s == POLITE_PROBE ? "probe" : "run";
}

static void write_status(struct deleter *d, const struct engine_totals *t, uint64_t interval)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf,
			 "pid %d\nentry %s\nfiles %" PRIu64 "\ndirs %" PRIu64 "\ninterval_ns %" PRIu64
			 "\nstate %s\nyields %" PRIu64 "\nstarted %lld\nupdated %lld\n",
			 (int)getpid(), d->current ? d->current->name : "-", t->files, t->dirs,
			 interval, state_name(d->sync.state), d->sync.yields, (long long)d->started,
			 (long long)time(NULL));
	int fd = openat(d->placefd, ".status.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	bool ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	if (ok)
		renameat(d->placefd, ".status.tmp", d->placefd, "status");
}

/* The idle CPU policy with the idle I/O class, where the deleter may leave
 * it again: a thread of any other policy that wakes preempts an idle-policy
 * one at once, where nice 19 may first run out its slice, and the threads
 * that serve others' I/O (a loop device's worker, the softirq thread that
 * completes a request) would wait that out. Beside busy CPUs the idle
 * policy gets almost no CPU at all, so it is not kept while nobody else
 * uses the device. */
static void set_cpu_policy(struct deleter *d, bool idle)
{
	d->cpu_idle = idle;
	if (!polite_cpu_idle(idle))
		fprintf(stderr, "adaptrm deleter: CPU policy refused: %s\n", strerror(errno));
}

/* Others' flush requests on the device since the last tick: all of them
 * but those of our own commits. */
static uint64_t others_flushes(struct deleter *d)
{
	uint64_t f;
	if (!polite_device_flushes(&d->devs, &f))
		return 0;
	uint64_t n = f - d->dev_flushes;
	n = n > d->own_flushes ? n - d->own_flushes : 0;
	d->dev_flushes = f;
	d->own_flushes = 0;
	return n;
}

static void sleep_ns(uint64_t ns)
{
	nanosleep(&(struct timespec){ (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) }, NULL);
}

/* polite_sync_step on OTHERS flushes since the last tick; with --stats the log
 * tells what each probe found, the window's ticks that began it. */
static enum polite_action sync_step(struct deleter *d, uint64_t now, uint64_t others)
{
	if (!d->have_flushes)
		return POLITE_GO;
	enum polite_state was = d->sync.state;
	enum polite_action act = polite_sync_step(&d->sync, now, others);
	if (d->stats && was == POLITE_PROBE && d->sync.state != POLITE_PROBE)
		fprintf(stderr, "adaptrm deleter %d: %u ticks of %u with flushes: %s\n",
			(int)getpid(), d->sync.trigger_ticks, POLITE_SYNC_RING,
			d->sync.state == POLITE_YIELD ? "others' syncs, yielding" :
							"our own commits, running on");
	return act;
}

/* A yield's burst: the hold lifted for a moment right after a commit ends,
 * when the next of others' is furthest away, then our own commit at once,
 * so that what the burst dirtied (the status file too) waits for no sync of
 * theirs. */
static void burst(struct deleter *d, const struct engine_totals *t)
{
	uint64_t f0, f, end = now_ns() + POLITE_BURST_ALIGN_NS;
	if (polite_device_flushes(&d->devs, &f0))
		while (now_ns() < end && polite_device_flushes(&d->devs, &f) && f == f0)
			sleep_ns(200000);
	steer_polite(d->steer, d->forced_threads, d->base_interval_ns);
	steer_apply(d->steer);
	sleep_ns(POLITE_BURST_NS);
	steer_polite(d->steer, d->forced_threads, ENGINE_PACE_HOLD);
	steer_apply(d->steer);
	write_status(d, t, 0);
	bool counted = polite_device_flushes(&d->devs, &f0);
	syncfs(d->placefd);
	if (counted && polite_device_flushes(&d->devs, &f))
		d->own_flushes += f - f0;
}

/* Our mean unlink time since the last tick per running worker, without the
 * time the workers waited for a CPU (0: too few unlinks to tell). */
static uint64_t own_latency(struct deleter *d, const struct engine_totals *t, int running)
{
	uint64_t calls = t->unlink_calls - d->unlink_calls, runq = 0;
	if (calls < 8)
		return 0;
	uint64_t busy = t->unlink_ns - d->unlink_ns;
	if (polite_runq_ns(&runq)) {
		uint64_t waited = runq - d->runq_ns;
		busy = busy > waited ? busy - waited : 0;
		d->runq_ns = runq;
	}
	uint64_t ns = busy / calls / (running > 0 ? running : 1);
	if (ns && (!d->floor_ns || ns < d->floor_ns))
		d->floor_ns = ns;
	d->unlink_ns = t->unlink_ns;
	d->unlink_calls = t->unlink_calls;
	return ns;
}

/* Every tick: measure, decide (polite_decide, then polite_sync_step over
 * it), and give the steering the politeness's word; the controller's comes
 * after it, and the steering applies both. */
static void tick(struct deleter *d)
{
	struct engine *e = d->engine;
	uint64_t now = now_ns(), dt = now - d->last_ns;
	if (dt < 100000000ull)
		return;
	struct engine_totals t;
	engine_totals(e, &t);
	struct polite_in in = {
		.in_memory = d->in_memory,
		.interval_ns = d->paced_ns,
		.min_interval_ns = d->base_interval_ns,
	};
	uint64_t sect, own;
	if (d->have_dev && polite_device_reads(&d->devs, &sect) && polite_own_reads(&own)) {
		uint64_t dev_b = (sect - d->dev_sectors) * 512, own_b = own - d->own_bytes;
		in.have_device = true;
		in.others_read_bps = dev_b > own_b ? (dev_b - own_b) * 1000000000ull / dt : 0;
		in.others_seen = dev_b > own_b;
		d->dev_sectors = sect;
		d->own_bytes = own;
	}
	uint64_t others = d->have_flushes ? others_flushes(d) : 0;
	/* Flushes are others' only once a probe found them so (a yield): our
	 * own commits flush the device too. */
	in.others_seen |= d->sync.state == POLITE_YIELD;
	in.own_latency_ns = own_latency(d, &t, engine_active_threads(e));
	in.floor_latency_ns = d->floor_ns;
	struct polite_out out;
	polite_decide(&in, &out);
	d->paced_ns = out.paced_ns;
	if (out.backing_off)
		d->backoff_ns += dt;
	enum polite_action act = sync_step(d, now, others);
	if (act != POLITE_GO) {
		out.threads = 1;
		out.idle_io = true;
	}
	d->forced_threads = out.threads;
	steer_polite(d->steer, out.threads, act == POLITE_GO ? out.interval_ns : ENGINE_PACE_HOLD);
	if (d->ctl && d->in_tree)
		controller_tick(d->ctl);
	steer_apply(d->steer);
	if (out.idle_io != d->idle_io)
		set_io_class(d->idle_io = out.idle_io);
	if (d->cpu_idle_ok && out.idle_io != d->cpu_idle)
		set_cpu_policy(d, out.idle_io);
	if (act == POLITE_BURST)
		burst(d, &t);
	d->last_ns = now;
	/* The status file is metadata too: while probing it is not written,
	 * while yielding only as the yield begins and in its bursts. */
	bool began = d->sync.state == POLITE_YIELD && d->sync.since_ns == now;
	if ((++d->ticks % 10 == 0 && act == POLITE_GO) || began)
		write_status(d, &t, out.interval_ns);
}

/* PLACE/NAME, quoted as GNU quotes a file name (valid until the next call
 * on this thread with quote_n's slot 0). */
static const char *in_place(const struct deleter *d, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/%s", d->place, name);
	const char *q = quote_n(0, sb_str(&sb));
	sb_free(&sb);
	return q;
}

/* The directory of the absolute PATH, opened without following a symlink
 * (the path was made from /proc/self/fd: it has none); its last component
 * into *BASE. -1 if there is none. */
static int open_parent(const char *path, char **copy, const char **base)
{
	*copy = xstrdup(path);
	char *slash = strrchr(*copy, '/');
	if (!slash || !slash[1] || path[0] != '/')
		return -1;
	*slash = '\0';
	*base = slash + 1;
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	return (int)syscall(SYS_openat2, AT_FDCWD, (*copy)[0] ? *copy : "/", &how, sizeof how);
}

/* R's entry could not be removed entirely. GNU rm leaves what it cannot
 * remove where it was, reachable by its owner, and says so: what is left
 * goes back to R's path, unless something took that path meanwhile (then it
 * stays held for --resume), and a note tells --pending and --wait. */
static void put_back(struct deleter *d, struct held_record *r)
{
	bool back = false;
	int err = ENOENT;
	char *copy = NULL;
	const char *base = NULL;
	if (r->path) {
		int pfd = open_parent(r->path, &copy, &base);
		err = errno;
		if (pfd >= 0) {
			back = renameat2(d->placefd, r->name, pfd, base, RENAME_NOREPLACE) == 0;
			err = errno;
			close(pfd);
		}
	}
	free(copy);
	const char *shown = quote_n(0, r->path ? r->path : r->name);
	if (back) {
		held_record_remove(d->placefd, r);
		fprintf(stderr,
			"adaptrm deleter: %s was not removed entirely: what is left is back "
			"at its path\n",
			shown);
	} else {
		fprintf(stderr,
			"adaptrm deleter: %s was not removed entirely, and cannot go back to its "
			"path (%s): it stays held in %s\n",
			shown, strerror(err), quote_n(1, d->place));
	}
	if (left_note_write(d->placefd, r->path ? r->path : r->name, back) != 0)
		fprintf(stderr, "adaptrm deleter: cannot note what was left of %s\n", shown);
}

/* One recorded entry: checked against its record, then deleted. True if it
 * is gone (its record then removed too). */
enum outcome { GONE, LEFT, NOT_YET };

static enum outcome delete_entry(struct deleter *d, struct held_record *r)
{
	struct stat st;
	if (fstatat(d->placefd, r->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return LEFT;
		/* A record in the entry's name goes with it. A record file
		 * is written before its entry moves in: a young one without
		 * its entry is one whose rename may still come. Past
		 * DELETER_MOVE_S its writer failed the rename or died. */
		if (r->in_name)
			return GONE;
		if (time(NULL) - r->time < DELETER_MOVE_S)
			return NOT_YET;
		held_record_remove(d->placefd, r);
		return GONE;
	}
	if ((uint64_t)st.st_dev != r->dev || (uint64_t)st.st_ino != r->ino) {
		fprintf(stderr, "adaptrm deleter: %s is not what was held (%s): left alone\n",
			in_place(d, r->name), quote_n(1, r->path ? r->path : ""));
		return LEFT;
	}
	d->current = r;
	bool ok;
	if (S_ISDIR(st.st_mode)) {
		/* The controller's start point goes through the steering,
		 * where a back-off's ceiling still bounds it. */
		if (d->ctl)
			controller_begin_tree(d->ctl, d->placefd, r->name);
		d->in_tree = d->ctl != NULL;
		ok = engine_begin_tree(d->engine, d->placefd, r->name, r->path, &st);
		while (ok && !engine_wait(d->engine, 100))
			tick(d);
		ok = ok && engine_end_tree(d->engine);
		d->in_tree = false;
		/* what ran against what the controller chose: apart only while
		 * backing off or yielding */
		int running = engine_active_threads(d->engine);
		int chosen = controller_threads(d->ctl);
		if (d->ctl)
			controller_end_tree(d->ctl);
		if (d->stats)
			fprintf(stderr,
				"adaptrm deleter %d: %s: the controller's %d thread%s, %d running at the "
				"end\n",
				(int)getpid(), r->name, chosen, chosen == 1 ? "" : "s", running);
	} else
		ok = unlinkat(d->placefd, r->name, 0) == 0 || errno == ENOENT;
	d->current = NULL;
	/* The counts as the entry goes, before its record: a --wait that finds
	 * the record gone reads them whole (not while probing, which listens
	 * for others' metadata writes alone). */
	if (ok && d->sync.state != POLITE_PROBE) {
		struct engine_totals t;
		engine_totals(d->engine, &t);
		write_status(d, &t, d->base_interval_ns);
	}
	if (ok)
		held_record_remove(d->placefd, r);
	else if (!engine_stopping(d->engine))
		put_back(d, r);
	return ok ? GONE : LEFT;
}

/* A side file whose entry is not there: its writer's rename failed or it
 * died before it. Removed once it is older than DELETER_MOVE_S, so that a
 * rename still to come finds it. */
static void drop_orphan_side(struct deleter *d, const char *file)
{
	char name[HELD_NAME_MAX];
	struct stat st;
	if (!held_side_entry(file, name) || fstatat(d->placefd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT || fstatat(d->placefd, file, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    time(NULL) - st.st_mtime >= DELETER_MOVE_S)
		unlinkat(d->placefd, file, 0);
}

/* One pass over the records: how many entries went. *LEFT counts the
 * records that stay (corrupted, mismatched, failed), *YOUNG those whose
 * entry has not moved in yet. */
static size_t one_pass(struct deleter *d, size_t *left, size_t *young)
{
	int dfd = openat(d->placefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!dir)
		return 0;
	size_t done = 0;
	*left = *young = 0;
	struct dirent *de;
	while ((de = readdir(dir)) && !engine_stopping(d->engine)) {
		struct held_record r;
		int err = held_entry_read(d->placefd, de->d_name, &r);
		if (err == ENOENT && de->d_name[0] != '.')
			drop_orphan_side(d, de->d_name);
		if (err == ENOENT)
			continue; /* no record: never touched */
		if (err) {
			fprintf(stderr, "adaptrm deleter: %s: %s: left alone\n",
				in_place(d, de->d_name),
				err == EINVAL ? "not a valid record" : strerror(err));
			++*left;
			continue;
		}
		enum outcome o = r.uid != geteuid() ? LEFT : delete_entry(d, &r);
		done += o == GONE;
		*left += o == LEFT;
		*young += o == NOT_YET;
		held_record_free(&r);
	}
	closedir(dir);
	return done;
}

/* Records in the place, valid or not. */
static size_t count_records(int placefd)
{
	int dfd = openat(placefd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	size_t n = 0;
	struct dirent *de;
	while (dir && (de = readdir(dir)))
		n += held_is_record(de->d_name);
	if (dir)
		closedir(dir);
	return n;
}

/* Passes while they make progress; then the lock goes, and one more look
 * catches a record written while the lock was still held (its writer found
 * the lock taken and left it to us). LOCK is the lock handed over by the
 * spawner, or -1: taken here. False if it never held the lock with records
 * in the place: another deleter did the work, and this one has nothing to
 * say of it. */
static bool drain(struct deleter *d, int lock)
{
	for (bool worked = false;;) {
		if (lock < 0)
			lock = place_lock(d->placefd);
		if (lock < 0)
			return worked; /* another deleter has it */
		place_lock_note_pid(lock, getpid());
		size_t left = 0, young = 0;
		/* Records found under the lock: this deleter's work to report. */
		worked = worked || count_records(d->placefd) > 0;
		while (one_pass(d, &left, &young) > 0 || young) {
			if (young) {
				struct timespec ts = { 0, 100000000 };
				nanosleep(&ts, NULL);
			}
		}
		close(lock);
		lock = -1;
		if (count_records(d->placefd) <= left || engine_stopping(d->engine))
			return true;
	}
}

/* The lock the spawner handed over on DELETER_LOCK_FD, if ARG says there is
 * one and it is the lock file of the place PLACEFD; else -1. */
static int handed_lock(int placefd, const char *arg)
{
	struct stat a, b;
	if (strcmp(arg, DELETER_LOCK_FD_ARG) != 0 || fstat(DELETER_LOCK_FD, &a) < 0 ||
	    fstatat(placefd, PLACE_LOCK, &b, AT_SYMLINK_NOFOLLOW) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return -1;
	fcntl(DELETER_LOCK_FD, F_SETFD, FD_CLOEXEC);
	return DELETER_LOCK_FD;
}

static struct engine *make_engine(uint64_t free_rate, uint64_t max_ops, uint64_t *interval)
{
	struct engine_config cfg = {
		.max_threads = controller_default_max_threads(0),
		.force = true,
		.one_file_system = true, /* nothing held may reach another mount */
		.free_rate = free_rate,
	};
	*interval = max_ops ? 1000000000ull / max_ops : 0;
	cfg.op_interval_ns = *interval;
	return engine_create(&cfg, 1);
}

/* Others already syncing when the deleter starts are heard before its first
 * unlink, and it starts yielding. */
static void listen_first(struct deleter *d)
{
	d->have_flushes = polite_device_flushes(&d->devs, &d->dev_flushes);
	if (!d->have_flushes)
		return;
	enum polite_action a = POLITE_GO;
	for (int i = 0; i < POLITE_LISTEN_TICKS; i++) {
		sleep_ns(POLITE_LISTEN_NS / POLITE_LISTEN_TICKS);
		a = polite_sync_step(&d->sync, now_ns(), others_flushes(d));
	}
	if (a != POLITE_GO) {
		steer_polite(d->steer, 0, ENGINE_PACE_HOLD);
		steer_apply(d->steer);
	}
}

int deleter_main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	int lock = -1;
	struct deleter d = { .place = argv[0], .stats = !strcmp(argv[3], "stats") };
	enum place_check why;
	d.placefd = place_open(d.place, geteuid(), false, &why);
	if (d.placefd < 0) {
		fprintf(stderr, "adaptrm deleter: %s: %s\n", quote_n(0, d.place),
			why == PLACE_FOREIGN ? "not a safe holding place" : strerror(errno));
		return 1;
	}
	if (argc >= 5)
		lock = handed_lock(d.placefd, argv[4]);
	be_polite();
	d.cpu_idle_ok = polite_cpu_idle_reversible();
	set_io_class(d.idle_io = true); /* until the first tick has looked */
	struct stat st;
	fstat(d.placefd, &st);
	d.dev = st.st_dev;
	d.in_memory = fsinfo_type_in_memory(fsinfo_type(d.placefd));
	uint64_t sect;
	d.have_dev = polite_device_find(d.placefd, d.dev, &d.devs) &&
		     polite_device_reads(&d.devs, &sect) && polite_own_reads(&d.own_bytes);
	d.dev_sectors = d.have_dev ? sect : 0;
	d.begin_ns = now_ns();
	d.engine = make_engine(strtoull(argv[1], NULL, 10), strtoull(argv[2], NULL, 10),
			       &d.base_interval_ns);
	d.steer = steer_new(d.engine, d.base_interval_ns);
	listen_first(&d);
	d.last_ns = now_ns();
	d.started = time(NULL);
	struct controller_config cc = { .sort_policy = SORT_AUTO, .steer = d.steer };
	d.ctl = controller_new(d.engine, &cc);
	bool worked = drain(&d, lock);
	/* The summary and the exit at the normal policy: beside busy CPUs the
	 * idle one could wait long for them. */
	if (d.cpu_idle)
		set_cpu_policy(&d, false);
	if (d.ctl) {
		controller_finish(d.ctl);
		controller_free(d.ctl);
	}
	struct engine_totals t;
	engine_totals(d.engine, &t);
	if (d.sync.state == POLITE_YIELD)
		d.sync.yield_ns += now_ns() - d.sync.since_ns;
	if (d.sync.state == POLITE_PROBE)
		d.sync.probe_ns += now_ns() - d.sync.since_ns;
	/* Beside other jobs at nice 19 most of its time can be this wait. */
	uint64_t runq = 0;
	polite_runq_ns(&runq);
	/* A deleter that never held the lock over records deleted nothing: a
	 * summary of its zeros would read as the delete's, and the status file
	 * may be another deleter's. */
	if (d.stats && worked)
		fprintf(stderr,
			"adaptrm deleter %d: %s: removed %" PRIu64 " files, %" PRIu64
			" directories in %.1f s; yielded to others' syncs %" PRIu64
			" times, %.1f s; probed %" PRIu64 " times (%" PRIu64
			" our own commits), %.1f s; backed off %.1f s; its threads waited %.1f s for "
			"a CPU\n",
			(int)getpid(), d.place, t.files, t.dirs,
			(double)(now_ns() - d.begin_ns) / 1e9, d.sync.yields,
			(double)d.sync.yield_ns / 1e9, d.sync.probes, d.sync.own_probes,
			(double)d.sync.probe_ns / 1e9, (double)d.backoff_ns / 1e9,
			(double)runq / 1e9);
	if (worked)
		unlinkat(d.placefd, "status", 0);
	steer_free(d.steer);
	engine_destroy(d.engine);
	close(d.placefd);
	return t.errors ? 1 : 0;
}
