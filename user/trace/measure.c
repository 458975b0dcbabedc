// SPDX-License-Identifier: GPL-3.0-or-later
/* The measures the --trace analysis, report and comparison share (measure.h). */
#include "trace/measure.h"
#include "lib/json.h"
#include "probes/hist.h"
#include "probes/probes.h"
#include "probes/syscall_names.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

const int trace_detail_nrs[] = {
	SYS_unlinkat,
#ifdef SYS_unlink
	SYS_unlink,	SYS_rmdir,
#endif
	SYS_getdents64, SYS_openat, SYS_close,	SYS_newfstatat, SYS_statx,
	SYS_brk,	SYS_mmap,   SYS_munmap, SYS_fcntl,
};
const int trace_detail_count = sizeof trace_detail_nrs / sizeof *trace_detail_nrs;

bool trace_is_old_unlink(int nr)
{
#ifdef SYS_unlink
	return nr == SYS_unlink || nr == SYS_rmdir;
#else
	return false;
#endif
}

uint64_t trace_old_unlinks(const struct probe_snapshot *s, bool rmdir)
{
#ifdef SYS_unlink
	return s->sc[rmdir ? SYS_rmdir : SYS_unlink].lat.count;
#else
	return 0;
#endif
}

bool trace_is_wait_syscall(int nr)
{
	return probes_is_wait_syscall(nr); /* the probes' list: their busy time is ours */
}

uint64_t trace_busy_ns(const struct probe_snapshot *s)
{
	uint64_t t = 0;

	for (int k = 0; k < PROBE_NR_SYSCALLS; k++)
		if (!trace_is_wait_syscall(k))
			t += s->sc[k].lat.total;
	return t;
}

const char *trace_fmt_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

const char *trace_syscall_name(int nr, char *buf, size_t len)
{
	const char *n = syscall_name((unsigned)nr);
	if (n)
		return n;
	snprintf(buf, len, "syscall_%d", nr);
	return buf;
}

int trace_kernel_hz(void)
{
	static int hz;
	struct utsname u;
	char path[300], line[256];

	if (hz)
		return hz;
	hz = 250;
	if (uname(&u) == 0) {
		snprintf(path, sizeof path, "/boot/config-%s", u.release);
		FILE *f = fopen(path, "re");
		while (f && fgets(line, sizeof line, f))
			if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1)
				break;
		if (f)
			fclose(f);
	}
	return hz;
}

double trace_jiffies_ms(unsigned long long j, unsigned long long n)
{
	return n ? (double)j * 1000.0 / trace_kernel_hz() / (double)n : 0;
}

/* Share of the unlinked-inode jumps below TRACE_INO_NEAR (64: a few 4 KiB
 * inode-table blocks of 256-byte inodes), from the log2 histogram: the
 * buckets below TRACE_INO_NEAR's own (a power of two starts a bucket). */
double trace_ino_near_share(const struct probe_hist *h)
{
	uint64_t near = 0;
	for (int b = 0; b < PROBE_HIST_BUCKETS && b < hist_bucket(TRACE_INO_NEAR); b++)
		near += h->b[b];
	return h->count ? (double)near / (double)h->count : 1;
}

void trace_json_hist(struct json_writer *w, const char *key, const struct probe_hist *h)
{
	jw_object(w, key);
	jw_uint(w, "count", h->count);
	jw_uint(w, "total", h->total);
	jw_double(w, "mean", hist_mean(h));
	jw_double(w, "p50", hist_quantile(h, 0.5));
	jw_double(w, "p99", hist_quantile(h, 0.99));
	jw_double(w, "max_bound", hist_max(h));
	jw_array_compact(w, "buckets");
	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		if (h->b[i]) {
			jw_array_compact(w, NULL);
			jw_uint(w, NULL, hist_bucket_value(i));
			jw_uint(w, NULL, h->b[i]);
			jw_end(w);
		}
	jw_end(w);
	jw_end(w);
}
