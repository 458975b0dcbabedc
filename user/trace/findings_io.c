// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace catalogue's rules for filesystems and devices: metadata
 * reads, the journal and its commits, discards, xfs, btrfs, FUSE and
 * overlayfs (findings_int.h); and the explaining rules, which say why part
 * of a finding's time was spent and never claim more than it. */
#include "probes/hist.h"
#include "trace/findings_int.h"
#include "trace/measure.h"
#include "trace/result.h"
#include "trace/states.h"
#include "trace/subsys.h"
#include "trace/waits.h"
#include "trace/wakers.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the device behind the reads ---- */

/* The reads waited far longer than the device serves a request: something
 * above the device holds them (a cgroup's I/O throttle, a queue). */
#define THROTTLE_RATIO 20.0
/* A device that serves a request this slowly is itself the cause. */
#define SLOW_DEVICE_NS 2e6
/* Under a cgroup's I/O limit, waits this much longer than the device's
 * service time are the limit's; waits as short as the service time were not
 * held by it, and a faster device would help after all. */
#define LIMITED_RATIO 2.0

enum read_verdict { READS_KINDS, READS_THROTTLED, READS_SLOW_DEVICE };

/* The cgroup's I/O limit is on a device the delete read from (or the
 * device is not known). */
static bool io_limit_here(const struct finding_ctx *c)
{
	const struct trace_limits *l = &c->r->limits;
	if (!l->io_limit[0])
		return false;
	if (!l->io_dev)
		return true;
	for (int i = 0; i < c->r->ndevs; i++)
		if (c->r->devs[i].traced && c->r->devs[i].dev == l->io_dev)
			return true;
	return false;
}

static enum read_verdict reads_verdict(const struct finding_ctx *c, double *service, double *per_wait)
{
	const struct probe_hist *bl = &c->dev.bio_lat;
	*service = bl->count ? hist_quantile(bl, 0.5) : 0;
	*per_wait = c->read_waits ? c->read_wait_ns / (double)c->read_waits : 0;
	if (io_limit_here(c) && c->read_wait_ns > 0 &&
	    (bl->count < 3 || *per_wait > LIMITED_RATIO * *service))
		return READS_THROTTLED;
	if (*service > 0 && *per_wait > THROTTLE_RATIO * *service && bl->count >= 3)
		return READS_THROTTLED;
	if (*service >= SLOW_DEVICE_NS)
		return READS_SLOW_DEVICE;
	return READS_KINDS;
}

/* The delete's device whose requests took longest (p50), by name. */
static const char *slowest_device(const struct finding_ctx *c)
{
	const char *name = "";
	double worst = -1;
	for (int i = 0; i < c->r->ndevs; i++) {
		const struct probe_dev_stat *d = probes_dev_find(c->s, c->r->devs[i].dev);
		if (!c->r->devs[i].traced || !d || !d->bio_lat.count)
			continue;
		double p50 = hist_quantile(&d->bio_lat, 0.5);
		if (p50 > worst) {
			worst = p50;
			name = c->r->devs[i].name;
		}
	}
	return name;
}

/* "inode-table reads" for the largest kind of read */
static const char *main_read_kind(const struct finding_ctx *c)
{
	static const char *const names[NREADS] = { "inode-table",      "directory-block", "bitmap",
						   "extent-tree leaf", "b-tree node",	  "metadata" };
	int best = NREADS - 1;
	for (int i = 0; i < NREADS; i++)
		if (c->reads[i] > c->reads[best])
			best = i;
	return names[best];
}


void rule_metadata_reads(const struct finding_ctx *c, struct finding_sink *k)
{
	static const struct {
		const char *id, *what, *remedy;
	} kinds[NREADS] = {
		{ "inode_table_reads", "inode-table blocks",
		  "Unlinking in inode order reads each inode-table block once (GNU rm sorts big "
		  "directories); past that only a warm cache or a faster device helps." },
		{ "directory_block_reads", "directory blocks",
		  "Each directory is read once however it is deleted; a warm cache or a faster "
		  "device helps, more workers keep more reads in flight." },
		{ "bitmap_reads", "block and inode bitmaps",
		  "Freeing blocks and inodes reads their groups' bitmaps; nothing in the deleter "
		  "changes which groups the files are in." },
		{ "extent_tree_reads", "extent-tree leaves",
		  "A file's extent tree is read to free its extents: the more fragmented the file, "
		  "the more leaves. Nothing in the deleter changes this; fewer extents "
		  "(preallocation, defragmenting) do." },
		{ "btree_reads", "b-tree nodes",
		  "The filesystem reads its metadata b-trees to find what to free; a warm cache or "
		  "a faster device helps." },
		{ "metadata_reads", "metadata blocks", "A warm cache or a faster device helps." },
	};
	const struct probe_hist *bl = &c->dev.bio_lat;
	double service, per_wait;
	char b1[32], b2[32], b3[32];

	if (finding_reads_sum(c) + c->cause[TC_BLOCK_IO] <= 0 ||
	    reads_verdict(c, &service, &per_wait) != READS_KINDS)
		return;
	for (int i = 0; i < NREADS; i++) {
		if (c->reads[i] <= 0)
			continue;
		k->id = kinds[i].id;
		finding_add(k, sh(c, c->reads[i]),
			    "Metadata reads: the threads waited %s for %s read from the device (top site "
			    "%s; the delete's devices served %llu requests, p50 %s, a wait took %s on "
			    "average): a cold cache. %s",
			    trace_fmt_ns(c->reads[i], b1, sizeof b1), kinds[i].what,
			    finding_top_site(c, TC_META_READ,
					     i < NREADS - 1 ? finding_read_kinds[i] : NULL),
			    (unsigned long long)bl->count, trace_fmt_ns(service, b2, sizeof b2),
			    trace_fmt_ns(per_wait, b3, sizeof b3), kinds[i].remedy);
	}
	if (c->buf_reads > 0) {
		k->id = "locked_buffer_reads";
		finding_add(
			k, sh(c, c->buf_reads),
			"Metadata reads behind a buffer lock: the threads waited %s in xfs_buf_lock for "
			"buffers (AG headers, inode clusters) that the lock's holder was reading from "
			"the device (%llu waits overlapped a read of their buffer; device p50 %s): a "
			"cold cache, not contention among CPUs. A warm cache or a faster device helps; "
			"more workers only queue behind the same reads.",
			trace_fmt_ns(c->buf_reads, b1, sizeof b1),
			(unsigned long long)c->m->xfs_buf_lock_reads,
			trace_fmt_ns(service, b2, sizeof b2));
	}
	if (c->cause[TC_BLOCK_IO] > 0) {
		k->id = "blocked_on_io";
		finding_add(k, sh(c, c->cause[TC_BLOCK_IO]),
			    "Blocked on block I/O: the threads waited %s for block requests (%llu waits, "
			    "top site %s; device p50 %s).",
			    trace_fmt_ns(c->cause[TC_BLOCK_IO], b1, sizeof b1),
			    (unsigned long long)finding_cause_waits(c, TC_BLOCK_IO),
			    finding_top_site(c, TC_BLOCK_IO, NULL),
			    trace_fmt_ns(service, b2, sizeof b2));
	}
}

/* the reads held above the device, or by a slow device: one finding */
void rule_device_reads(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	double service, per_wait, ns = finding_reads_sum(c) + c->cause[TC_BLOCK_IO];
	char b1[32], b2[32], b3[32];

	if (ns <= 0)
		return;
	enum read_verdict v = reads_verdict(c, &service, &per_wait);
	if (v == READS_THROTTLED) {
		k->id = "device_throttled";
		if (io_limit_here(c))
			finding_add(
				k, sh(c, ns),
				"I/O throttle: the threads waited %s for %s reads (%llu waits, %s each on "
				"average) that the device serves in %s (p50): the cgroup %s limits them "
				"(%s). Raise the limit (blkio.throttle.*, io.max) or delete outside the "
				"cgroup; a faster device would not help.",
				trace_fmt_ns(ns, b1, sizeof b1), main_read_kind(c),
				(unsigned long long)c->read_waits,
				trace_fmt_ns(per_wait, b2, sizeof b2),
				trace_fmt_ns(service, b3, sizeof b3), l->io_cgroup, l->io_limit);
		else
			finding_add(
				k, sh(c, ns),
				"Reads held above the device: the threads waited %s for %s reads (%llu "
				"waits, %s each on average) that the device serves in %s (p50): a "
				"throttle or a queue above it (an I/O cgroup limit, a hypervisor's "
				"rate cap) holds them. Raise that limit; a faster device would not help.",
				trace_fmt_ns(ns, b1, sizeof b1), main_read_kind(c),
				(unsigned long long)c->read_waits,
				trace_fmt_ns(per_wait, b2, sizeof b2),
				trace_fmt_ns(service, b3, sizeof b3));
	} else if (v == READS_SLOW_DEVICE) {
		k->id = "slow_device";
		finding_add(
			k, sh(c, ns),
			"A slow device: the threads waited %s for %s reads (%llu waits), and the device "
			"%s itself takes %s per request (p50). A faster device, or a warm cache, helps; "
			"more workers keep more reads in flight where the device serves them in "
			"parallel.",
			trace_fmt_ns(ns, b1, sizeof b1), main_read_kind(c),
			(unsigned long long)c->read_waits, slowest_device(c),
			trace_fmt_ns(service, b2, sizeof b2));
	}
}

/* with online discard, ext4 issues the discards in the commit: the commit
 * waits are then discard waits */
static bool discard_in_commit(const struct finding_ctx *c)
{
	return c->discard_mount && (c->dev.bio_discards || c->dev.ext4_discards);
}

/* fsync, fdatasync, sync, syncfs and sync_file_range calls of the traced
 * threads: commits they asked for */
static uint64_t traced_syncs(const struct finding_ctx *c)
{
	const struct probe_sc_stat *sc = c->s->sc;
	return sc[SYS_fsync].lat.count + sc[SYS_fdatasync].lat.count + sc[SYS_sync].lat.count +
	       sc[SYS_syncfs].lat.count + sc[SYS_sync_file_range].lat.count;
}

/* Other processes' syncs that reach the delete's filesystems: of files
 * there, and sync(2) (a sync on another disk forces no commit here). */
static unsigned long long others_syncs(const struct finding_ctx *c)
{
	return c->dev.other_syncs + c->m->other_global_syncs;
}

/* commits the traced threads did not ask for: they made no sync call, and
 * other processes made as many as half the commits (each sync of a file
 * with dirty metadata commits the running transaction, the deleter's
 * handles with it) */
static bool commits_forced(const struct finding_ctx *c)
{
	uint64_t syncs = traced_syncs(c);
	return syncs == 0 && c->dev.jbd2_commits >= 3 && 2 * others_syncs(c) >= c->dev.jbd2_commits;
}

/* A commit for (nearly) every entry removed, without a sync call of the
 * deleter's: synchronous directory updates (dirsync, sync, chattr +D). */
static bool commit_per_change(const struct finding_ctx *c)
{
	uint64_t syncs = traced_syncs(c);
	return syncs == 0 && c->entries >= 20 && 2 * c->dev.jbd2_commits >= c->entries &&
	       !commits_forced(c);
}

void rule_journal(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_dev_stat *d = &c->dev;
	double space = c->journal_space, commit = c->cause[TC_JOURNAL] - space;
	char b1[32], stats[256] = "";

	if (discard_in_commit(c))
		commit = 0;
	if (d->jbd2_commits)
		snprintf(stats, sizeof stats,
			 "; the delete's journal committed %llu transactions (average %.1f ms "
			 "locked, %.1f ms flushing, %.1f ms logging, %llu handles)",
			 d->jbd2_commits, trace_jiffies_ms(d->jbd2_locked, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_flushing, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_logging, d->jbd2_commits), d->jbd2_handles);
	if (commits_forced(c) && space + commit > 0) {
		/* the other process's commits fill the journal too: its
		 * checkpoints are theirs */
		k->id = "journal_forced_by_other";
		finding_add(
			k, sh(c, space + commit),
			"Journal commits forced by another process: the threads waited %s for commits "
			"they did not ask for and for the journal space those commits used up (they "
			"made no sync call; other processes made %llu while the journal committed %llu "
			"times in %.1f s%s): another process's fsync commits the shared journal, and "
			"the deleter's handles wait for it. Find the process that syncs; nothing in "
			"the deleter changes this.",
			trace_fmt_ns(space + commit, b1, sizeof b1), others_syncs(c),
			d->jbd2_commits, (double)c->r->wall_ns / 1e9, stats);
		return;
	}
	if (space > 0) {
		k->id = "journal_space";
		finding_add(k, sh(c, space),
			    "Journal space: the threads waited %s for the journal to checkpoint and free "
			    "space%s. A bigger journal (tune2fs -J size=, mkfs.ext4 -J size=) makes "
			    "checkpoints rarer; unlinking in inode order dirties fewer blocks per "
			    "transaction.",
			    trace_fmt_ns(space, b1, sizeof b1), stats);
	}
	if (commit <= 0)
		return;
	k->id = "journal_commit_waits";
	if (commit_per_change(c)) {
		finding_add(
			k, sh(c, commit),
			"Journal commits: the threads waited %s for a journal commit after every "
			"directory change (%llu waits, %llu commits for %llu entries removed, no sync "
			"call of theirs)%s: the filesystem is mounted %s, so each unlink and rmdir "
			"waits for its own commit. Mount without dirsync (or remove the directory's "
			"DIRSYNC attribute, chattr -D) for the delete.",
			trace_fmt_ns(commit, b1, sizeof b1),
			(unsigned long long)finding_cause_waits(c, TC_JOURNAL), d->jbd2_commits,
			(unsigned long long)c->entries, stats,
			c->dirsync_mount ? "sync or dirsync" :
					   "or marked synchronous (dirsync, chattr +D)");
		return;
	}
	if (traced_syncs(c)) {
		finding_add(
			k, sh(c, commit),
			"Journal commits: the threads waited %s for journal commits (%llu waits)%s, "
			"which their own %llu sync calls (fsync, fdatasync, syncfs, sync) forced. Sync "
			"once at the end, or not at all: each sync commits the journal and waits.",
			trace_fmt_ns(commit, b1, sizeof b1),
			(unsigned long long)finding_cause_waits(c, TC_JOURNAL), stats,
			(unsigned long long)traced_syncs(c));
		return;
	}
	finding_add(k, sh(c, commit),
		    "Journal commits: the threads waited %s for journal commits (%llu waits)%s. Fewer "
		    "dirtied blocks per unlink (inode order) makes commits shorter.",
		    trace_fmt_ns(commit, b1, sizeof b1),
		    (unsigned long long)finding_cause_waits(c, TC_JOURNAL), stats);
}

void rule_writeback_throttle(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (c->wb_throttle <= 0)
		return;
	finding_add(k, sh(c, c->wb_throttle),
		    "Writeback throttling: the threads were held %s by dirty-page or writeback "
		    "throttling (top site %s): the device cannot write back as fast as pages are "
		    "dirtied. Nothing in the deleter changes this; less dirty data beside it does.",
		    trace_fmt_ns(c->wb_throttle, b1, sizeof b1),
		    finding_top_site(c, TC_WRITEBACK, "throttle"));
}

void rule_discard(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_dev_stat *d = &c->dev;
	double ns = c->cause[TC_DISCARD], commit = 0;
	char b1[32];

	if (discard_in_commit(c))
		commit = c->cause[TC_JOURNAL] - c->journal_space;
	if (ns + commit <= 0)
		return;
	finding_add(k, sh(c, ns + commit),
		    "Online discard: the threads waited %s on discards%s (%llu discard requests, "
		    "%.1f MiB, on the delete's devices)%s",
		    trace_fmt_ns(ns + commit, b1, sizeof b1),
		    commit > ns ? " issued by the journal commits they waited for" :
		    commit > 0	? " (some in the journal commits they waited for)" :
				  "",
		    d->bio_discards ? d->bio_discards : d->ext4_discards,
		    (double)d->bio_discard_bytes / 1048576.0,
		    c->discard_mount ? "; mount without discard and run fstrim periodically." : ".");
}

void rule_xfs_inodegc(const struct finding_ctx *c, struct finding_sink *k)
{
	double ns = c->cause[TC_XFS_INODEGC] + c->gc_runq;
	char b1[32], b2[32], b3[32];

	if (ns <= 0)
		return;
	finding_add(k, sh(c, ns),
		    "XFS inode GC: the threads waited %s in destroy_inode for background inode "
		    "inactivation to catch up (%llu waits, %llu inode-GC throttles) and %s for a CPU "
		    "while the inodegc workers ran on it (%llu work items, %s in all): xfs frees the "
		    "unlinked files' inodes and data in a worker on the CPU that unlinked them, and "
		    "throttles unlinkers to its speed. Nothing in the deleter changes this.",
		    trace_fmt_ns(c->cause[TC_XFS_INODEGC], b1, sizeof b1),
		    (unsigned long long)finding_cause_waits(c, TC_XFS_INODEGC),
		    c->m->xfs_inodegc_throttles, trace_fmt_ns(c->gc_runq, b2, sizeof b2),
		    c->m->xfs_inodegc_works,
		    trace_fmt_ns((double)c->m->xfs_inodegc_worker_ns, b3, sizeof b3));
}

/* Synchronous xfs commits the delete's mount or the deleter asked for: a
 * wsync (or dirsync, sync) mount forces the log at every unlink and rmdir,
 * so each waits for a log write to the device. Returns the part claimed. */
static double xfs_sync_commits(const struct finding_ctx *c, struct finding_sink *k)
{
	uint64_t syncs = traced_syncs(c);
	char b1[32];

	if (c->xfs_sync_commit <= 0 || (!c->dirsync_mount && !syncs))
		return 0;
	k->id = "xfs_log_forces";
	if (c->dirsync_mount)
		finding_add(
			k, sh(c, c->xfs_sync_commit),
			"XFS log forces: the threads waited %s for the log to be written at each "
			"transaction's commit (top site %s, %llu entries removed): the filesystem is "
			"mounted wsync (or dirsync, sync), so every unlink and rmdir commits "
			"synchronously. Remount without wsync for the delete (it serves NFS exports "
			"that need synchronous namespace operations).",
			trace_fmt_ns(c->xfs_sync_commit, b1, sizeof b1),
			finding_top_site(c, TC_XFS_LOG, "sync_commit"),
			(unsigned long long)c->entries);
	else
		finding_add(
			k, sh(c, c->xfs_sync_commit),
			"XFS log forces: the threads waited %s for the log to be written (top site "
			"%s), which their own %llu sync calls (fsync, fdatasync, syncfs, sync) forced. "
			"Sync once at the end, not per file.",
			trace_fmt_ns(c->xfs_sync_commit, b1, sizeof b1),
			finding_top_site(c, TC_XFS_LOG, "sync_commit"), (unsigned long long)syncs);
	return c->xfs_sync_commit;
}

void rule_xfs_log(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	char b1[32], b2[32];
	double ns = c->cause[TC_XFS_LOG] + c->xfs_sync_commit - xfs_sync_commits(c, k);

	if (ns <= 0)
		return;
	k->id = "xfs_log_waits";
	finding_add(k, sh(c, ns),
		    "XFS log space: the threads waited %s for log space or log forces (top site %s; "
		    "%llu log-grant waits, %s). A bigger log (mkfs.xfs -l size=) gives the unlinks "
		    "more room.",
		    trace_fmt_ns(ns, b1, sizeof b1), finding_top_site(c, TC_XFS_LOG, NULL),
		    (unsigned long long)m->xfs_log_grant.count,
		    trace_fmt_ns((double)m->xfs_log_grant.total, b2, sizeof b2));
}

void rule_btrfs(const struct finding_ctx *c, struct finding_sink *k)
{
	static const struct {
		const char *id, *what;
	} kinds[NBTRFS] = {
		{ "btrfs_tree_locks", "on contended b-tree locks" },
		{ "btrfs_transaction_commit",
		  "for the running transaction to commit: btrfs makes operations wait while it "
		  "commits. Nothing in the deleter changes this" },
		{ "btrfs_delayed_work",
		  "flushing delayed inode and directory items: unlinks queue delayed items and are "
		  "throttled to the speed of their flushing. Nothing in the deleter changes this" },
		{ "btrfs_space",
		  "on metadata space reservation while btrfs flushes to find room. Nothing in the "
		  "deleter changes this" },
		{ "btrfs_waits", "elsewhere in btrfs" },
	};
	char b1[32];

	for (int i = 0; i < NBTRFS; i++) {
		if (c->btrfs[i] <= 0)
			continue;
		k->id = kinds[i].id;
		if (i == 0) {
			finding_add(
				k, sh(c, c->btrfs[i]),
				"Btrfs tree locks: the threads waited %s on contended b-tree locks (%llu "
				"waits over 10 us)%s.",
				trace_fmt_ns(c->btrfs[i], b1, sizeof b1),
				(unsigned long long)c->m->btrfs_tree_lock.count,
				c->r->max_threads > 1 ?
					"; workers in one directory serialize on the same leaves: fewer "
					"workers per directory" :
					"; with one deleting thread the holders are btrfs's own workers: "
					"nothing in the deleter changes this");
			continue;
		}
		if (i == 1 && traced_syncs(c)) {
			/* the commits they asked for */
			finding_add(
				k, sh(c, c->btrfs[i]),
				"Btrfs transaction commits: the threads waited %s for transaction "
				"commits, which their own %llu sync calls (fsync, syncfs, sync) forced "
				"(top site %s). Sync once at the end, or not at all: each sync commits "
				"the running transaction and waits for it.",
				trace_fmt_ns(c->btrfs[i], b1, sizeof b1),
				(unsigned long long)traced_syncs(c),
				finding_top_site(c, TC_BTRFS, finding_btrfs_kinds[i]));
			continue;
		}
		finding_add(k, sh(c, c->btrfs[i]), "Btrfs: the threads waited %s %s (top site %s).",
			    trace_fmt_ns(c->btrfs[i], b1, sizeof b1), kinds[i].what,
			    finding_top_site(c, TC_BTRFS,
					     i < NBTRFS - 1 ? finding_btrfs_kinds[i] : NULL));
	}
}

void rule_fuse_daemon(const struct finding_ctx *c, struct finding_sink *k)
{
	uint64_t n = finding_cause_waits(c, TC_FUSE);
	double ns = c->cause[TC_FUSE];
	char b1[32], b2[32];

	if (ns <= 0)
		return;
	finding_add(k, sh(c, ns),
		    "FUSE daemon latency: the threads waited %s for the FUSE daemon to answer %llu "
		    "requests (%s each on average, top site %s), with up to %u threads. The daemon's "
		    "answer time is the cause: more requests in flight help (more deleting threads), "
		    "or more daemon threads.",
		    trace_fmt_ns(ns, b1, sizeof b1), (unsigned long long)n,
		    trace_fmt_ns(n ? ns / (double)n : 0, b2, sizeof b2),
		    finding_top_site(c, TC_FUSE, NULL), c->r->max_threads);
}

void rule_overlayfs(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *u = &c->s->sc[PROBE_NR_UNLINKAT].lat;
	char b1[32], b2[32];

	if (c->kcpu[TCPU_OVERLAY] <= 0)
		return;
	finding_add(k, sh(c, c->kcpu[TCPU_OVERLAY]),
		    "Overlayfs copy-up and whiteouts: %s on CPU in overlayfs, which turns each unlink "
		    "of a lower-layer file into operations on the upper filesystem (a whiteout for "
		    "every name; unlinkat mean %s). Nothing in the deleter changes this; removing the "
		    "lower layer itself, where it is yours, does.",
		    trace_fmt_ns(c->kcpu[TCPU_OVERLAY], b1, sizeof b1),
		    trace_fmt_ns(hist_mean(u), b2, sizeof b2));
}

/* ---- the explaining rules ---- */

/* ext4 unlink order: far jumps between consecutive inodes dirty a new
 * inode-table block and bitmap per unlink; they explain the journal waits,
 * or the inode-table reads of a cold delete */
void rule_scattered_inodes(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *jh = &c->m->ext4_ino_jump;
	double near = trace_ino_near_share(jh);
	double journal = c->cause[TC_JOURNAL] - c->journal_space;

	if (jh->count < 1000 || near >= 0.5)
		return;
	if (c->reads[0] > journal && c->reads[0] > c->journal_space) {
		k->explains = "inode_table_reads";
		journal = c->reads[0];
	} else if (commits_forced(c) && journal + c->journal_space > 0) {
		k->explains = "journal_forced_by_other";
		journal += c->journal_space;
	} else if (c->journal_space > journal) {
		/* more blocks dirtied per transaction fill the journal sooner */
		k->explains = "journal_space";
		journal = c->journal_space;
	} else if (journal > 0) {
		k->explains = "journal_commit_waits";
	} else {
		/* warm and unhurried: more blocks touched per unlink, on CPU */
		k->explains = "kernel_cpu";
		journal = 0;
	}
	finding_add(k, sh(c, journal),
		    "Unlinks in scattered inode order: only %.0f%% of %llu consecutive ext4 unlinks stay "
		    "within %d inodes of the previous one (p50 jump %.0f inodes), so nearly every "
		    "unlink reads or dirties another inode-table block and bitmap; unlinking a big "
		    "directory in inode order (GNU rm sorts past 10,000 entries) touches each block "
		    "once.",
		    100.0 * near, (unsigned long long)jh->count, TRACE_INO_NEAR,
		    hist_quantile(jh, 0.5));
}

/* more than two non-empty reads per directory, each well under a 64 KiB
 * buffer (an empty read is a directory's end) */
void rule_small_getdents(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *gb = &c->m->getdents_bytes;
	uint64_t eofs = gb->b[0], full = gb->count - gb->b[0];
	double per_call = full ? (double)gb->total / (double)full : 0;
	double ns = (double)c->s->sc[PROBE_NR_GETDENTS64].lat.total;
	double parent = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER];
	char b1[32];

	if (full < 50 || eofs == 0 || (double)full / (double)eofs <= 2 || per_call >= 16384)
		return;
	k->explains = "kernel_cpu";
	finding_add(k, sh(c, ns < parent ? ns : parent),
		    "Small getdents64 batches: %llu reads returned %.1f KiB each on average (%.1f reads "
		    "per directory, %s in getdents64); a 64 KiB or larger buffer needs several times "
		    "fewer calls.",
		    (unsigned long long)full, per_call / 1024, (double)full / (double)eofs,
		    trace_fmt_ns(ns, b1, sizeof b1));
}

void rule_allocator_churn(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_sc_stat *sc = c->s->sc;
	uint64_t alloc = sc[SYS_brk].lat.count + sc[SYS_mmap].lat.count + sc[SYS_munmap].lat.count;
	double ns =
		(double)(sc[SYS_brk].lat.total + sc[SYS_mmap].lat.total + sc[SYS_munmap].lat.total);
	double parent = c->kcpu[TCPU_UNLINK] + c->kcpu[TCPU_OTHER];
	char b1[32];

	if (c->entries < 100 || alloc < 100 || (double)alloc / (double)c->entries < 0.05)
		return;
	k->explains = "kernel_cpu";
	finding_add(
		k, sh(c, ns < parent ? ns : parent),
		"Allocator churn: %.3f brk/mmap/munmap calls per entry removed (%llu calls, %s): the "
		"deleter allocates and frees memory per entry; reusing buffers removes these calls.",
		(double)alloc / (double)c->entries, (unsigned long long)alloc,
		trace_fmt_ns(ns, b1, sizeof b1));
}
