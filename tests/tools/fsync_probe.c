// SPDX-License-Identifier: GPL-3.0-or-later
// fsync_probe: what a database's commits feel like while something else
// uses the filesystem. Every INTERVAL ms it writes 4 KiB to a file in DIR
// and fsyncs it, timing each write + fsync, until SIGTERM/SIGINT or the
// duration; then prints one line of key=value (microseconds):
//   count=N p50_us=N p99_us=N max_us=N mean_us=N
// and, with --samples FILE, every latency, one a line, in order.
//
//   fsync_probe [--interval-ms=N] [--duration=SEC] [--samples=FILE] DIR
//
// The file (DIR/.fsync_probe.PID) wraps at 16 MiB, so it stays allocated
// after the first pass (an overwrite still dirties the inode's mtime: each
// fsync commits the journal as a database's commit would), and is removed
// at exit.

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define WRAP (16u << 20)
#define MAX_SAMPLES (64u << 20)	 // 512 MiB of samples: hours at 1 ms

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct opts {
	unsigned interval_ms;
	double duration;
	const char *samples;
	const char *dir;
};

struct samples {
	uint64_t *v;
	size_t n, cap;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fsync_probe [--interval-ms=N] [--duration=SEC] [--samples=FILE] DIR\n"
		   "Write 4 KiB and fsync every N ms (default 10) in DIR until SIGTERM or SEC\n"
		   "seconds; print count, p50, p99, max and mean latency in microseconds.\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "samples", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	*o = (struct opts){ .interval_ms = 10 };
	while ((c = getopt_long(argc, argv, "i:d:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->interval_ms = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'd': o->duration = strtod(optarg, NULL); break;
		case 's': o->samples = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: return -1;
		}
	}
	if (optind != argc - 1)
		return -1;
	o->dir = argv[optind];
	return 0;
}

static int push(struct samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		if (s->cap >= MAX_SAMPLES)
			return -1;
		size_t cap = s->cap ? s->cap * 2 : 4096;
		uint64_t *nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

// One commit: 4 KiB at the next offset, then fsync; its latency in µs.
static int commit(int fd, const char *buf, off_t *off, uint64_t *us)
{
	uint64_t t0 = now_ns();
	if (pwrite(fd, buf, BLOCK, *off) != BLOCK || fsync(fd) != 0)
		return -1;
	*us = (now_ns() - t0) / 1000;
	*off = (*off + BLOCK) % WRAP;
	return 0;
}

// Sleep until the next tick; after a stall longer than the interval, the
// next commit starts at once and the schedule restarts from there (no burst
// of catch-up commits).
static void wait_tick(uint64_t *next, unsigned interval_ms)
{
	*next += (uint64_t)interval_ms * 1000000u;
	uint64_t t = now_ns();
	if (*next <= t) {
		*next = t;
		return;
	}
	struct timespec ts = { (time_t)(*next / 1000000000u), (long)(*next % 1000000000u) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int write_samples(const char *path, const struct samples *s)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%llu\n", (unsigned long long)s->v[i]);
	return fclose(f);
}

// The nearest-rank quantile of sorted values.
static uint64_t quantile(const struct samples *s, double q)
{
	size_t k = (size_t)(q * (double)s->n + 0.999999);
	return s->v[k ? k - 1 : 0];
}

static void report(struct samples *s)
{
	if (!s->n) {
		printf("count=0 p50_us=0 p99_us=0 max_us=0 mean_us=0\n");
		return;
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	printf("count=%zu p50_us=%llu p99_us=%llu max_us=%llu mean_us=%llu\n", s->n,
	       (unsigned long long)quantile(s, 0.50), (unsigned long long)quantile(s, 0.99),
	       (unsigned long long)s->v[s->n - 1], (unsigned long long)(sum / s->n));
}

static int run(const struct opts *o, int fd, struct samples *s)
{
	static char buf[BLOCK];
	memset(buf, 'p', sizeof(buf));
	off_t off = 0;
	uint64_t start = now_ns(), next = start, us;
	uint64_t end = o->duration > 0 ? start + (uint64_t)(o->duration * 1e9) : UINT64_MAX;
	while (!stop && now_ns() < end) {
		if (commit(fd, buf, &off, &us) != 0) {
			fprintf(stderr, "fsync_probe: cannot write and fsync: %s\n", strerror(errno));
			return -1;
		}
		if (push(s, us) != 0) {
			fprintf(stderr, "fsync_probe: too many samples, stopping\n");
			break;
		}
		wait_tick(&next, o->interval_ms);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (parse_opts(argc, argv, &o) != 0) {
		usage(stderr);
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	char name[64];
	snprintf(name, sizeof(name), ".fsync_probe.%d", (int)getpid());
	int dfd = open(o.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ?
		       -1 :
		       openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "fsync_probe: cannot create a file in %s: %s\n", o.dir,
			strerror(errno));
		return 1;
	}
	struct samples s = { 0 };
	int rc = run(&o, fd, &s);
	close(fd);
	unlinkat(dfd, name, 0);
	close(dfd);
	if (o.samples && write_samples(o.samples, &s) != 0) {
		fprintf(stderr, "fsync_probe: cannot write %s: %s\n", o.samples, strerror(errno));
		rc = -1;
	}
	report(&s);
	free(s.v);
	return rc ? 1 : 0;
}
