// SPDX-License-Identifier: GPL-3.0-or-later
/* The probes on our own process: exact syscall counts, histograms that sum
 * to their counts, per-interval subtraction, rwsem-write contention from
 * parallel unlinkers in one directory. Needs root and BTF: skips without
 * them, fails instead when ADAPTRM_REQUIRE_BPF=1 (CI). */
#include <criterion/criterion.h>
#include "probes/probes.h"
#include "trace/measure.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct probes *start_flags_or_skip(unsigned flags)
{
	char err[512];
	struct probes *p = probes_start(NULL, 0, flags, err, sizeof err);

	if (!p) {
		const char *req = getenv("ADAPTRM_REQUIRE_BPF");
		if (req && *req && strcmp(req, "0"))
			cr_assert_fail("BPF required but probes cannot start: %s", err);
		cr_skip_test("BPF probes unavailable: %s", err);
	}
	return p;
}

static struct probes *start_or_skip(void)
{
	return start_flags_or_skip(0);
}

static void make_files(int dfd, int n)
{
	char name[32];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "f%d", i);
		int fd = openat(dfd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		cr_assert(fd >= 0);
		close(fd);
	}
}

static void check_sums(const struct probe_snapshot *s)
{
	for (int k = 0; k < PROBE_NR_SYSCALLS; k++)
		cr_assert_eq(hist_bucket_sum(&s->sc[k].lat), s->sc[k].lat.count, "syscall %d", k);
	for (int k = 0; k < PROBE_LOCK_TYPES; k++)
		cr_assert_eq(hist_bucket_sum(&s->lock[k].wait), s->lock[k].wait.count);
	for (int k = 0; k < PROBE_OFFCPU_KINDS; k++)
		cr_assert_eq(hist_bucket_sum(&s->misc.offcpu[k]), s->misc.offcpu[k].count);
	cr_assert_eq(hist_bucket_sum(&s->misc.getdents_bytes), s->misc.getdents_bytes.count);
}

Test(probes, unlinkat_count_is_exact)
{
	struct probes *p = start_or_skip();
	struct probe_snapshot *a = probes_snapshot_new(), *b = probes_snapshot_new(),
			      *d = probes_snapshot_new();
	char dir[] = "/tmp/adaptrm-probes-XXXXXX";
	const int n = 500;

	cr_assert(mkdtemp(dir));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	make_files(dfd, n);
	cr_assert_eq(probes_read(p, a), 0);
	char name[32];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "f%d", i);
		cr_assert_eq(unlinkat(dfd, name, 0), 0);
	}
	cr_assert_eq(unlinkat(dfd, "missing", 0), -1); /* one error */
	close(dfd);
	cr_assert_eq(rmdir(dir), 0);
	cr_assert_eq(probes_read(p, b), 0);
	probes_snapshot_sub(d, b, a);

	cr_assert_eq(d->sc[PROBE_NR_UNLINKAT].lat.count, (uint64_t)n + 1);
	cr_assert_eq(d->sc[PROBE_NR_UNLINKAT].errors, 1);
	cr_assert_eq(d->sc[84].lat.count, 1); /* rmdir() */
	cr_assert_geq(d->nthreads, 1);
	cr_assert_eq(d->ntgids, 1);
	check_sums(b);
	check_sums(d);
	probes_snapshot_free(a);
	probes_snapshot_free(b);
	probes_snapshot_free(d);
	probes_stop(p);
}

/* The controller's set: what its decisions read, and no filesystem or block
 * events (btrfs_tree_lock alone cost ~10% of a btrfs delete). */
Test(probes, core_only_attaches_no_filesystem_events)
{
	struct probes *p = start_flags_or_skip(PROBE_NO_CALLERS | PROBE_CORE_ONLY);
	cr_assert(probes_group_attached(p, PROBE_G_PROC));
	cr_assert(probes_group_attached(p, PROBE_G_SYSCALLS));
	cr_assert(probes_group_attached(p, PROBE_G_LOCKS));
	cr_assert(probes_group_attached(p, PROBE_G_OFFCPU));
	for (int g = PROBE_G_EXT4; g < PROBE_G_COUNT; g++)
		cr_assert(!probes_group_attached(p, g), "%s attached", probes_group_name(g));
	probes_stop(p);

	/* and the full set has them (block events exist in every kernel) */
	p = start_or_skip();
	cr_assert(probes_group_attached(p, PROBE_G_BLOCK));
	probes_stop(p);
}

struct job {
	int dfd, first, n;
};

static void *unlinker(void *arg)
{
	struct job *j = arg;
	char name[32];

	for (int i = j->first; i < j->first + j->n; i++) {
		snprintf(name, sizeof name, "f%d", i);
		unlinkat(j->dfd, name, 0);
	}
	return NULL;
}

/* Four threads in one directory wait for its i_rwsem taken for write. On
 * a busy machine the threads may seldom run at once: each round deletes
 * another directory, up to five, until a wait is seen. */
Test(probes, parallel_unlinkers_contend_on_rwsem_write, .timeout = 300)
{
	struct probes *p = start_or_skip();
	struct probe_snapshot *s = probes_snapshot_new();
	const int per = 20000;
	pthread_t t[4];
	struct job j[4];
	int round;

	for (round = 1; round <= 5; round++) {
		char dir[] = "/tmp/adaptrm-probes-XXXXXX";
		cr_assert(mkdtemp(dir));
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		cr_assert(dfd >= 0);
		make_files(dfd, 4 * per);
		for (int i = 0; i < 4; i++) {
			j[i] = (struct job){ dfd, i * per, per };
			pthread_create(&t[i], NULL, unlinker, &j[i]);
		}
		cr_assert_eq(probes_read(p, s), 0);
		cr_assert_geq(s->nthreads, 5, "threads followed: %u", s->nthreads);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		close(dfd);
		rmdir(dir);
		cr_assert_eq(probes_read(p, s), 0);
		if (s->lock[PROBE_LCB_F_WRITE].wait.count > 0)
			break;
	}
	cr_assert_geq(s->sc[PROBE_NR_UNLINKAT].lat.count, (uint64_t)4 * per);
	cr_assert(probes_group_attached(p, PROBE_G_LOCKS));
	cr_assert_gt(s->lock[PROBE_LCB_F_WRITE].wait.count, 0, "no rwsem:W contention seen");
	cr_assert_gt(probes_lock_wait_ns(s, PROBE_LCB_F_WRITE), 0);
	check_sums(s);
	struct probe_caller c[8];
	int nc = probes_callers(p, c, 8);
	cr_assert_gt(nc, 0);
	probes_snapshot_free(s);
	probes_stop(p);
}

/* The probes' wait-syscall list is the report's (busy time excludes them). */
Test(probes, wait_syscalls_match_the_report)
{
	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		cr_assert_eq(probes_is_wait_syscall(nr), trace_is_wait_syscall(nr), "syscall %d", nr);
}

static void *pipe_writer(void *arg)
{
	int fd = *(int *)arg;
	struct timespec ts = { 0, 30 * 1000000 };

	nanosleep(&ts, NULL);
	cr_assert_eq(write(fd, "x", 1), 1);
	return NULL;
}

/* A read of an empty pipe sleeps (S) inside a busy syscall: a wait site
 * with a stack, and a wakeup whose run-queue delay is measured. */
Test(probes, sleep_in_a_busy_syscall_is_a_wait_site)
{
	struct probes *p = start_or_skip();
	struct probe_snapshot *s = probes_snapshot_new();
	struct probe_wait_site *w = NULL;
	int fds[2];
	pthread_t t;
	char c;

	cr_assert(probes_group_attached(p, PROBE_G_OFFCPU));
	cr_assert_eq(pipe(fds), 0);
	pthread_create(&t, NULL, pipe_writer, &fds[1]);
	cr_assert_eq(read(fds[0], &c, 1), 1);
	pthread_join(t, NULL);
	close(fds[0]);
	close(fds[1]);
	cr_assert_eq(probes_read(p, s), 0);
	int n = probes_wait_sites(p, &w);
	bool found = false;
	for (int i = 0; i < n; i++)
		if (w[i].state == PROBE_OFFCPU_SLEEPING && (w[i].ctx & PROBE_WAIT_IN_SYSCALL) &&
		    w[i].stackid >= 0 && w[i].ips[0] && w[i].total_ns >= 20 * 1000000ull)
			found = true;
	cr_assert(found, "no S wait site of >= 20 ms with a stack among %d", n);
	if (probes_group_attached(p, PROBE_G_RUNQ))
		cr_assert_gt(s->misc.runq.count, 0);
	free(w);
	probes_snapshot_free(s);
	probes_stop(p);
}
