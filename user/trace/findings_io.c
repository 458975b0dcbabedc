// SPDX-License-Identifier: GPL-3.0-or-later
/* The --trace catalogue's rules for filesystems and devices: metadata
 * reads, the journal and its commits, discards, xfs, btrfs, FUSE and
 * overlayfs (findings_int.h); and the explaining rules, which say why part
 * of a finding's time was spent and never claim more than it. Each decides
 * whether its row's cause applies and words the evidence. */
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


/* A kind of metadata read (the row's ARG indexes finding_read_kinds),
 * when the device serves the reads as fast as they wait. */
void rule_read_kind(const struct finding_ctx *c, struct finding_sink *k)
{
	static const char *const what[NREADS] = {
		"inode-table blocks", "directory blocks", "block and inode bitmaps",
		"extent-tree leaves", "b-tree nodes",	  "metadata blocks"
	};
	const int i = k->rule->arg;
	double service, per_wait;
	char b1[32], b2[32], b3[32];

	if (reads_verdict(c, &service, &per_wait) != READS_KINDS)
		return;
	finding_claim(k,
		      "the threads waited %s for %s read from the device (top site %s; the delete's "
		      "devices served %llu requests, p50 %s, a wait took %s on average): a cold "
		      "cache",
		      trace_fmt_ns(k->ns, b1, sizeof b1), what[i],
		      finding_top_site(c, TC_META_READ, i < NREADS - 1 ? finding_read_kinds[i] : NULL),
		      (unsigned long long)c->dev.bio_lat.count,
		      trace_fmt_ns(service, b2, sizeof b2), trace_fmt_ns(per_wait, b3, sizeof b3));
}

/* xfs buffer-lock waits while the holder read the buffer: a read part */
void rule_locked_buffer_reads(const struct finding_ctx *c, struct finding_sink *k)
{
	double service, per_wait;
	char b1[32], b2[32];

	if (reads_verdict(c, &service, &per_wait) != READS_KINDS)
		return;
	finding_claim(
		k,
		"the threads waited %s in xfs_buf_lock for buffers (AG headers, inode clusters) "
		"that the lock's holder was reading from the device (%llu waits overlapped a "
		"read of their buffer; device p50 %s): a cold cache, not contention among CPUs",
		trace_fmt_ns(k->ns, b1, sizeof b1), (unsigned long long)c->m->xfs_buf_lock_reads,
		trace_fmt_ns(service, b2, sizeof b2));
}

void rule_blocked_on_io(const struct finding_ctx *c, struct finding_sink *k)
{
	double service, per_wait;
	char b1[32], b2[32];

	if (reads_verdict(c, &service, &per_wait) != READS_KINDS)
		return;
	finding_claim(
		k,
		"the threads waited %s for block requests (%llu waits, top site %s; device p50 %s)",
		trace_fmt_ns(k->ns, b1, sizeof b1),
		(unsigned long long)finding_cause_waits(c, TC_BLOCK_IO),
		finding_top_site(c, TC_BLOCK_IO, NULL), trace_fmt_ns(service, b2, sizeof b2));
}

/* The reads and block I/O held above the device (a throttle, a queue): one
 * finding, whose remedy is the cgroup's limit when a cgroup holds them. */
void rule_device_throttled(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct trace_limits *l = &c->r->limits;
	double service, per_wait;
	char b1[32], b2[32], b3[32], held[512];

	if (reads_verdict(c, &service, &per_wait) != READS_THROTTLED)
		return;
	if (io_limit_here(c))
		snprintf(held, sizeof held, "the cgroup %s limits them (%s)", l->io_cgroup,
			 l->io_limit);
	else
		snprintf(held, sizeof held,
			 "a throttle or a queue above it (an I/O cgroup limit, a hypervisor's rate "
			 "cap) holds them");
	struct trace_finding *f = finding_claim(
		k,
		"the threads waited %s for %s reads (%llu waits, %s each on average) that the device "
		"serves in %s (p50): %s",
		trace_fmt_ns(k->ns, b1, sizeof b1), main_read_kind(c),
		(unsigned long long)c->read_waits, trace_fmt_ns(per_wait, b2, sizeof b2),
		trace_fmt_ns(service, b3, sizeof b3), held);
	if (io_limit_here(c))
		finding_remedy(f, "Raise the cgroup's limit (blkio.throttle.*, io.max) or delete "
				  "outside the cgroup; a faster device would not help.");
}

/* The same reads when the device itself is slow. */
void rule_slow_device(const struct finding_ctx *c, struct finding_sink *k)
{
	double service, per_wait;
	char b1[32], b2[32];

	if (reads_verdict(c, &service, &per_wait) != READS_SLOW_DEVICE)
		return;
	finding_claim(k,
		      "the threads waited %s for %s reads (%llu waits), and the device %s itself "
		      "takes %s per request (p50)",
		      trace_fmt_ns(k->ns, b1, sizeof b1), main_read_kind(c),
		      (unsigned long long)c->read_waits, slowest_device(c),
		      trace_fmt_ns(service, b2, sizeof b2));
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

/* The commit waits of the journal, less the space waits (their part of
 * their own), and none with online discard (discard_io's then). */
static double journal_commit_ns(const struct finding_ctx *c)
{
	return discard_in_commit(c) ? 0 : c->cause[TC_JOURNAL] - c->journal_space;
}

/* Another process's syncs forced the commits: one finding claims the
 * journal's waits, and the space and commit findings stay out. */
static bool journal_forced(const struct finding_ctx *c)
{
	return commits_forced(c) && c->journal_space + journal_commit_ns(c) > 0;
}

/* "; the delete's journal committed ..." from jbd2's counters, into BUF */
static const char *journal_stats(const struct finding_ctx *c, char *buf, size_t len)
{
	const struct probe_dev_stat *d = &c->dev;

	*buf = '\0';
	if (d->jbd2_commits)
		snprintf(buf, len,
			 "; the delete's journal committed %llu transactions (average %.1f ms "
			 "locked, %.1f ms flushing, %.1f ms logging, %llu handles)",
			 d->jbd2_commits, trace_jiffies_ms(d->jbd2_locked, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_flushing, d->jbd2_commits),
			 trace_jiffies_ms(d->jbd2_logging, d->jbd2_commits), d->jbd2_handles);
	return buf;
}

void rule_journal_forced(const struct finding_ctx *c, struct finding_sink *k)
{
	double ns = c->journal_space + journal_commit_ns(c);
	char b1[32], stats[256];

	/* the other process's commits fill the journal too: its checkpoints
	 * are theirs */
	if (!journal_forced(c))
		return;
	finding_add(k, sh(c, ns),
		    "the threads waited %s for commits they did not ask for and for the journal space "
		    "those commits used up (they made no sync call; other processes made %llu while "
		    "the journal committed %llu times in %.1f s%s): another process's fsync commits "
		    "the shared journal, and the deleter's handles wait for it",
		    trace_fmt_ns(ns, b1, sizeof b1), others_syncs(c), c->dev.jbd2_commits,
		    (double)c->r->wall_ns / 1e9, journal_stats(c, stats, sizeof stats));
}

void rule_journal_space(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], stats[256];

	if (journal_forced(c))
		return;
	finding_claim(k, "the threads waited %s for the journal to checkpoint and free space%s",
		      trace_fmt_ns(k->ns, b1, sizeof b1), journal_stats(c, stats, sizeof stats));
}

/* The commit waits, whose remedy depends on who asked for the commits: a
 * synchronous mount, the deleter's own syncs, or nobody in particular. */
void rule_journal_commits(const struct finding_ctx *c, struct finding_sink *k)
{
	double commit = journal_commit_ns(c);
	uint64_t waits = finding_cause_waits(c, TC_JOURNAL);
	char b1[32], stats[256];

	if (journal_forced(c) || commit <= 0)
		return;
	journal_stats(c, stats, sizeof stats);
	if (commit_per_change(c)) {
		finding_remedy(
			finding_add(
				k, sh(c, commit),
				"the threads waited %s for a journal commit after every directory "
				"change (%llu waits, %llu commits for %llu entries removed, no sync "
				"call of theirs)%s: the filesystem is mounted %s, so each unlink and "
				"rmdir waits for its own commit",
				trace_fmt_ns(commit, b1, sizeof b1), (unsigned long long)waits,
				c->dev.jbd2_commits, (unsigned long long)c->entries, stats,
				c->dirsync_mount ? "sync or dirsync" :
						   "or marked synchronous (dirsync, chattr +D)"),
			"Mount without dirsync (or remove the directory's DIRSYNC attribute, chattr "
			"-D) for the delete.");
		return;
	}
	if (traced_syncs(c)) {
		finding_remedy(
			finding_add(k, sh(c, commit),
				    "the threads waited %s for journal commits (%llu waits)%s, "
				    "which their own %llu sync calls (fsync, fdatasync, syncfs, "
				    "sync) forced",
				    trace_fmt_ns(commit, b1, sizeof b1), (unsigned long long)waits,
				    stats, (unsigned long long)traced_syncs(c)),
			"Sync once at the end, or not at all: each sync commits the journal and "
			"waits.");
		return;
	}
	finding_add(k, sh(c, commit), "the threads waited %s for journal commits (%llu waits)%s",
		    trace_fmt_ns(commit, b1, sizeof b1), (unsigned long long)waits, stats);
}

void rule_writeback_throttle(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	finding_claim(k,
		      "the threads were held %s by dirty-page or writeback throttling (top site %s): "
		      "the device cannot write back as fast as pages are dirtied",
		      trace_fmt_ns(k->ns, b1, sizeof b1),
		      finding_top_site(c, TC_WRITEBACK, "throttle"));
}

/* The discard waits, with the journal's commit waits when online discard
 * issues the discards in the commit: the rule computes the share. */
void rule_discard(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_dev_stat *d = &c->dev;
	double ns = c->cause[TC_DISCARD], commit = 0;
	char b1[32];

	if (discard_in_commit(c))
		commit = c->cause[TC_JOURNAL] - c->journal_space;
	if (ns + commit <= 0)
		return;
	struct trace_finding *f = finding_add(
		k, sh(c, ns + commit),
		"the threads waited %s on discards%s (%llu discard requests, %.1f MiB, on the "
		"delete's devices)",
		trace_fmt_ns(ns + commit, b1, sizeof b1),
		commit > ns ? " issued by the journal commits they waited for" :
		commit > 0  ? " (some in the journal commits they waited for)" :
			      "",
		d->bio_discards ? d->bio_discards : d->ext4_discards,
		(double)d->bio_discard_bytes / 1048576.0);
	/* not the mount's discards: another's trim */
	if (!c->discard_mount)
		finding_remedy(f, "The mount does not discard: run fstrim and other discards at "
				  "another time than the delete.");
}

void rule_xfs_inodegc(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32], b2[32], b3[32];

	finding_claim(k,
		      "the threads waited %s in destroy_inode for background inode inactivation to "
		      "catch up (%llu waits, %llu inode-GC throttles) and %s for a CPU while the "
		      "inodegc workers ran on it (%llu work items, %s in all): xfs frees the unlinked "
		      "files' inodes and data in a worker on the CPU that unlinked them, and "
		      "throttles unlinkers to its speed",
		      trace_fmt_ns(c->cause[TC_XFS_INODEGC], b1, sizeof b1),
		      (unsigned long long)finding_cause_waits(c, TC_XFS_INODEGC),
		      c->m->xfs_inodegc_throttles, trace_fmt_ns(c->gc_runq, b2, sizeof b2),
		      c->m->xfs_inodegc_works,
		      trace_fmt_ns((double)c->m->xfs_inodegc_worker_ns, b3, sizeof b3));
}

/* Synchronous xfs commits the delete's mount or the deleter asked for: a
 * wsync (or dirsync, sync) mount forces the log at every unlink and rmdir,
 * so each waits for a log write to the device. */
static bool xfs_forced(const struct finding_ctx *c)
{
	return c->dirsync_mount || traced_syncs(c);
}

void rule_xfs_log_forces(const struct finding_ctx *c, struct finding_sink *k)
{
	char b1[32];

	if (!xfs_forced(c))
		return;
	if (c->dirsync_mount) {
		finding_claim(k,
			      "the threads waited %s for the log to be written at each transaction's "
			      "commit (top site %s, %llu entries removed): the filesystem is mounted "
			      "wsync (or dirsync, sync), so every unlink and rmdir commits "
			      "synchronously",
			      trace_fmt_ns(k->ns, b1, sizeof b1),
			      finding_top_site(c, TC_XFS_LOG, "sync_commit"),
			      (unsigned long long)c->entries);
		return;
	}
	finding_remedy(finding_claim(k,
				     "the threads waited %s for the log to be written (top site %s), "
				     "which their own %llu sync calls (fsync, fdatasync, syncfs, "
				     "sync) forced",
				     trace_fmt_ns(k->ns, b1, sizeof b1),
				     finding_top_site(c, TC_XFS_LOG, "sync_commit"),
				     (unsigned long long)traced_syncs(c)),
		       "Sync once at the end, not per file.");
}

/* The log waits that xfs_log_forces left: its share depends on that
 * finding's condition, so the rule computes it. */
void rule_xfs_log(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_misc *m = c->m;
	double forced = c->xfs_sync_commit > 0 && xfs_forced(c) ? c->xfs_sync_commit : 0;
	double ns = c->cause[TC_XFS_LOG] + c->xfs_sync_commit - forced;
	char b1[32], b2[32];

	if (ns <= 0)
		return;
	finding_add(k, sh(c, ns),
		    "the threads waited %s for log space or log forces (top site %s; %llu log-grant "
		    "waits, %s)",
		    trace_fmt_ns(ns, b1, sizeof b1), finding_top_site(c, TC_XFS_LOG, NULL),
		    (unsigned long long)m->xfs_log_grant.count,
		    trace_fmt_ns((double)m->xfs_log_grant.total, b2, sizeof b2));
}

/* A kind of btrfs wait (the row's ARG indexes finding_btrfs_kinds). */
void rule_btrfs_kind(const struct finding_ctx *c, struct finding_sink *k)
{
	static const char *const what[NBTRFS] = {
		[1] = "for the running transaction to commit",
		[2] = "flushing delayed inode and directory items",
		[3] = "on metadata space reservation while btrfs flushes to find room",
		[4] = "elsewhere in btrfs",
	};
	const int i = k->rule->arg;
	const char *site =
		finding_top_site(c, TC_BTRFS, i < NBTRFS - 1 ? finding_btrfs_kinds[i] : NULL);
	char b1[32];

	if (i == 0) {
		struct trace_finding *f = finding_claim(
			k,
			"the threads waited %s on contended b-tree locks (%llu waits over 10 us), with up to %u threads",
			trace_fmt_ns(k->ns, b1, sizeof b1),
			(unsigned long long)c->m->btrfs_tree_lock.count, c->r->max_threads);
		/* one deleting thread cannot contend with itself */
		if (c->r->max_threads <= 1)
			finding_remedy(f, "With one deleting thread the holders are btrfs's own "
					  "workers: nothing in the deleter changes this.");
		return;
	}
	if (i == 1 && traced_syncs(c)) {
		/* the commits they asked for */
		finding_remedy(finding_claim(k,
					     "the threads waited %s for transaction commits, which "
					     "their own %llu sync calls (fsync, syncfs, sync) forced "
					     "(top site %s)",
					     trace_fmt_ns(k->ns, b1, sizeof b1),
					     (unsigned long long)traced_syncs(c), site),
			       "Sync once at the end, or not at all: each sync commits the running "
			       "transaction and waits for it.");
		return;
	}
	finding_claim(k, "the threads waited %s %s (top site %s)",
		      trace_fmt_ns(k->ns, b1, sizeof b1), what[i], site);
}

void rule_fuse_daemon(const struct finding_ctx *c, struct finding_sink *k)
{
	uint64_t n = finding_cause_waits(c, TC_FUSE);
	char b1[32], b2[32];

	finding_claim(k,
		      "the threads waited %s for the FUSE daemon to answer %llu requests (%s each on "
		      "average, top site %s), with up to %u threads",
		      trace_fmt_ns(k->ns, b1, sizeof b1), (unsigned long long)n,
		      trace_fmt_ns(n ? k->ns / (double)n : 0, b2, sizeof b2),
		      finding_top_site(c, TC_FUSE, NULL), c->r->max_threads);
}

void rule_overlayfs(const struct finding_ctx *c, struct finding_sink *k)
{
	const struct probe_hist *u = &c->s->sc[PROBE_NR_UNLINKAT].lat;
	char b1[32], b2[32];

	finding_claim(k,
		      "%s on CPU in overlayfs, which turns each unlink of a lower-layer file into "
		      "operations on the upper filesystem (a whiteout for every name; unlinkat mean "
		      "%s)",
		      trace_fmt_ns(k->ns, b1, sizeof b1), trace_fmt_ns(hist_mean(u), b2, sizeof b2));
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
		    "only %.0f%% of %llu consecutive ext4 unlinks stay within %d inodes of the "
		    "previous one (p50 jump %.0f inodes), so nearly every unlink reads or dirties "
		    "another inode-table block and bitmap",
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
		    "%llu reads returned %.1f KiB each on average (%.1f reads per directory, %s in "
		    "getdents64)",
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
	finding_add(k, sh(c, ns < parent ? ns : parent),
		    "%.3f brk/mmap/munmap calls per entry removed (%llu calls, %s): the deleter "
		    "allocates and frees memory per entry",
		    (double)alloc / (double)c->entries, (unsigned long long)alloc,
		    trace_fmt_ns(ns, b1, sizeof b1));
}
