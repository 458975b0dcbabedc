// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm --trace (see trace.h): option parsing, the three ways to get a
 * traced process (run a command, attach to a pid, delete in-process), the
 * sampling loop, and the report. */
#include "trace/trace.h"
#include "cli/options.h"
#include "cli/rm.h"
#include "lib/clock.h"
#include "lib/env.h"
#include "lib/msg.h"
#include "lib/procfile.h"
#include "lib/wrap.h"
#include "lib/xalloc.h"
#include "probes/hist.h"
#include "probes/ksyms.h"
#include "probes/probes.h"
#include "trace/blockio.h"
#include "trace/cgroups.h"
#include "trace/compare.h"
#include "trace/folded.h"
#include "trace/oncpu.h"
#include "trace/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const struct ksyms *probes_ksyms(struct probes *p);

static volatile sig_atomic_t stop_signal;
static bool trace_all; /* --all */

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* --json FILE, --folded FILE and --folded-offcpu FILE, opened (created or truncated) before
 * anything runs, so that a path that cannot be written stops us before the
 * delete, not after it. */
struct out_file {
	FILE *f;
	const char *path;
	bool created;
};
static struct out_file json_out, folded_out, offcpu_out;

/* At exit, an output file still open was never written (the probes did not
 * load, a usage error, die()): no empty file left behind where we made it. */
static void drop_out(struct out_file *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	o->f = NULL;
	if (o->created)
		unlink(o->path);
}

static void drop_outputs(void)
{
	drop_out(&json_out);
	drop_out(&folded_out);
	drop_out(&offcpu_out);
}

static void open_out(struct out_file *o)
{
	static bool registered;
	struct stat st;

	if (!o->path || o->f)
		return;
	o->created = stat(o->path, &st) != 0;
	o->f = fopen(o->path, "we");
	if (!o->f) {
		warn_errno(errno, "cannot write %s", o->path);
		exit(1);
	}
	if (!registered)
		atexit(drop_outputs);
	registered = true;
}

/* Close O after writing it (WRITE_ERR: the writer failed); nonzero on error. */
static int close_out(struct out_file *o, bool write_err)
{
	int status = 0;

	if (!o->f)
		return 0;
	if (fclose(o->f) || write_err) {
		warn_errno(errno, "write error on %s", o->path);
		status = 1;
	}
	o->f = NULL;
	return status;
}

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;
	if (status) {
		fprintf(f, "Try '%s --trace --help' for more information.\n", program_name);
		exit(status);
	}
	fprintf(f,
		"Usage: %s --trace [--json FILE] [--folded FILE] [--folded-offcpu FILE] [--interval SEC] [--no-callers] [--all] -- COMMAND [ARG]...\n"
		"  or:  %s --trace [OPTION]... -p PID\n"
		"  or:  %s --trace [OPTION]... -rf DIR...   (adaptrm's own delete, traced in-process)\n"
		"  or:  %s --trace --compare A.json B.json\n"
		"Trace a delete with eBPF and explain where its time goes: per-syscall\n"
		"latency (strace -c style, with DTrace quantize histograms), lock\n"
		"contention by type, off-CPU time, filesystem and block events, a verdict.\n\n"
		"  --json FILE       also write everything as JSON (schema " TRACE_SCHEMA ")\n"
		"  --folded FILE     write the traced threads' on-CPU stacks, sampled at %d Hz,\n"
		"                    in the folded format of flame graphs (flamegraph.pl,\n"
		"                    inferno, speedscope), root first, counted in samples\n"
		"  --folded-offcpu FILE  the same for their off-CPU wait stacks ('offcpu-D',\n"
		"                    'offcpu-S'), counted in microseconds\n"
		"  --interval SEC    sample every SEC seconds and add a per-interval table\n"
		"  --no-callers      do not record kernel stacks of contended locks\n"
		"  --all             show the histogram of every syscall (default: the deletion\n"
		"                    syscalls with at least 100 calls; the JSON has them all);\n"
		"                    before --compare, every row, not only those that differ\n"
		"  -p PID            attach to a running process and its descendants until\n"
		"                    they exit or Ctrl-C\n"
		"Needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BTF.\n",
		program_name, program_name, program_name, program_name, PROBE_CPU_SAMPLE_HZ);
	exit(0);
}

/* The traced processes' cgroups (cgroups.h): read just before the probes
 * start, so that in-process the reads are not traced themselves, and again
 * after the final read of the probes. */
static struct trace_cgroups cgroups;

static void begin_cgroups(struct trace_result *r, const pid_t *pids, int n)
{
	trace_cgroups_begin(&cgroups, NULL, pids, n);
	r->cgroups = &cgroups;
}

struct sampler {
	struct probes *p;
	struct probe_snapshot *prev, *cur, *delta;
	const struct probe_snapshot *last; /* the most recent read */
	uint64_t start_ns, interval_ns, next_ns;
	uint64_t cgroups_ns; /* when to look for the traced processes' cgroups again */
	bool rows;	     /* record --interval rows (not in-process) */
	bool collected;	     /* the final read is done: FINAL holds it */
	struct probe_snapshot *final;
	struct trace_result *r;
	size_t cap;
};

/* One --interval row: SNAP less the previous row's end. */
static void add_row(struct sampler *s, const struct probe_snapshot *snap)
{
	if (!try_grow(&s->r->iv, &s->cap, (size_t)s->r->niv + 1, 64))
		return;
	probes_snapshot_sub(s->delta, snap, s->prev);
	const struct probe_snapshot *d = s->delta;
	s->r->iv[s->r->niv++] = (struct trace_interval){
		.t_ns = snap->time_ns - s->start_ns,
		.len_ns = d->time_ns,
		.nthreads = snap->nthreads,
		.unlinkat_calls = d->sc[PROBE_NR_UNLINKAT].lat.count,
		.unlinkat_ns = d->sc[PROBE_NR_UNLINKAT].lat.total,
		.unlinkat_p50_ns = hist_quantile(&d->sc[PROBE_NR_UNLINKAT].lat, 0.5),
		.unlinkat_p99_ns = hist_quantile(&d->sc[PROBE_NR_UNLINKAT].lat, 0.99),
		.getdents_calls = d->sc[PROBE_NR_GETDENTS64].lat.count,
		.getdents_ns = d->sc[PROBE_NR_GETDENTS64].lat.total,
		.openat_calls = d->sc[SYS_openat].lat.count,
		.lock_wait_ns = probes_lock_wait_ns(d, 0),
		.rwsem_write_wait_ns = d->lock[PROBE_LCB_F_WRITE].wait.total,
		.blocked_ns = d->misc.offcpu[PROBE_OFFCPU_BLOCKED].total,
		.sleeping_ns = d->misc.offcpu[PROBE_OFFCPU_SLEEPING].total,
		.oncpu_ns = d->misc.oncpu_ns,
		.oncpu_syscall_ns = d->misc.oncpu_syscall_ns,
		.oncpu_wait_syscall_ns = d->misc.oncpu_wait_syscall_ns,
		.preempted_ns = d->misc.offcpu[PROBE_OFFCPU_PREEMPTED].total,
		.other_state_ns = probes_thread_ns(d) - d->misc.oncpu_ns -
				  d->misc.offcpu[PROBE_OFFCPU_BLOCKED].total -
				  d->misc.offcpu[PROBE_OFFCPU_SLEEPING].total -
				  d->misc.offcpu[PROBE_OFFCPU_PREEMPTED].total,
	};
}

/* Read the counters when due (or FORCE: -p's liveness check); every
 * interval record one row. */
/* The first seconds of a trace: a command that moves itself into a cgroup
 * (echo $$ > cgroup.procs; exec rm) does it there, and what its limit did
 * before the cgroup is found is lost, so it is looked for often. */
#define CGROUPS_YOUNG_NS 2000000000ull
#define CGROUPS_YOUNG_EVERY_NS 20000000ull
#define CGROUPS_EVERY_NS 200000000ull

/* The traced processes' cgroups that the start did not see (not in-process:
 * reading /proc there would be traced). */
static void find_cgroups(struct sampler *s, uint64_t now)
{
	if (!s->rows || !s->r->cgroups || now < s->cgroups_ns)
		return;
	pid_t pids[64];
	int n = probes_traced_tgids(s->p, pids, 64);
	for (int i = 0; i < n; i++)
		trace_cgroups_add_pid(&cgroups, pids[i]);
	s->cgroups_ns = now + (now - s->start_ns < CGROUPS_YOUNG_NS ? CGROUPS_YOUNG_EVERY_NS :
								      CGROUPS_EVERY_NS);
}

static void sample(struct sampler *s, bool force)
{
	uint64_t now = now_ns();
	bool due = now >= s->next_ns;
	if (!force && !due)
		return;
	if (probes_read(s->p, s->cur))
		return;
	s->last = s->cur;
	find_cgroups(s, now);
	if (s->cur->nthreads > s->r->max_threads)
		s->r->max_threads = s->cur->nthreads;
	if (!due)
		return;
	if (!s->interval_ns || !s->rows) {
		s->next_ns = now + 50000000; /* only the live thread maximum */
		return;
	}
	/* the next row on the grid of the start, or a full interval from now
	 * when a read fell behind */
	s->next_ns += s->interval_ns;
	if (s->next_ns <= now)
		s->next_ns = now + s->interval_ns;
	add_row(s, s->cur);
	struct probe_snapshot *t = s->prev;
	s->prev = s->cur;
	s->cur = t;
}

/* Sleep until the next sample is due, at most MAX_MS. */
static void sleep_until_due(const struct sampler *s, int max_ms)
{
	uint64_t now = now_ns(), until = now + (uint64_t)max_ms * 1000000;
	if (s->next_ns < until)
		until = s->next_ns;
	if (until <= now)
		return;
	struct timespec ts = { (time_t)(until / 1000000000), (long)(until % 1000000000) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Wait for the command to end; with --interval, wake when a row is due.
 * Without, wake only to find the cgroups (often in the first seconds,
 * rarely after): the probes keep the thread peak themselves, and a waiting
 * tracer costs the traced delete next to nothing. */
static int wait_command(struct sampler *s, pid_t pid)
{
	int st = 0;
	bool rows = s->rows && s->interval_ns;
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);

	for (;;) {
		pid_t w = waitpid(pid, &st, pfd >= 0 || rows ? WNOHANG : 0);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			die(errno, "waitpid");
		uint64_t now = now_ns();
		if (rows)
			sample(s, false);
		else
			find_cgroups(s, now);
		if (pfd < 0) { /* no pidfd (before Linux 5.3): look every 10 ms */
			if (rows)
				sleep_until_due(s, 10);
			continue;
		}
		uint64_t due = rows ? s->next_ns : s->cgroups_ns;
		now = now_ns();
		int ms = due > now ? (int)((due - now + 999999) / 1000000) : 0;
		struct pollfd pl = { .fd = pfd, .events = POLLIN };
		poll(&pl, 1, ms);
	}
	if (pfd >= 0)
		close(pfd);
	return st;
}

static uint64_t known(uint64_t v)
{
	return v == TRACE_CG_UNKNOWN || v == TRACE_CG_NO_LIMIT ? 0 : v;
}

/* What the verdict needs of the cgroups (report.h's trace_limits): the
 * tightest CPU quota that throttled (an ancestor's counts too), the memory
 * limit that acted, the first device limit, each with its cgroup. */
static void limits_of(const struct trace_cgroups *c, struct trace_limits *l)
{
	memset(l, 0, sizeof *l);
	for (int i = 0; i < c->ncg; i++) {
		const struct trace_cgroup *g = &c->cg[i];
		if (g->kind == TRACE_CG_CPU && known(g->quota_us) && known(g->period_us)) {
			double q = (double)g->quota_us / (double)g->period_us;
			uint64_t th = known(g->throttled_ns);
			if (!l->cpu_quota || th > l->throttled_ns ||
			    (th == l->throttled_ns && q < l->cpu_quota)) {
				l->cpu_quota = q;
				l->nr_throttled = known(g->nr_throttled);
				l->throttled_ns = th;
				snprintf(l->cpu_cgroup, sizeof l->cpu_cgroup, "%s", g->dir);
			}
		} else if (g->kind == TRACE_CG_MEMORY && known(g->limit_bytes) &&
			   (!l->mem_limit || known(g->failcnt) > l->mem_failcnt)) {
			l->mem_limit = known(g->limit_bytes);
			l->mem_failcnt =
				known(g->failcnt) + known(g->events_max) + known(g->events_high);
			l->mem_reclaim_pages = known(g->pgscan);
			snprintf(l->mem_cgroup, sizeof l->mem_cgroup, "%s", g->dir);
		} else if (g->kind == TRACE_CG_IO && !l->io_limit[0]) {
			for (int d = 0; d < g->ndevs; d++) {
				const struct trace_cg_dev *v = &g->devs[d];
				char lim[128] = "";
				size_t n = 0;
				if (known(v->riops))
					n += (size_t)snprintf(lim + n, sizeof lim - n,
							      ", read %llu IOPS",
							      (unsigned long long)v->riops);
				if (known(v->wiops) && n < sizeof lim)
					n += (size_t)snprintf(lim + n, sizeof lim - n,
							      ", write %llu IOPS",
							      (unsigned long long)v->wiops);
				if (known(v->rbps) && n < sizeof lim)
					n += (size_t)snprintf(lim + n, sizeof lim - n,
							      ", read %llu B/s",
							      (unsigned long long)v->rbps);
				if (known(v->wbps) && n < sizeof lim)
					snprintf(lim + n, sizeof lim - n, ", write %llu B/s",
						 (unsigned long long)v->wbps);
				if (!lim[0])
					continue;
				snprintf(l->io_limit, sizeof l->io_limit, "%u:%u%s", v->major,
					 v->minor, lim + 1);
				snprintf(l->io_cgroup, sizeof l->io_cgroup, "%s", g->dir);
				l->io_dev = PROBE_MKDEV(v->major, v->minor);
				break;
			}
		}
	}
}

/* Finish: the final read, the callers, the report on stdout (for the
 * in-process delete it follows rm's own output there), the JSON file.
 * Returns nonzero on a JSON write error. */
/* The final read of the probes and what is derived from it, once: an
 * in-process delete takes it as soon as the delete is over, before its own
 * profile and JSON writes, which are not the delete's. False if the probes
 * cannot be read. */
static bool collect(struct sampler *s)
{
	struct trace_result *r = s->r;
	if (s->collected)
		return s->final != NULL;
	s->collected = true;
	struct probe_snapshot *final = probes_snapshot_new();

	if (!final || probes_read(s->p, final)) {
		warn_errno(errno, "cannot read the probes");
		probes_snapshot_free(final);
		return false;
	}
	probes_add_open_waits(s->p, final);
	r->wall_ns = now_ns() - s->start_ns;
	if (r->cgroups) {
		trace_cgroups_end(&cgroups);
		limits_of(&cgroups, &r->limits);
	}
	/* the last, partial interval: the rows add up to the totals */
	if (s->rows && s->interval_ns && final->time_ns > s->prev->time_ns)
		add_row(s, final);
	if (final->nthreads > r->max_threads)
		r->max_threads = final->nthreads;
	r->total = final;
	r->threads_seen = final->threads_seen;
	if (final->threads_peak > r->max_threads)
		r->max_threads = final->threads_peak;
	if (r->max_threads == 0)
		r->max_threads = r->threads_seen ? 1 : 0;
	for (int g = 0; g < PROBE_G_COUNT; g++)
		r->attached[g] = probes_group_attached(s->p, g);
	r->notes = probes_notes(s->p);
	probes_start_cost(s->p, &r->load_ns, &r->attach_ns);
	r->ncallers = probes_callers(s->p, r->callers, TRACE_MAX_CALLERS);
	const struct ksyms *k = probes_ksyms(s->p);
	for (int i = 0; i < r->ncallers; i++)
		ksyms_name(k, r->callers[i].ip, r->caller_names[i], sizeof r->caller_names[i]);
	trace_collect_waits(s->p, r);	 /* after the callers: the verdict classifies them */
	trace_block_split_all(final, r); /* after the delete's devices are known */
	trace_collect_oncpu(s->p, r);
	trace_collect_wakers(s->p, r);
	s->final = final;
	return true;
}

static int finish(struct sampler *s)
{
	struct trace_result *r = s->r;
	int status = 0;

	if (!collect(s))
		return 1;
	r->width = wrap_width(STDOUT_FILENO);
	trace_report_text(stdout, r);
	fflush(stdout);
	if (json_out.f) {
		trace_report_json(json_out.f, r);
		status |= close_out(&json_out, false);
	}
	if (folded_out.f)
		status |= close_out(&folded_out,
				    trace_write_folded(folded_out.f, s->p, TRACE_FOLDED_ONCPU) != 0);
	if (offcpu_out.f)
		status |= close_out(&offcpu_out, trace_write_folded(offcpu_out.f, s->p,
								    TRACE_FOLDED_OFFCPU) != 0);
	trace_free_waits(r);
	trace_free_wakers(r);
	r->total = NULL;
	probes_snapshot_free(s->final);
	s->final = NULL;
	return status;
}

/* The sampler of probes P; its zero is a first read, so that the first
 * row's counters and length start here. */
static bool start_sampler(struct sampler *s, struct trace_result *r, double interval,
			  struct probes *p, bool rows)
{
	memset(s, 0, sizeof *s);
	s->r = r;
	s->p = p;
	s->rows = rows;
	s->prev = probes_snapshot_new();
	s->cur = probes_snapshot_new();
	s->delta = probes_snapshot_new();
	if (!s->prev || !s->cur || !s->delta)
		return false;
	s->interval_ns = (uint64_t)(interval * 1e9);
	r->interval_ns = s->interval_ns;
	s->start_ns = now_ns();
	/* in-process, a read would be traced itself: the zero is zero there */
	if (rows && probes_read(p, s->prev) == 0)
		s->start_ns = s->prev->time_ns;
	else
		s->prev->time_ns = s->start_ns;
	s->last = s->prev;
	s->next_ns = s->start_ns + (s->interval_ns ? s->interval_ns : 50000000);
	return true;
}

static void free_sampler(struct sampler *s)
{
	probes_snapshot_free(s->prev);
	probes_snapshot_free(s->cur);
	probes_snapshot_free(s->delta);
	free(s->r->iv);
}

static struct probes *start_probes(const pid_t *pids, int npids, unsigned flags)
{
	char err[1200];
	struct probes *p = probes_start(pids, npids, flags, err, sizeof err);
	if (!p)
		warn_errno(0, "--trace: %s", err);
	return p;
}

/* execvp's search, done before tracing so that the child makes exactly one
 * execve: a name with a '/' is used as is, else each PATH entry in turn (an
 * empty one is the current directory; no PATH: confstr's default). Returns
 * the malloc'ed path, or NULL with errno ENOENT (nowhere) or EACCES (found,
 * but no entry can be executed), like execvp's failure. */
static char *resolve_command(const char *name)
{
	struct stat st;
	int err = ENOENT;

	if (!*name) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/')) {
		if (stat(name, &st))
			return NULL;
		if (S_ISDIR(st.st_mode) || access(name, X_OK)) {
			errno = EACCES;
			return NULL;
		}
		return strdup(name);
	}
	const char *path = env_str(ENV_PATH);
	char defpath[256];
	if (!path) {
		if (!confstr(_CS_PATH, defpath, sizeof defpath))
			strcpy(defpath, "/bin:/usr/bin");
		path = defpath;
	}
	size_t nlen = strlen(name);
	for (const char *p = path;; p++) {
		const char *e = strchrnul(p, ':');
		size_t dlen = (size_t)(e - p);
		char *cand = malloc(dlen + nlen + 2);
		if (!cand)
			die(ENOMEM, "--trace");
		if (dlen) {
			memcpy(cand, p, dlen);
			cand[dlen] = '/';
			memcpy(cand + dlen + 1, name, nlen + 1);
		} else
			memcpy(cand, name, nlen + 1); /* "": the current directory */
		if (stat(cand, &st) == 0) {
			if (S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
				return cand;
			err = EACCES; /* execvp goes on, and fails with EACCES */
		} else if (errno == EACCES)
			err = EACCES;
		free(cand);
		if (!*e)
			break;
		p = e;
	}
	errno = err;
	return NULL;
}

/* Command mode: SIGTERM, SIGINT and SIGHUP go to the command (its process
 * group if it has its own); we wait for it and then report. A terminal's
 * Ctrl-C already reached a command in our process group: not twice. */
static volatile pid_t command_pid;

static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	pid_t pid = command_pid;
	if (pid <= 0)
		return;
	int saved = errno;
	pid_t pg = getpgid(pid);
	if (pg == pid)
		kill(-pid, sig);
	else if (!(si && si->si_code == SI_KERNEL && pg == getpgrp()))
		kill(pid, sig);
	errno = saved;
}

/* Run COMMAND: fork, let the child wait until its pid is traced, exec. */
static int trace_command(char **cmd, double interval, unsigned flags)
{
	int go[2];
	struct trace_result r = { .mode = "command", .all = trace_all, .argv = cmd, .exit_status = -1 };
	struct sampler s;

	char *path = resolve_command(cmd[0]);
	if (!path) {
		int e = errno;
		warn_errno(e, "cannot run '%s'", cmd[0]);
		return e == ENOENT ? 127 : 126;
	}
	open_out(&json_out);
	open_out(&folded_out);
	open_out(&offcpu_out);
	if (pipe2(go, O_CLOEXEC))
		die(errno, "pipe");
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die(errno, "fork");
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execv(path, cmd);
		int e = errno;
		if (e == ENOEXEC) { /* execvp runs a script without #! with sh */
			int n = 0;
			while (cmd[n])
				n++;
			char **sh = calloc((size_t)n + 2, sizeof *sh);
			if (sh) {
				sh[0] = "sh";
				sh[1] = path;
				memcpy(sh + 2, cmd + 1, (size_t)n * sizeof *sh);
				execv("/bin/sh", sh);
			}
		}
		warn_errno(e, "cannot run '%s'", cmd[0]);
		_exit(e == ENOENT ? 127 : 126);
	}
	free(path);
	close(go[0]);
	r.pid = pid;
	begin_cgroups(&r, &pid, 1);
	struct probes *p = start_probes(&pid, 1, flags);
	if (!p) {
		close(go[1]);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (!start_sampler(&s, &r, interval, p, true))
		die(ENOMEM, "--trace");
	command_pid = pid;
	struct sigaction sa = { .sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGQUIT, SIG_IGN);
	if (write(go[1], "x", 1) != 1)
		die(errno, "cannot start %s", cmd[0]);
	close(go[1]);
	int st = wait_command(&s, pid);
	command_pid = 0;
	r.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	int js = finish(&s);
	free_sampler(&s);
	probes_stop(p);
	return js ? (r.exit_status ? r.exit_status : 1) : r.exit_status;
}

/* State of process PID from /proc/PID/stat ('R', 'S', 'Z', ...), 0 if
 * there is none. A zombie is 'Z' with no live thread: a leader that exited
 * before its threads also shows 'Z'. */
static char proc_state(pid_t pid, int *threads)
{
	char path[64], buf[512];
	*threads = -1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (procfile_read(path, buf, sizeof buf) < 0)
		return 0;
	char *rp = strrchr(buf, ')');
	if (!rp || rp[1] != ' ')
		return 0;
	char state = rp[2];
	if (state == 'Z') {
		snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
		FILE *f = fopen(path, "re");
		char line[128];
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "Threads: %d", threads) == 1)
				break;
		if (f)
			fclose(f);
	}
	return state;
}

static bool is_zombie(pid_t pid)
{
	int threads;
	return proc_state(pid, &threads) == 'Z' && threads <= 1;
}

/* The parent of process PID from /proc/PID/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[32], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (procfile_read(path, buf, sizeof buf) < 0)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
	char *close_paren = strrchr(buf, ')');
	int ppid;
	if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* Trace the processes that descend from PID now: the probes follow the
 * forks from here on, so the scan comes after they are attached and a
 * child forked meanwhile is there either way. A deleting child that already
 * runs (a shell, make or a CI runner given to -p) is what is asked about. */
static void add_descendants(struct probes *p, pid_t pid)
{
	pid_t *tree = malloc(PROBE_MAX_TGIDS * sizeof *tree);
	DIR *proc = opendir("/proc");
	if (!tree || !proc) {
		free(tree);
		if (proc)
			closedir(proc);
		return;
	}
	int n = 1;
	tree[0] = pid;
	/* parents may come after their children in /proc's order: rescan
	 * until a pass adds nobody */
	for (bool added = true; added && n < PROBE_MAX_TGIDS;) {
		added = false;
		rewinddir(proc);
		struct dirent *de;
		while ((de = readdir(proc)) && n < PROBE_MAX_TGIDS) {
			char *end;
			long q = strtol(de->d_name, &end, 10);
			if (*end || q <= 0)
				continue;
			bool known = false;
			for (int i = 0; i < n && !known; i++)
				known = tree[i] == (pid_t)q;
			if (known)
				continue;
			pid_t pp = parent_of((pid_t)q);
			for (int i = 0; i < n; i++)
				if (pp == tree[i]) {
					tree[n++] = (pid_t)q;
					probes_add_pid(p, (pid_t)q);
					trace_cgroups_add_pid(&cgroups, (pid_t)q);
					added = true;
					break;
				}
		}
	}
	closedir(proc);
	free(tree);
}

/* Attach to PID and its descendants until they have all exited, or a
 * signal. */
static int trace_pid(pid_t pid, double interval, unsigned flags)
{
	char pidstr[16];
	char *argv[3] = { "-p", pidstr, NULL };
	struct trace_result r = { .mode = "pid",
				  .all = trace_all,
				  .argv = argv,
				  .pid = pid,
				  .exit_status = -1 };
	struct sampler s;

	snprintf(pidstr, sizeof pidstr, "%d", (int)pid);
	if (kill(pid, 0) && errno == ESRCH) {
		warn_errno(0, "--trace: no process %d", (int)pid);
		return 1;
	}
	if (is_zombie(pid)) {
		warn_errno(0, "--trace: process %d is a zombie", (int)pid);
		return 1;
	}
	begin_cgroups(&r, &pid, 1);
	struct probes *p = start_probes(&pid, 1, flags);
	if (!p) {
		return 1;
	}
	add_descendants(p, pid);
	if (!start_sampler(&s, &r, interval, p, true))
		die(ENOMEM, "--trace");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "%s: tracing pid %d; Ctrl-C to stop\n", program_name, (int)pid);
	while (!stop_signal) {
		sample(&s, true);
		bool gone = (kill(pid, 0) && errno == ESRCH) || is_zombie(pid);
		if (gone && s.last->ntgids == 0)
			break; /* the process and what it started have exited */
		if (s.last->ntgids == 0 && s.last->misc.tgids_delta < 0)
			break;
		/* while the trace is young, often enough to find the cgroups */
		bool young = now_ns() - s.start_ns < CGROUPS_YOUNG_NS;
		sleep_until_due(&s, s.interval_ns || young ? 10 : 100);
	}
	int js = finish(&s);
	free_sampler(&s);
	probes_stop(p);
	return js;
}

/* In-process delete and signals: rm's face stops its engine on SIGINT and
 * SIGTERM and exits 130/143; just before, it calls this, in the deleting
 * thread, so the report and the JSON are not lost. */
static void self_interrupted(int sig, void *arg)
{
	struct sampler *s = arg;

	s->r->exit_status = 128 + sig;
	finish(s);
	fflush(stdout);
}

/* The in-process delete is over: the final read, before rm's face writes
 * the profile (and any log), so that those writes and the device they land
 * on are not counted as the delete's. */
static bool self_deleted(struct engine *e, bool ok, void *arg)
{
	(void)e;
	collect(arg);
	return ok;
}

/* adaptrm's own delete, in-process, probes on our own tgid. */
static int trace_self(int argc, char **argv, double interval, unsigned flags)
{
	struct rm_options o;
	int first = options_parse(&o, argc, argv);
	int nfiles = argc - first;
	struct trace_result r = { .mode = "self", .all = trace_all, .argv = argv, .pid = getpid() };
	struct sampler s;

	if (nfiles == 0 && !o.ignore_missing) {
		warn_errno(0, "missing operand");
		options_usage(1);
	}
	begin_cgroups(&r, &r.pid, 1);
	struct probes *p = start_probes(NULL, 0, flags);
	if (!p) {
		return 1;
	}
	/* the deleter runs in this thread; a sampling thread would show up in
	 * the trace itself, so intervals are not sampled in-process */
	if (!start_sampler(&s, &r, interval, p, false))
		die(ENOMEM, "--trace");
	struct rm_report rep;
	int status = rm_run(&o, nfiles, argv + first,
			    &(struct rm_face){ .report = &rep,
					       .finish = self_deleted,
					       .on_interrupt = self_interrupted,
					       .arg = &s });
	r.exit_status = status;
	if (rep.controller[0]) {
		r.controller = rep.controller;
		r.decisions = rep.decisions;
		r.ndecisions = rep.ndecisions;
	}
	int js = finish(&s);
	free(rep.decisions);
	free_sampler(&s);
	probes_stop(p);
	return js && !r.exit_status ? 1 : r.exit_status;
}

static double parse_interval(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 3600) {
		warn_errno(0, "--trace: invalid interval %s", s);
		usage(1);
	}
	return v;
}

static pid_t parse_pid(const char *v)
{
	char *end;
	errno = 0;
	long pid = strtol(v, &end, 10);
	if (errno || end == v || *end || pid <= 0 || pid > 0x3fffffff) {
		warn_errno(0, "--trace: invalid pid %s", v);
		usage(1);
	}
	return (pid_t)pid;
}

enum {
	OPT_HELP = 256,
	OPT_JSON,
	OPT_INTERVAL,
	OPT_NO_CALLERS,
	OPT_COMPARE,
	OPT_ALL,
	OPT_FOLDED,
	OPT_FOLDED_OFFCPU
};

static const struct option trace_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "no-callers", no_argument, NULL, OPT_NO_CALLERS },
	{ "compare", no_argument, NULL, OPT_COMPARE },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "folded", required_argument, NULL, OPT_FOLDED },
	{ "folded-offcpu", required_argument, NULL, OPT_FOLDED_OFFCPU },
	{ NULL, 0, NULL, 0 },
};

/* ARG spelled out as "--NAME" or "--NAME=...": getopt_long also takes
 * abbreviations, which here belong to rm's options (--i is --interactive);
 * likewise -pPID, which has always been one of rm's (invalid) options. */
static bool spelled_out(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, "--", 2) && !strncmp(arg + 2, name, n) &&
	       (!arg[n + 2] || arg[n + 2] == '=');
}

int trace_main(int argc, char **argv)
{
	double interval = 0;
	unsigned flags = 0;
	pid_t pid = 0;
	int ac = argc - 1, at, c, li;
	char **av = argv + 1; /* "--trace" plays getopt's program name */

	/* "+": the first non-option starts the command or rm's operands; ":":
	 * missing arguments reported here; an option we do not know starts
	 * rm's options (-rf, --threads=4) */
	opterr = 0;
	optind = 0;
	for (;;) {
		at = optind ? optind : 1;
		c = getopt_long(ac, av, "+:p:", trace_options, &li);
		if (c == ':' && optopt >= OPT_HELP) /* trace_options[] is in enum order */
			li = optopt - OPT_HELP;
		if (c == -1 || c == '?' || (c == 'p' && strcmp(av[at], "-p")) ||
		    ((c >= OPT_HELP || (c == ':' && optopt >= OPT_HELP)) &&
		     !spelled_out(av[at], trace_options[li].name)))
			break;
		if (c == ':') {
			if (optopt == 'p')
				warn_errno(0, "option requires an argument -- 'p'");
			else
				warn_errno(0, "option '%s' requires an argument", av[at]);
			usage(1);
		}
		switch (c) {
		case OPT_HELP: usage(0); break;
		case OPT_JSON: json_out.path = optarg; break;
		case OPT_FOLDED: folded_out.path = optarg; break;
		case OPT_FOLDED_OFFCPU: offcpu_out.path = optarg; break;
		case OPT_INTERVAL: interval = parse_interval(optarg); break;
		case OPT_NO_CALLERS: flags |= PROBE_NO_CALLERS; break;
		case OPT_ALL: trace_all = true; break;
		case OPT_COMPARE:
			if (ac - optind != 2) {
				warn_errno(0, "--compare needs exactly two JSON files");
				usage(1);
			}
			return trace_compare(av[optind], av[optind + 1], trace_all);
		case 'p': pid = parse_pid(optarg); break;
		}
	}
	/* the rest starts at AT: a "--" that getopt took is kept, as the command's mark */
	int i = (c == -1 && at < ac && strcmp(av[at], "--") ? optind : at) + 1;
	optind = 0; /* rm's options_parse starts getopt afresh */
	opterr = 1;
	if (pid) {
		if (i < argc) {
			warn_errno(0, "--trace -p takes no command");
			usage(1);
		}
		open_out(&json_out);
		open_out(&folded_out);
		open_out(&offcpu_out);
		return trace_pid(pid, interval, flags);
	}
	if (i < argc && !strcmp(argv[i], "--")) {
		if (i + 1 >= argc) {
			warn_errno(0, "--trace: missing command after --");
			usage(1);
		}
		/* the output files are opened once the command is found */
		return trace_command(argv + i + 1, interval, flags);
	}
	if (i >= argc) {
		warn_errno(0, "--trace: missing command, -p PID, or rm options and operands");
		usage(1);
	}
	/* the rest are rm's options and operands: argv[i-1] becomes argv[0] */
	argv[i - 1] = argv[0];
	open_out(&json_out);
	open_out(&folded_out);
	open_out(&offcpu_out);
	return trace_self(argc - (i - 1), argv + (i - 1), interval, flags);
}
