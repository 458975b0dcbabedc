/* adaptrm --trace (see trace.h): option parsing, the three ways to get a
 * traced process (run a command, attach to a pid, delete in-process), the
 * sampling loop, and the report. */
#include "trace/trace.h"
#include "probes/ksyms.h"
#include "lib/msg.h"
#include "cli/options.h"
#include "probes/probes.h"
#include "cli/rm.h"
#include "trace/report.h"
#include "lib/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const struct ksyms *probes_ksyms(struct probes *p);

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;
	if (status) {
		fprintf(f, "Try '%s --trace --help' for more information.\n", program_invoked);
		exit(status);
	}
	fprintf(f,
		"Usage: %s --trace [--json FILE] [--interval SEC] [--no-callers] -- COMMAND [ARG]...\n"
		"  or:  %s --trace [OPTION]... -p PID\n"
		"  or:  %s --trace [OPTION]... -rf DIR...   (adaptrm's own delete, traced in-process)\n"
		"  or:  %s --trace --compare A.json B.json\n"
		"Trace a delete with eBPF and explain where its time goes: per-syscall\n"
		"latency (strace -c style, with DTrace quantize histograms), lock\n"
		"contention by type, off-CPU time, filesystem and block events, a verdict.\n\n"
		"  --json FILE       also write everything as JSON (schema " TRACE_SCHEMA ")\n"
		"  --interval SEC    sample every SEC seconds and add a per-interval table\n"
		"  --no-callers      do not record kernel stacks of contended locks\n"
		"  -p PID            attach to a running process until it exits or Ctrl-C\n"
		"Needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BTF.\n",
		program_invoked, program_invoked, program_invoked, program_invoked);
	exit(0);
}

struct sampler {
	struct probes *p;
	struct probe_snapshot *prev, *cur, *delta;
	uint64_t start_ns, interval_ns, next_ns;
	struct trace_result *r;
	int cap;
};

/* Read the counters; every interval record one sample. */
static void sample(struct sampler *s, bool force)
{
	uint64_t now = now_ns();
	if (!force && now < s->next_ns)
		return;
	if (probes_read(s->p, s->cur))
		return;
	if (s->cur->nthreads > s->r->max_threads)
		s->r->max_threads = s->cur->nthreads;
	if (!s->interval_ns) {
		s->next_ns = now + 50000000;	/* only the live thread maximum */
		return;
	}
	s->next_ns = now + s->interval_ns;
	probe_snapshot_sub(s->delta, s->cur, s->prev);
	if (s->r->niv == s->cap) {
		int nc = s->cap ? s->cap * 2 : 64;
		struct trace_interval *n = realloc(s->r->iv, nc * sizeof *n);
		if (!n)
			return;
		s->r->iv = n;
		s->cap = nc;
	}
	const struct probe_snapshot *d = s->delta;
	s->r->iv[s->r->niv++] = (struct trace_interval){
		.t_ns = now - s->start_ns,
		.len_ns = d->time_ns,
		.nthreads = s->cur->nthreads,
		.unlinkat_calls = d->sc[PROBE_NR_UNLINKAT].lat.count,
		.unlinkat_ns = d->sc[PROBE_NR_UNLINKAT].lat.total,
		.unlinkat_p50_ns = hist_quantile(&d->sc[PROBE_NR_UNLINKAT].lat, 0.5),
		.unlinkat_p99_ns = hist_quantile(&d->sc[PROBE_NR_UNLINKAT].lat, 0.99),
		.getdents_calls = d->sc[PROBE_NR_GETDENTS64].lat.count,
		.getdents_ns = d->sc[PROBE_NR_GETDENTS64].lat.total,
		.openat_calls = d->sc[SYS_openat].lat.count,
		.lock_wait_ns = probe_lock_wait_ns(d, 0),
		.rwsem_write_wait_ns = d->lock[PROBE_LCB_F_WRITE].wait.total,
		.blocked_ns = d->misc.offcpu[PROBE_OFFCPU_BLOCKED].total,
		.sleeping_ns = d->misc.offcpu[PROBE_OFFCPU_SLEEPING].total,
	};
	struct probe_snapshot *t = s->prev;
	s->prev = s->cur;
	s->cur = t;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* Finish: final read, callers, report on stdout (stderr for the in-process
 * delete so that rm -v output stays clean is not needed: rm prints on stdout
 * too, the report follows it), JSON file. Returns nonzero on a JSON write
 * error. */
static int finish(struct sampler *s, const char *json_path)
{
	struct trace_result *r = s->r;
	struct probe_snapshot *final = probe_snapshot_new();
	int status = 0;

	if (!final || probes_read(s->p, final)) {
		warn_errno(errno, "cannot read the probes");
		probe_snapshot_free(final);
		return 1;
	}
	r->wall_ns = now_ns() - s->start_ns;
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
	r->ncallers = probes_callers(s->p, r->callers, TRACE_MAX_CALLERS);
	const struct ksyms *k = probes_ksyms(s->p);
	for (int i = 0; i < r->ncallers; i++)
		ksyms_name(k, r->callers[i].ip, r->caller_names[i], sizeof r->caller_names[i]);

	trace_report_text(stdout, r);
	fflush(stdout);
	if (json_path) {
		FILE *f = fopen(json_path, "we");
		if (!f) {
			warn_errno(errno, "cannot write %s", json_path);
			status = 1;
		} else {
			trace_report_json(f, r);
			if (fclose(f)) {
				warn_errno(errno, "write error on %s", json_path);
				status = 1;
			}
		}
	}
	r->total = NULL;
	probe_snapshot_free(final);
	return status;
}

static bool start_sampler(struct sampler *s, struct trace_result *r, double interval)
{
	memset(s, 0, sizeof *s);
	s->r = r;
	s->prev = probe_snapshot_new();
	s->cur = probe_snapshot_new();
	s->delta = probe_snapshot_new();
	if (!s->prev || !s->cur || !s->delta)
		return false;
	s->interval_ns = (uint64_t)(interval * 1e9);
	s->start_ns = now_ns();
	s->next_ns = s->start_ns + (s->interval_ns ? s->interval_ns : 50000000);
	return true;
}

static void free_sampler(struct sampler *s)
{
	probe_snapshot_free(s->prev);
	probe_snapshot_free(s->cur);
	probe_snapshot_free(s->delta);
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

/* Run COMMAND: fork, let the child wait until its pid is traced, exec. */
static int trace_command(char **cmd, const char *json, double interval, unsigned flags)
{
	int go[2];
	struct trace_result r = { .mode = "command", .argv = cmd, .exit_status = -1 };
	struct sampler s;

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
		execvp(cmd[0], cmd);
		int e = errno;
		warn_errno(e, "cannot run %s", cmd[0]);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	r.pid = pid;
	struct probes *p = start_probes(&pid, 1, flags);
	if (!p) {
		close(go[1]);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (!start_sampler(&s, &r, interval))
		die(ENOMEM, "--trace");
	s.p = p;
	/* the command gets Ctrl-C; we wait for it to finish and report */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (write(go[1], "x", 1) != 1)
		die(errno, "cannot start %s", cmd[0]);
	close(go[1]);
	int st = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			die(errno, "waitpid");
		sample(&s, false);
		sleep_ms(10);
	}
	r.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	int js = finish(&s, json);
	free_sampler(&s);
	probes_stop(p);
	return js ? (r.exit_status ? r.exit_status : 1) : r.exit_status;
}

/* Attach to PID until it exits or a signal. */
static int trace_pid(pid_t pid, const char *json, double interval, unsigned flags)
{
	char pidstr[16];
	char *argv[3] = { "-p", pidstr, NULL };
	struct trace_result r = { .mode = "pid", .argv = argv, .pid = pid, .exit_status = -1 };
	struct sampler s;

	snprintf(pidstr, sizeof pidstr, "%d", (int)pid);
	if (kill(pid, 0) && errno == ESRCH) {
		warn_errno(0, "--trace: no process %d", (int)pid);
		return 1;
	}
	struct probes *p = start_probes(&pid, 1, flags);
	if (!p)
		return 1;
	if (!start_sampler(&s, &r, interval))
		die(ENOMEM, "--trace");
	s.p = p;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "%s: tracing pid %d; Ctrl-C to stop\n", program_name, (int)pid);
	while (!stop_signal) {
		if (kill(pid, 0) && errno == ESRCH)
			break;
		sample(&s, true);
		if (s.cur->ntgids == 0 && s.cur->misc.tgids_delta < 0)
			break;	/* the process (and its children) exited */
		sleep_ms(s.interval_ns ? 10 : 100);
	}
	int js = finish(&s, json);
	free_sampler(&s);
	probes_stop(p);
	return js;
}

/* adaptrm's own delete, in-process, probes on our own tgid. */
static int trace_self(int argc, char **argv, const char *json, double interval, unsigned flags)
{
	struct rm_options o;
	int first = options_parse(&o, argc, argv);
	int nfiles = argc - first;
	struct trace_result r = { .mode = "self", .argv = argv, .pid = getpid() };
	struct sampler s;

	if (nfiles == 0 && !o.ignore_missing) {
		warn_errno(0, "missing operand");
		options_usage(1);
	}
	struct probes *p = start_probes(NULL, 0, flags);
	if (!p)
		return 1;
	if (!start_sampler(&s, &r, interval))
		die(ENOMEM, "--trace");
	s.p = p;
	/* the deleter runs in this thread; a sampling thread would show up in
	 * the trace itself, so intervals are not sampled in-process */
	struct rm_report rep;
	r.exit_status = rm_main_report(&o, nfiles, argv + first, &rep);
	if (rep.controller[0]) {
		r.controller = rep.controller;
		r.decisions = rep.decisions;
		r.ndecisions = rep.ndecisions;
	}
	int js = finish(&s, json);
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

enum { OPT_HELP = 256, OPT_JSON, OPT_INTERVAL, OPT_NO_CALLERS, OPT_COMPARE };

static const struct option trace_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "no-callers", no_argument, NULL, OPT_NO_CALLERS },
	{ "compare", no_argument, NULL, OPT_COMPARE },
	{ NULL, 0, NULL, 0 },
};

/* ARG spelled out as "--NAME" or "--NAME=...": getopt_long also takes
 * abbreviations, which here belong to rm's options (--i is --interactive);
 * likewise -pPID, which has always been one of rm's (invalid) options. */
static bool spelled_out(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, "--", 2) && !strncmp(arg + 2, name, n) && (!arg[n + 2] || arg[n + 2] == '=');
}

int trace_main(int argc, char **argv)
{
	const char *json = NULL;
	double interval = 0;
	unsigned flags = 0;
	pid_t pid = 0;
	int ac = argc - 1, at, c, li;
	char **av = argv + 1;	/* "--trace" plays getopt's program name */

	/* "+": the first non-option starts the command or rm's operands; ":":
	 * missing arguments reported here; an option we do not know starts
	 * rm's options (-rf, --threads=4) */
	opterr = 0;
	optind = 0;
	for (;;) {
		at = optind ? optind : 1;
		c = getopt_long(ac, av, "+:p:", trace_options, &li);
		if (c == ':' && optopt >= OPT_HELP)	/* trace_options[] is in enum order */
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
		case OPT_HELP:
			usage(0);
			break;
		case OPT_JSON:
			json = optarg;
			break;
		case OPT_INTERVAL:
			interval = parse_interval(optarg);
			break;
		case OPT_NO_CALLERS:
			flags |= PROBE_NO_CALLERS;
			break;
		case OPT_COMPARE:
			if (ac - optind != 2) {
				warn_errno(0, "--compare needs exactly two JSON files");
				usage(1);
			}
			return trace_compare(av[optind], av[optind + 1]);
		case 'p':
			pid = parse_pid(optarg);
			break;
		}
	}
	/* the rest starts at AT: a "--" that getopt took is kept, as the command's mark */
	int i = (c == -1 && at < ac && strcmp(av[at], "--") ? optind : at) + 1;
	optind = 0;	/* rm's options_parse starts getopt afresh */
	opterr = 1;
	if (pid) {
		if (i < argc) {
			warn_errno(0, "--trace -p takes no command");
			usage(1);
		}
		return trace_pid(pid, json, interval, flags);
	}
	if (i < argc && !strcmp(argv[i], "--")) {
		if (i + 1 >= argc) {
			warn_errno(0, "--trace: missing command after --");
			usage(1);
		}
		return trace_command(argv + i + 1, json, interval, flags);
	}
	if (i >= argc) {
		warn_errno(0, "--trace: missing command, -p PID, or rm options and operands");
		usage(1);
	}
	/* the rest are rm's options and operands: argv[i-1] becomes argv[0] */
	argv[i - 1] = argv[0];
	return trace_self(argc - (i - 1), argv + (i - 1), json, interval, flags);
}
