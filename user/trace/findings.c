// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace verdict (findings.h): the catalogue and its engine. The
 * catalogue, finding_rules[], is one table from the parts of the traced
 * threads' whole time (findings_ctx.c) to a cause: its id, its name in
 * words, the parts it claims, its generic remedy and a command that
 * confirms it without adaptrm. Every part belongs to one row, so the shares
 * sum to 1. The engine sums each row's parts and runs its rule, which only
 * decides whether the cause applies and words the evidence (findings_cpu.c,
 * findings_io.c); a rule computes the share itself where it needs
 * conditions. The explaining rows (inode order, getdents batches,
 * allocator) say why part of a finding's time was spent, and never claim
 * more than it. The engine runs the rules once on one partition, ranks
 * their findings and merges the minor ones. */
#include "trace/findings.h"
#include "probes/subsys.h"
#include "trace/findings_int.h"
#include "trace/result.h"
#include "trace/subsys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P FINDING_PART
#define NOTHING_IN_THE_DELETER "Nothing in the deleter changes this."
#define WARM_OR_FASTER "A warm cache or a faster device helps."

/* The catalogue. In this order: equal shares keep it in the ranking. */
static const struct finding_rule finding_rules[] = {
	/* ---- runnable: a CPU quota, the threads' own number, other tasks ---- */
	{ .id = "cpu_quota",
	  .title = "CPU quota",
	  .remedy = "Raise or lift the quota (cpu.cfs_quota_us, cpu.max) or delete outside this "
		    "cgroup: more threads cannot help, the quota caps them together.",
	  .confirm = "cat /sys/fs/cgroup/CGROUP/cpu.stat (nr_throttled, throttled_usec)",
	  .parts = { P(quota) },
	  .fn = rule_cpu_quota },
	{ .id = "cpu_oversubscription",
	  .title = "CPU oversubscription",
	  .remedy = "Fewer workers (one per CPU) would not wait.",
	  .confirm = "vmstat 1 (r, the runnable tasks, above the CPUs)",
	  .parts = { P(runq_own) },
	  .fn = rule_cpu_oversubscription },
	{ .id = "cpu_contention",
	  .title = "CPU contention",
	  .remedy = "Nothing in the deleter changes this: run it when the CPUs are free, or give "
		    "it a larger CPU weight (nice, cgroup v2's cpu.weight, v1's cpu.shares).",
	  .confirm = "top (the other tasks' CPU); cat /proc/pressure/cpu",
	  .fn = rule_cpu_contention },
	{ .id = "fs_worker_cpu",
	  .title = "Filesystem threads on the CPUs",
	  .remedy = "Nothing in the deleter changes this: it is the deletes' deferred work, not "
		    "other load, and needs the CPUs as much as the unlinks do; a quiet machine "
		    "would not remove it.",
	  .confirm = "top -H (jbd2, xfsaild, the btrfs and xfs kworkers)",
	  .parts = { P(fsw_runq[PROBE_FSW_XFS]), P(fsw_runq[PROBE_FSW_EXT4]),
		     P(fsw_runq[PROBE_FSW_BTRFS]) },
	  .fn = rule_fs_worker_cpu },
	/* ---- memory ---- */
	{ .id = "memcg_reclaim",
	  .title = "Memory-cgroup reclaim",
	  .remedy = "Raise the limit (memory.limit_in_bytes, memory.max): the dentries, inodes "
		    "and page cache a delete touches, and the group's dirty data, are charged to "
		    "it.",
	  .confirm = "cat /sys/fs/cgroup/CGROUP/memory.events (max; v1: memory.failcnt)",
	  .parts = { P(kcpu[TCPU_RECLAIM]), P(cause[TC_RECLAIM]) },
	  .fn = rule_memcg_reclaim },
	{ .id = "memory_reclaim",
	  .title = "Direct reclaim",
	  .remedy = "Nothing in the deleter changes this; free memory elsewhere.",
	  .confirm = "grep -E 'allocstall|pgscan_direct' /proc/vmstat; cat /proc/pressure/memory",
	  .parts = { P(kcpu[TCPU_RECLAIM]), P(cause[TC_RECLAIM]) },
	  .fn = rule_memory_reclaim },
	/* ---- locks ---- */
	{ .id = "directory_lock_contention",
	  .title = "Directory-lock contention",
	  .remedy = "Fewer workers unlinking in one directory (one directory per worker) removes "
		    "this wait.",
	  .confirm = "cat /proc/PID/stack (down_write in do_unlinkat); fuser -v DIR",
	  .parts = { P(dir_lock) },
	  .fn = rule_directory_lock },
	{ .id = "lock_contention",
	  .title = "Lock contention",
	  .remedy = "Fewer threads working on the kernel object the top site names wait less for "
		    "it.",
	  .confirm = "perf lock contention -a -b -- sleep 5",
	  .fn = rule_other_locks },
	{ .id = "lock_spinning",
	  .title = "Spinning on locks",
	  .remedy = "Fewer threads working on the same kernel object spin less.",
	  .confirm = "perf top -g (native_queued_spin_lock_slowpath, osq_lock)",
	  .parts = { P(kcpu[TCPU_SPIN]) },
	  .fn = rule_lock_spinning },
	/* ---- the reads, and the device behind them: one of the device's
	 * findings, or the reads by kind ---- */
	{ .id = "device_throttled",
	  .title = "Reads held above the device",
	  .remedy = "Raise the limit that holds them (a cgroup's io.max or blkio.throttle.*, a "
		    "hypervisor's rate cap); a faster device would not help.",
	  .confirm = "cat /sys/fs/cgroup/CGROUP/io.max; iostat -x 1 (r_await far above the "
		     "device's service time)",
	  .parts = { P(reads[0]), P(reads[1]), P(reads[2]), P(reads[3]), P(reads[4]), P(reads[5]),
		     P(buf_reads), P(cause[TC_BLOCK_IO]) },
	  .fn = rule_device_throttled },
	{ .id = "slow_device",
	  .title = "A slow device",
	  .remedy = "A faster device, or a warm cache, helps; more workers keep more reads in "
		    "flight where the device serves them in parallel.",
	  .confirm = "iostat -x 1 (r_await of the device)",
	  .parts = { P(reads[0]), P(reads[1]), P(reads[2]), P(reads[3]), P(reads[4]), P(reads[5]),
		     P(buf_reads), P(cause[TC_BLOCK_IO]) },
	  .fn = rule_slow_device },
	{ .id = "inode_table_reads",
	  .title = "Metadata reads",
	  .remedy = "Unlinking in inode order reads each inode-table block once (GNU rm sorts big "
		    "directories); past that only a warm cache or a faster device helps.",
	  .confirm = "iostat -x 1 (reads while it deletes)",
	  .parts = { P(reads[0]) },
	  .fn = rule_read_kind },
	{ .id = "directory_block_reads",
	  .title = "Metadata reads",
	  .remedy = "Each directory is read once however it is deleted; a warm cache or a faster "
		    "device helps, more workers keep more reads in flight.",
	  .confirm = "iostat -x 1 (reads while it deletes)",
	  .parts = { P(reads[1]) },
	  .fn = rule_read_kind,
	  .arg = 1 },
	{ .id = "bitmap_reads",
	  .title = "Metadata reads",
	  .remedy = "Freeing blocks and inodes reads their groups' bitmaps; nothing in the "
		    "deleter changes which groups the files are in.",
	  .confirm = "iostat -x 1 (reads while it deletes)",
	  .parts = { P(reads[2]) },
	  .fn = rule_read_kind,
	  .arg = 2 },
	{ .id = "extent_tree_reads",
	  .title = "Metadata reads",
	  .remedy = "A file's extent tree is read to free its extents: the more fragmented the "
		    "file, the more leaves. Nothing in the deleter changes this; fewer extents "
		    "(preallocation, defragmenting) do.",
	  .confirm = "filefrag FILE (its extents)",
	  .parts = { P(reads[3]) },
	  .fn = rule_read_kind,
	  .arg = 3 },
	{ .id = "btree_reads",
	  .title = "Metadata reads",
	  .remedy = "The filesystem reads its metadata b-trees to find what to free; a warm cache "
		    "or a faster device helps.",
	  .confirm = "iostat -x 1 (reads while it deletes)",
	  .parts = { P(reads[4]) },
	  .fn = rule_read_kind,
	  .arg = 4 },
	{ .id = "metadata_reads",
	  .title = "Metadata reads",
	  .remedy = WARM_OR_FASTER,
	  .confirm = "iostat -x 1 (reads while it deletes)",
	  .parts = { P(reads[5]) },
	  .fn = rule_read_kind,
	  .arg = 5 },
	{ .id = "locked_buffer_reads",
	  .title = "Metadata reads behind a buffer lock",
	  .remedy = "A warm cache or a faster device helps; more workers only queue behind the "
		    "same reads.",
	  .confirm = "cat /proc/PID/stack (xfs_buf_lock); iostat -x 1",
	  .parts = { P(buf_reads) },
	  .fn = rule_locked_buffer_reads },
	{ .id = "blocked_on_io",
	  .title = "Blocked on block I/O",
	  .remedy = "A faster or less loaded device, or a warm cache, shortens these waits.",
	  .confirm = "iostat -x 1",
	  .parts = { P(cause[TC_BLOCK_IO]) },
	  .fn = rule_blocked_on_io },
	/* ---- the journal ---- */
	{ .id = "journal_forced_by_other",
	  .title = "Journal commits forced by another process",
	  .remedy = "Find the process that syncs; nothing in the deleter changes this.",
	  .confirm = "perf trace -a -e fsync,fdatasync,syncfs,sync (who syncs); cat "
		     "/proc/fs/jbd2/*/info",
	  .fn = rule_journal_forced },
	{ .id = "journal_space",
	  .title = "Journal space",
	  .remedy = "A bigger journal (tune2fs -J size=, mkfs.ext4 -J size=) makes checkpoints "
		    "rarer; unlinking in inode order dirties fewer blocks per transaction.",
	  .confirm = "cat /proc/PID/stack (jbd2_log_wait_commit under add_transaction_credits); "
		     "dumpe2fs -h DEV | grep -i journal",
	  .parts = { P(journal_space) },
	  .fn = rule_journal_space },
	{ .id = "journal_commit_waits",
	  .title = "Journal commits",
	  .remedy = "Fewer dirtied blocks per unlink (inode order) makes commits shorter.",
	  .confirm = "cat /proc/fs/jbd2/DEV-8/info (commits and their average time); grep -E "
		     "'sync' /proc/mounts",
	  .fn = rule_journal_commits },
	/* ---- writeback, discard ---- */
	{ .id = "writeback_throttle",
	  .title = "Writeback throttling",
	  .remedy = "Nothing in the deleter changes this; less dirty data beside it does.",
	  .confirm = "grep -E 'Dirty|Writeback' /proc/meminfo; cat /proc/pressure/io",
	  .parts = { P(wb_throttle) },
	  .fn = rule_writeback_throttle },
	{ .id = "discard_io",
	  .title = "Online discard",
	  .remedy = "Mount without discard and run fstrim periodically.",
	  .confirm = "grep -E 'discard' /proc/mounts; iostat -x 1 (d/s, the discards)",
	  .fn = rule_discard },
	/* ---- xfs, btrfs, FUSE, overlayfs ---- */
	{ .id = "xfs_inodegc",
	  .title = "XFS inode GC",
	  .remedy = NOTHING_IN_THE_DELETER,
	  .confirm = "cat /proc/PID/stack (xfs_inodegc_flush); top -H (the xfs-inodegc kworkers)",
	  .parts = { P(cause[TC_XFS_INODEGC]), P(gc_runq) },
	  .fn = rule_xfs_inodegc },
	{ .id = "xfs_log_forces",
	  .title = "XFS log forces",
	  .remedy = "Remount without wsync for the delete (it serves NFS exports that need "
		    "synchronous namespace operations).",
	  .confirm = "grep -E 'wsync|dirsync' /proc/mounts; cat /proc/PID/stack "
		     "(xlog_wait_on_iclog)",
	  .parts = { P(xfs_sync_commit) },
	  .fn = rule_xfs_log_forces },
	{ .id = "xfs_log_waits",
	  .title = "XFS log space",
	  .remedy = "A bigger log (mkfs.xfs -l size=) gives the unlinks more room.",
	  .confirm = "xfs_info MOUNT (the log's size); cat /proc/PID/stack (xlog_grant_head_wait)",
	  .fn = rule_xfs_log },
	{ .id = "btrfs_tree_locks",
	  .title = "Btrfs tree locks",
	  .remedy = "Fewer workers per directory: workers in one directory serialize on the same "
		    "leaves.",
	  .confirm = "cat /proc/PID/stack (btrfs_tree_lock)",
	  .parts = { P(btrfs[0]) },
	  .fn = rule_btrfs_kind },
	{ .id = "btrfs_transaction_commit",
	  .title = "Btrfs transaction commits",
	  .remedy = "Nothing in the deleter changes this: btrfs makes operations wait while it "
		    "commits.",
	  .confirm = "cat /proc/PID/stack (wait_current_trans, btrfs_commit_transaction)",
	  .parts = { P(btrfs[1]) },
	  .fn = rule_btrfs_kind,
	  .arg = 1 },
	{ .id = "btrfs_delayed_work",
	  .title = "Btrfs delayed items",
	  .remedy = "Nothing in the deleter changes this: unlinks queue delayed items and are "
		    "throttled to the speed of their flushing.",
	  .confirm = "cat /proc/PID/stack (btrfs_balance_delayed_items)",
	  .parts = { P(btrfs[2]) },
	  .fn = rule_btrfs_kind,
	  .arg = 2 },
	{ .id = "btrfs_space",
	  .title = "Btrfs metadata space",
	  .remedy = NOTHING_IN_THE_DELETER,
	  .confirm = "btrfs filesystem usage MOUNT (metadata used and allocated)",
	  .parts = { P(btrfs[3]) },
	  .fn = rule_btrfs_kind,
	  .arg = 3 },
	{ .id = "btrfs_waits",
	  .title = "Btrfs",
	  .remedy = "The top site names the btrfs work the threads waited for; nothing in the "
		    "deleter is known to change it.",
	  .confirm = "cat /proc/PID/stack while it waits",
	  .parts = { P(btrfs[4]) },
	  .fn = rule_btrfs_kind,
	  .arg = 4 },
	{ .id = "fuse_daemon",
	  .title = "FUSE daemon latency",
	  .remedy = "The daemon's answer time is the cause: more requests in flight help (more "
		    "deleting threads), or more daemon threads.",
	  .confirm = "cat /sys/fs/fuse/connections/*/waiting (requests in flight)",
	  .parts = { P(cause[TC_FUSE]) },
	  .fn = rule_fuse_daemon },
	{ .id = "overlayfs_copy_up",
	  .title = "Overlayfs copy-up and whiteouts",
	  .remedy = "Nothing in the deleter changes this; removing the lower layer itself, where "
		    "it is yours, does.",
	  .confirm = "ls -l UPPERDIR (the whiteouts: character devices 0, 0)",
	  .parts = { P(kcpu[TCPU_OVERLAY]) },
	  .fn = rule_overlayfs },
	/* ---- the kernel's and the deleter's own CPU ---- */
	{ .id = "extent_freeing",
	  .title = "Freeing data",
	  .remedy = "A fragmented file has many extents to free; --free-rate paces the freeing of "
		    "huge files, nothing makes it cheaper.",
	  .confirm = "filefrag FILE (its extents)",
	  .parts = { P(kcpu[TCPU_FREEING]) },
	  .fn = rule_extent_freeing },
	{ .id = "page_faults",
	  .title = "Page faults",
	  .remedy = "A deleter that reuses its memory, or more free memory, faults less.",
	  .confirm = "ps -o min_flt,maj_flt -p PID",
	  .parts = { P(kcpu[TCPU_FAULT]), P(cause[TC_PAGE_FAULT]) },
	  .fn = rule_page_faults },
	{ .id = "ptrace_stops",
	  .title = "Stopped by a tracer",
	  .remedy = "Run the delete without the tracer, or measure it with a tracer that does not "
		    "stop it (perf trace, adaptrm --trace).",
	  .confirm = "grep -E 'State|TracerPid' /proc/PID/status (t, and the tracer's pid)",
	  .parts = { P(stopped), P(tracer_cpu) },
	  .fn = rule_ptrace_stops },
	{ .id = "kernel_cpu",
	  .title = "Running in the kernel",
	  .remedy = "Nothing in the deleter changes this: any delete spends it on each unlink.",
	  .confirm = "perf top -g -p PID",
	  .fn = rule_kernel_cpu },
	{ .id = "user_cpu",
	  .title = "User-space CPU",
	  .remedy = "A compiled deleter that does no per-entry work (rm, adaptrm) needs a "
		    "fraction of this.",
	  .confirm = "ps -o utime,stime -p PID",
	  .parts = { P(user) },
	  .fn = rule_user_cpu },
	/* ---- the remaining waits ---- */
	{ .id = "writeback_waits",
	  .title = "Writeback",
	  .remedy = "Nothing in the deleter changes this: the device's writeback sets the pace.",
	  .confirm = "grep -E 'Dirty|Writeback' /proc/meminfo",
	  .parts = { P(cause[TC_WRITEBACK]) },
	  .fn = rule_writeback_waits },
	{ .id = "peer_waits",
	  .title = "Waiting for another process",
	  .remedy = "The other end of the pipeline, not the filesystem, sets the pace.",
	  .confirm = "ls -l /proc/PID/fd (the pipe or socket); cat /proc/PID/stack of the other "
		     "end",
	  .parts = { P(cause[TC_PEER]) },
	  .fn = rule_peer_waits },
	{ .id = "other_waits",
	  .title = "Other waits",
	  .remedy = "The top site and the process that ended the waits say what to change.",
	  .confirm = "cat /proc/PID/stack while it waits",
	  .parts = { P(cause[TC_OTHER]) },
	  .fn = rule_other_waits },
	{ .id = "unattributed_waits",
	  .title = "Unattributed waits",
	  .remedy = "A shorter trace, or one of fewer processes, keeps every wait site.",
	  .parts = { P(lost) },
	  .fn = rule_unattributed_waits },
	/* each kernel subsystem's part: a family, its words probes/subsys.c's */
	{ .id = "subsystems", .fn = rule_subsystems },
	/* ---- the states, and what no state holds ---- */
	{ .id = "signal_stop",
	  .title = "Stopped by a signal",
	  .remedy = "Continue it (kill -CONT PID, or fg or bg in its shell), and find who stops "
		    "it.",
	  .confirm = "grep State /proc/PID/status (T: stopped)",
	  .parts = { P(sigstop) },
	  .fn = rule_signal_stop },
	{ .id = "frozen",
	  .title = "Frozen",
	  .remedy = "Thaw it (echo THAWED > freezer.state, or 0 > cgroup.freeze).",
	  .confirm = "cat /proc/PID/cgroup, then the group's freezer.state or cgroup.freeze",
	  .parts = { P(frozen) },
	  .fn = rule_frozen },
	{ .id = "other_states",
	  .title = "Other scheduler states",
	  .remedy = "None the trace can name: the scheduler's own states (parked, dying, new).",
	  .confirm = "grep State /proc/PID/task/*/status",
	  .parts = { P(other_state) },
	  .fn = rule_other_states },
	{ .id = "before_trace",
	  .title = "Off CPU since before tracing began",
	  .remedy = "Attach earlier, or trace the command itself.",
	  .parts = { P(pretrace) },
	  .fn = rule_before_trace,
	  .flags = FR_NOT_CAUSE },
	{ .id = "not_accounted",
	  .title = "Not accounted",
	  .remedy = "Trace the command itself, from its start, so that the probes see every state.",
	  .parts = { P(unaccounted) },
	  .fn = rule_not_accounted },
	{ .id = "idle_waits",
	  .title = "Idle, not a cause",
	  .remedy = "None needed: the threads chose to wait.",
	  .parts = { P(idle) },
	  .fn = rule_idle_waits,
	  .flags = FR_NOT_CAUSE },
	/* ---- the explaining rows ---- */
	{ .id = "scattered_inode_order",
	  .title = "Unlinks in scattered inode order",
	  .remedy = "Unlink a big directory in inode order (GNU rm sorts past 10,000 entries): "
		    "each block is then touched once.",
	  .confirm = "ls -f -i DIR | head (the order read, with inode numbers)",
	  .fn = rule_scattered_inodes,
	  .flags = FR_EXPLAINS },
	{ .id = "small_getdents_batches",
	  .title = "Small getdents64 batches",
	  .remedy = "A 64 KiB or larger buffer needs several times fewer calls.",
	  .confirm = "strace -e trace=getdents64 ls -f DIR > /dev/null (the bytes each call "
		     "returns)",
	  .fn = rule_small_getdents,
	  .flags = FR_EXPLAINS },
	{ .id = "allocator_churn",
	  .title = "Allocator churn",
	  .remedy = "Reusing buffers removes these calls.",
	  .confirm = "strace -c -e trace=brk,mmap,munmap -p PID",
	  .fn = rule_allocator_churn,
	  .flags = FR_EXPLAINS },
};
#define NRULES (sizeof finding_rules / sizeof *finding_rules)

/* The engine's own finding: the parts under 1% merged. */
static const struct finding_rule minor_row = {
	.id = "minor_parts",
	.title = "Smaller parts",
	.remedy = "Each is too small to act on before the larger parts.",
};

/* The sum of ROW's parts of C, ns. */
static double parts_sum(const struct finding_ctx *c, const struct finding_rule *row)
{
	double ns = 0;

	for (int i = 0; i < FINDING_MAX_PARTS && row->parts[i]; i++)
		ns += *(const double *)((const char *)c + row->parts[i]);
	return ns;
}

/* Adds one entry's words to OUT (room for MAX), counting it in *N. */
static void put_words(struct trace_finding_words *out, int max, int *n, const char *id,
		      const char *title, const char *remedy, const char *confirm)
{
	if (*n < max)
		out[*n] = (struct trace_finding_words){ id, title, remedy, confirm ? confirm : "" };
	(*n)++;
}

int trace_finding_catalogue(struct trace_finding_words *out, int max)
{
	int n = 0;

	for (size_t i = 0; i < NRULES; i++) {
		const struct finding_rule *row = &finding_rules[i];
		if (row->fn != rule_subsystems) {
			put_words(out, max, &n, row->id, row->title, row->remedy, row->confirm);
			continue;
		}
		for (int ss = 0; ss < SS_COUNT; ss++)
			put_words(out, max, &n, trace_subsys_finding_id(ss), subsys_name(ss),
				  subsys_remedy(ss), subsys_confirm(ss));
	}
	put_words(out, max, &n, minor_row.id, minor_row.title, minor_row.remedy, minor_row.confirm);
	return n;
}

/* causes by share, largest first; what is not a cause last */
static int cmp_share(const void *a, const void *b)
{
	const struct trace_finding *x = a, *y = b;
	if (x->cause != y->cause)
		return x->cause ? -1 : 1;
	return x->share < y->share ? 1 : x->share > y->share ? -1 : 0;
}

double trace_findings_total(const struct trace_finding *f, int n)
{
	double t = 0;
	for (int i = 0; i < n; i++)
		if (!f[i].explains)
			t += f[i].share;
	return t;
}

/* Other load on the CPUs is context, not the delete's cause: it ranks
 * first only when it is most of the time the threads were not idle and no
 * cause of the delete's own (its CPU aside, which any delete spends) holds
 * half of the rest; otherwise it goes after every other cause. Idle time
 * (a pool's workers without work) is no time the load took from it. */
#define CONTEXT_FIRST_SHARE 0.5
static bool baseline(const struct trace_finding *f)
{
	return !strcmp(f->id, "kernel_cpu") || !strcmp(f->id, "user_cpu") ||
	       !strcmp(f->id, "minor_parts");
}

static void demote_context(struct trace_finding *f, int n)
{
	int i = 0;

	/* the finding of the threads waiting behind each other is no context */
	while (i < n && (strcmp(f[i].id, "cpu_contention") ||
			 !strstr(f[i].evidence, "while other tasks held")))
		i++;
	if (i >= n)
		return;
	double active = 1;
	for (int j = 0; j < n; j++)
		if (!f[j].cause && !f[j].explains)
			active -= f[j].share;
	bool explained = false;
	for (int j = 0; j < n; j++)
		if (j != i && f[j].cause && !baseline(&f[j]) &&
		    f[j].share >= 0.5 * (active - f[i].share))
			explained = true;
	if (active > 0 && f[i].share > CONTEXT_FIRST_SHARE * active && !explained)
		return;
	struct trace_finding ctx = f[i];
	for (; i + 1 < n && f[i + 1].cause; i++)
		f[i] = f[i + 1];
	f[i] = ctx;
}

/* Ranked by what removing the cause would save: the deleter's own kernel
 * CPU (the unlinks' work, which any delete spends) saves nothing, so a
 * removable cause of at least this share of the whole ranks before it. */
#define REMOVABLE_FIRST_SHARE 0.1
static void demote_baseline(struct trace_finding *f, int n)
{
	int b = 0;

	while (b < n && strcmp(f[b].id, "kernel_cpu"))
		b++;
	if (b >= n)
		return;
	int last = b;
	for (int j = b + 1; j < n && f[j].cause; j++)
		if (!baseline(&f[j]) && strcmp(f[j].id, "cpu_contention") &&
		    f[j].share >= REMOVABLE_FIRST_SHARE)
			last = j;
	if (last == b)
		return;
	struct trace_finding k = f[b];
	memmove(&f[b], &f[b + 1], (size_t)(last - b) * sizeof *f);
	f[last] = k;
}

/* Parts under this share of the time that is not idle are merged into one
 * "minor_parts" finding. */
#define MINOR_SHARE 0.01
#define MINOR_LOCK_SHARE 0.05

/* The catalogue's findings on the partition C, ranked and merged: at most
 * MAX (findings.h's trace_findings). */
static int rank_findings(const struct finding_ctx *c, struct trace_finding *out, int max)
{
	struct trace_finding top[3 * TRACE_MAX_FINDINGS + PROBE_LOCK_TYPES], sub[8];
	struct finding_sink kt = { .out = top, .max = (int)(sizeof top / sizeof *top) };
	struct finding_sink ks = { .out = sub, .max = (int)(sizeof sub / sizeof *sub) };

	if (max <= 0 || c->base <= 1)
		return 0;
	for (size_t i = 0; i < NRULES; i++) {
		const struct finding_rule *row = &finding_rules[i];
		struct finding_sink *k = row->flags & FR_EXPLAINS ? &ks : &kt;
		k->rule = row;
		k->id = row->id;
		k->explains = NULL;
		k->ns = parts_sum(c, row);
		k->claimed = sh(c, k->ns);
		/* a row with parts has no finding without time in them */
		if (row->parts[0] && k->ns <= 0)
			continue;
		row->fn(c, k);
	}
	qsort(top, kt.n, sizeof *top, cmp_share);
	/* the parts under 1% of the time that is not idle (a pool of idle
	 * workers must not hide a cause): one finding, named by the largest */
	double busy = 1 - sh(c, c->idle);
	int n = 0, minor = 0;
	double mshare = 0;
	char names[400] = "";
	for (int i = 0; i < kt.n; i++) {
		/* lock types and btrfs tree locks under 5%: contention with kernel
		 * workers that any delete meets (btrfs delayed nodes and tree
		 * locks), not a cause */
		double floor = !strcmp(top[i].id, "lock_contention") ||
					       !strcmp(top[i].id, "btrfs_tree_locks") ?
				       MINOR_LOCK_SHARE :
				       MINOR_SHARE;
		if (top[i].share >= floor * busy || kt.n == 1 || !top[i].cause) {
			top[n++] = top[i];
			continue;
		}
		if (top[i].share <= 0)
			continue;
		size_t l = strlen(names);
		if (minor < 4 && l + 40 < sizeof names)
			snprintf(names + l, sizeof names - l, "%s%s %.1f%%", minor ? ", " : "",
				 top[i].id, 100 * top[i].share);
		mshare += top[i].share;
		minor++;
	}
	if (minor) {
		/* ranked by its share among the causes, before what is not a
		 * cause: the merged parts can outweigh a cause of their own */
		int at = n;
		while (at > 0 && (!top[at - 1].cause || top[at - 1].share < mshare))
			at--;
		memmove(&top[at + 1], &top[at], (size_t)(n - at) * sizeof *top);
		struct trace_finding *f = &top[at];
		n++;
		f->id = minor_row.id;
		f->explains = NULL;
		f->share = mshare;
		f->cause = true;
		f->title = minor_row.title;
		f->remedy = minor_row.remedy;
		f->confirm = "";
		snprintf(f->evidence, sizeof f->evidence,
			 "%d under 1%% each, lock types under 5%% (%s%s)", minor, names,
			 minor > 4 ? ", ..." : "");
	}
	demote_baseline(top, n);
	demote_context(top, n);
	/* each top-level finding, then what explains it (never more than it);
	 * cut at MAX */
	int m = 0;
	for (int i = 0; i < n && m < max; i++) {
		out[m++] = top[i];
		for (int j = 0; j < ks.n && m < max; j++)
			if (!strcmp(sub[j].explains, top[i].id)) {
				out[m] = sub[j];
				if (out[m].share > top[i].share)
					out[m].share = top[i].share;
				m++;
			}
	}
	return m;
}

int trace_findings(const struct trace_result *r, struct trace_finding *out, int max)
{
	struct finding_ctx c;

	if (!r->total || max <= 0)
		return 0;
	finding_ctx_init(&c, r);
	return rank_findings(&c, out, max);
}

void trace_verdict_compute(const struct trace_result *r, struct trace_verdict *v)
{
	struct finding_ctx c;

	memset(v, 0, sizeof *v);
	if (!r->total)
		return;
	finding_ctx_init(&c, r);
	v->whole_ns = c.base > 1 ? c.base : 0;
	v->helper_ns = c.helpers;
	v->unaccounted_ns = c.unaccounted;
	v->n = rank_findings(&c, v->findings, TRACE_MAX_FINDINGS);
	v->total_share = trace_findings_total(v->findings, v->n);
}
