// SPDX-License-Identifier: GPL-3.0-or-later
/* The measures the --trace analysis, report and comparison share: busy
 * syscall time, the units they print in, the jbd2 jiffies, the syscalls
 * shown in detail and the unlink order. */
#ifndef ADAPTRM_TRACE_MEASURE_H
#define ADAPTRM_TRACE_MEASURE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "probes/probes.h"

struct json_writer;

/* Syscall time excluding waits for children, poll, futex and sleeps: the
 * base of every share. */
uint64_t trace_busy_ns(const struct probe_snapshot *s);

/* "1.23 s", "45.6 ms", "12.3 us", "800 ns" */
const char *trace_fmt_ns(double ns, char *buf, size_t len);
/* The syscall's name, else "syscall_NR" in BUF. */
const char *trace_syscall_name(int nr, char *buf, size_t len);
/* unlink(2) and rmdir(2): x86-64 has them beside unlinkat(2), arm64 only
 * unlinkat (no calls there). Whether NR is one; the calls of one. */
bool trace_is_old_unlink(int nr);
uint64_t trace_old_unlinks(const struct probe_snapshot *s, bool rmdir);
/* Syscalls that wait for something else (children, events, time, other
 * threads): their time is not the deleter's work. */
bool trace_is_wait_syscall(int nr);
/* Milliseconds per event of J jiffies over N events (jbd2 statistics). */
double trace_jiffies_ms(unsigned long long j, unsigned long long n);

/* The deletion-relevant syscalls shown in detail (SYS_* numbers). */
extern const int trace_detail_nrs[];
extern const int trace_detail_count;

/* The kernel's HZ, which the jbd2 statistics count in: from the kernel
 * config when it is readable, else 250. */
int trace_kernel_hz(void);

/* Consecutive ext4 unlinks of a thread whose inodes are fewer than this
 * apart count as in order (the report's "unlink order" line). */
#define TRACE_INO_NEAR 64
double trace_ino_near_share(const struct probe_hist *h);

/* H as the JSON's histogram object KEY: count, total, mean, p50, p99,
 * max_bound and the non-empty buckets as [value, count] pairs. */
void trace_json_hist(struct json_writer *w, const char *key, const struct probe_hist *h);

#endif
