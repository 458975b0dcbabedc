// SPDX-License-Identifier: GPL-3.0-or-later
/* Kernel subsystems from function names (subsys.h). */
#include "probes/subsys.h"
#include "probes/frames.h"

#include <stddef.h>
#include <string.h>

static const struct subsys_info {
	const char *id, *name, *confirm, *remedy;
	bool own;
} info[SS_COUNT] = {
	[SS_VFS] = { "vfs", "the VFS (lookups, unlinks, dentries and inodes)",
		     "cat /proc/PID/stack while it waits",
		     "The task that ends these waits (the waker named) holds what the delete "
		     "needs: stop it, or delete when it is done.",
		     true },
	[SS_FS] = { "filesystem", "the filesystem's own work (its journal, log or workers)",
		    "cat /proc/PID/stack while it waits; the waker named is the filesystem's "
		    "thread or work item",
		    "The filesystem's own work: its mount options and the delete's order and "
		    "thread count change it.",
		    true },
	[SS_BLOCK] = { "block", "the block layer and the device",
		       "iostat -x 1; cat /sys/block/DEV/stat",
		       "A faster or less loaded device, or fewer reads (a warm cache).", true },
	[SS_MEMORY] = { "memory", "memory management (allocation, reclaim, page cache)",
			"grep -E 'pgscan|pgsteal' /proc/vmstat; cat /proc/pressure/memory",
			"More free memory, or a larger memory limit.", true },
	[SS_LOCKING] = { "locking", "kernel locks", "perf lock record, then perf lock contention",
			 "Fewer threads on the same lock.", true },
	[SS_SCHED] = { "sched", "the scheduler", "cat /proc/pressure/cpu",
		       "Free CPUs, or a larger CPU weight.", true },
	[SS_AUDIT] = { "audit", "syscall auditing (audit records, the backlog, kauditd and auditd)",
		       "auditctl -s (backlog, lost) and auditctl -l (the rules)",
		       "Remove or narrow the audit rules that match the delete's system calls "
		       "(auditctl -d, or an exclude), or let the audit daemon keep up (a larger "
		       "backlog, auditd's flush setting).",
		       false },
	[SS_NOTIFY] = { "notify", "file notification (fsnotify, inotify, fanotify)",
			"ls -l /proc/*/fd | grep -E 'inotify|fanotify' (who watches)",
			"Stop or narrow the watcher (an indexer, a virus scanner, a sync client): "
			"each unlink sends it an event, and fanotify permission events wait for "
			"its answer.",
			false },
	[SS_SECURITY] = { "security", "security modules (LSM hooks, SELinux, AppArmor, IMA)",
			  "cat /sys/kernel/security/lsm; the module's audit log",
			  "A policy that does not check or measure each unlink of this tree.", false },
	[SS_FREEZE] = { "freeze", "a frozen filesystem (writers wait in sb_start_write)",
			"cat /proc/PID/stack shows percpu_rwsem_wait under mnt_want_write or "
			"sb_start_write; findmnt the mount, and find the snapshot or backup that "
			"froze it",
			"Wait for the snapshot or backup to finish, or thaw it (fsfreeze "
			"--unfreeze MOUNT): nothing in the deleter changes it.",
			false },
	[SS_SIGNAL] = { "signal", "signals and job control",
			"grep State /proc/PID/status (T: stopped, t: stopped by a tracer)",
			"Continue it (kill -CONT PID, or fg or bg in its shell), and find who "
			"stops it.",
			false },
	[SS_CGROUP] = { "cgroup", "cgroups (the cgroup freezer, cgroup locks)",
			"cat /proc/PID/cgroup; the group's freezer.state",
			"Thaw the cgroup (echo THAWED > freezer.state), or wait for whoever "
			"reconfigures cgroups.",
			false },
	[SS_BPF] = { "bpf", "another tool's BPF programs on the kernel's events",
		     "bpftool perf; bpftool link (the programs and the processes that hold them)",
		     "Stop the tool, or narrow its programs to the processes it needs: a program "
		     "on a system call or scheduler tracepoint runs for every process.",
		     false },
	[SS_NET] = { "net", "networking and sockets", "ss -tanp; cat /proc/PID/stack",
		     "The peer or network at the other end sets the pace.", false },
	[SS_IPC] = { "ipc", "pipes, UNIX sockets, futexes and other IPC",
		     "ls -l /proc/PID/fd; the other end's /proc/PID/stack",
		     "The process at the other end sets the pace.", false },
	[SS_RCU] = { "rcu", "RCU grace periods (synchronize_rcu)",
		     "cat /proc/PID/stack while it waits",
		     "Each call waits for a grace period: a path that does not synchronize per "
		     "call.",
		     false },
	[SS_WORKQUEUE] = { "workqueue", "waiting for kernel work items (flush_work)",
			   "cat /proc/PID/stack; the kworkers' CPU in top",
			   "The work item's owner sets the pace.", false },
	[SS_TIMER] = { "timer", "timers and sleeps in the kernel",
		       "cat /proc/PID/stack while it waits",
		       "The kernel path that sleeps on a timer sets the pace.", false },
	[SS_TRACING] = { "tracing", "another tracer's handlers (perf events, ftrace)",
			 "ls -l /proc/*/fd 2>/dev/null | grep perf_event (who holds perf events); "
			 "cat /sys/kernel/tracing/set_event",
			 "Stop the tracer, or narrow it to the processes it needs: a system-wide one "
			 "(perf trace -a, perf record -a -e syscalls, tracefs events) runs its handler "
			 "on every system call of every process.",
			 false },
	[SS_KERNEL] = { "kernel", "other kernel code", "cat /proc/PID/stack while it waits",
			"The waker and the stack say who ends these waits.", false },
};

const char *subsys_id(int ss)
{
	return ss >= 0 && ss < SS_COUNT ? info[ss].id : "?";
}
const char *subsys_name(int ss)
{
	return ss >= 0 && ss < SS_COUNT ? info[ss].name : "?";
}
const char *subsys_confirm(int ss)
{
	return ss >= 0 && ss < SS_COUNT ? info[ss].confirm : "";
}
const char *subsys_remedy(int ss)
{
	return ss >= 0 && ss < SS_COUNT ? info[ss].remedy : "";
}
bool subsys_own(int ss)
{
	return ss >= 0 && ss < SS_COUNT && info[ss].own;
}

/* Function families, tried in this order: the first family whose pattern
 * matches decides. Specific families come before the broad prefixes that
 * would also match them (audit's kauditd before the kernel's k*). */
static const struct family {
	int ss;
	const char *const *fns;
} families[] = {
	{ SS_FREEZE,
	  (const char *const[]){ "mnt_want_write*", "__mnt_want_write*", "sb_start_write*",
				 "__sb_start_write*", "sb_start_intwrite", "sb_start_pagefault",
				 "file_start_write*", "freeze_super", "thaw_super", "freeze_bdev",
				 "thaw_bdev", "ioctl_fsfreeze", "ioctl_fsthaw", "sb_wait_write",
				 NULL } },
	{ SS_AUDIT, (const char *const[]){ "audit_*", "__audit_*", "kauditd*", "auditd_*", NULL } },
	{ SS_NOTIFY, (const char *const[]){ "fsnotify*", "__fsnotify*", "inotify_*", "fanotify_*",
					    "dnotify_*", "send_to_group", "fsnotify_*", NULL } },
	{ SS_SECURITY,
	  (const char *const[]){ "security_*", "selinux_*", "avc_*", "apparmor_*", "aa_*",
				 "smack_*", "tomoyo_*", "landlock_*", "ima_*", "evm_*",
				 "integrity_*", "bpf_lsm_*", "cap_*", "yama_*", NULL } },
	{ SS_SIGNAL,
	  (const char *const[]){ "do_signal_stop", "get_signal", "do_jobctl_trap", "ptrace_stop",
				 "ptrace_*", "signal_*", "do_notify_parent*", "send_signal*",
				 "do_send_sig_info", "kill_pid*", "arch_do_signal*", NULL } },
	{ SS_CGROUP, (const char *const[]){ "cgroup_*", "__cgroup_*", "cgroup1_*", "css_*",
					    "cpuset_*", "freezer_*", "__refrigerator",
					    "try_to_freeze*", "freezing_*", NULL } },
	{ SS_BPF, (const char *const[]){ "bpf_*", "__bpf_*", "___bpf_*", "trace_call_bpf",
					 "__traceiter_*", "bpf_trace_run*", NULL } },
	{ SS_TRACING, (const char *const[]){ "perf_*", "__perf_*", "trace_*", "ftrace_*",
					     "tracing_*", "ring_buffer_*", "rb_*", NULL } },
	{ SS_RCU,
	  (const char *const[]){ "synchronize_rcu*", "synchronize_srcu*", "__synchronize_srcu*",
				 "rcu_*", "__rcu_*", "call_rcu*", "kvfree_call_rcu", NULL } },
	{ SS_WORKQUEUE,
	  (const char *const[]){ "flush_work*", "__flush_work*", "flush_workqueue",
				 "__flush_workqueue", "drain_workqueue", "flush_delayed_work*",
				 "flush_rcu_work", "process_one_work", "worker_thread", NULL } },
	{ SS_IPC, (const char *const[]){ "pipe_*", "anon_pipe_*", "pipe_read", "pipe_write", "unix_*",
					 "futex_*", "__futex_*", "do_futex", "do_msg*", "msgrcv",
					 "do_semtimedop", "ipc_*", "eventfd_*", "do_epoll_*", "ep_*",
					 "do_sys_poll", "do_select", "core_sys_select", NULL } },
	{ SS_NET,
	  (const char *const[]){ "tcp_*",	"udp_*",	"inet_*",      "inet6_*",
				 "sock_*",	"sk_*",		"__sk_*",      "netlink_*",
				 "__netlink_*", "net_*",	"__netif_*",   "netif_*",
				 "ip_*",	"ip6_*",	"__sys_send*", "__sys_recv*",
				 "sys_sendmsg", "sock_sendmsg", "rpc_*",       "xprt_*",
				 "nfs_*",	"nfs4_*",	NULL } },
	{ SS_BLOCK,
	  (const char *const[]){ "blk_*",	  "__blk_*",  "bio_*",	     "submit_bio*",
				 "__submit_bio*", "loop_*",   "lo_*",	     "dd_*",
				 "bfq_*",	  "kyber_*",  "scsi_*",	     "nvme_*",
				 "virtblk_*",	  "blkdev_*", "wbt_*",	     "rq_qos_*",
				 "__rq_qos_*",	  "throtl_*", "blkg_*",	     "submit_bh*",
				 "bh_*",	  "__bh_*",   "end_bio*",    "read_block_bitmap*",
				 "sb_bread*",	  "__bread*", "ll_rw_block", NULL } },
	{ SS_MEMORY, (const char *const[]){ "shrink_*",
					    "try_to_free_*",
					    "__alloc_pages*",
					    "alloc_pages*",
					    "__folio_alloc*",
					    "folio_alloc*",
					    "kmem_cache_*",
					    "__kmem_cache_*",
					    "kmalloc*",
					    "__kmalloc*",
					    "kfree*",
					    "slab_*",
					    "__slab_*",
					    "___slab_*",
					    "mem_cgroup_*",
					    "__mem_cgroup_*",
					    "memcg_*",
					    "try_charge*",
					    "compact_*",
					    "filemap_*",
					    "__filemap_*",
					    "folio_*",
					    "__folio_*",
					    "truncate_*",
					    "page_*",
					    "__page_*",
					    "handle_mm_fault",
					    "__handle_mm_fault",
					    "do_anonymous_page",
					    "exc_page_fault",
					    "do_user_addr_fault",
					    "asm_exc_page_fault",
					    "lru_*",
					    "release_pages",
					    "free_*",
					    "__free_*",
					    "vm_*",
					    "mmap_*",
					    "do_mmap",
					    "__vm_munmap",
					    "balance_dirty_pages*",
					    "wait_on_page_writeback",
					    "folio_wait_writeback",
					    "clear_page*",
					    "memcpy*",
					    "memset*",
					    "copy_page*",
					    NULL } },
	{ SS_LOCKING, (const char *const[]){ "mutex_*",
					     "__mutex_*",
					     "rwsem_*",
					     "down*",
					     "__down*",
					     "up_*",
					     "up",
					     "_raw_spin_*",
					     "raw_spin_*",
					     "queued_spin_*",
					     "native_queued_spin_*",
					     "__pv_queued_spin_*",
					     "osq_*",
					     "percpu_*",
					     "__percpu_*",
					     "rt_mutex*",
					     "__rt_mutex*",
					     "_raw_read_*",
					     "_raw_write_*",
					     "queued_read_*",
					     "queued_write_*",
					     "lock_acquire*",
					     "lock_release",
					     NULL } },
	{ SS_SCHED, (const char *const[]){ "schedule*", "__schedule", "preempt_schedule*",
					   "__cond_resched", "finish_task_switch*", "io_schedule*",
					   "try_to_wake_up", "wake_up_*", "__wake_up*",
					   "update_curr", "pick_next_*", "enqueue_*", "dequeue_*",
					   "ttwu_*", "sched_*", "__sched_*", NULL } },
	{ SS_TIMER, (const char *const[]){ "hrtimer_*", "__hrtimer_*", "do_nanosleep", "msleep*",
					   "usleep_range*", "schedule_timeout*", "timer_*",
					   "__timer_*", "run_timer_softirq", "tick_*", NULL } },
	{ SS_VFS, (const char *const[]){ "vfs_*",
					 "do_unlinkat",
					 "do_rmdir",
					 "lookup_*",
					 "__lookup_*",
					 "path_*",
					 "filename_*",
					 "link_path_walk",
					 "walk_component",
					 "d_*",
					 "__d_*",
					 "dput",
					 "dget*",
					 "iput",
					 "iput_final",
					 "evict",
					 "__dentry_*",
					 "dentry_*",
					 "inode_*",
					 "__inode_*",
					 "iterate_dir",
					 "filldir*",
					 "__x64_sys_*",
					 "__arm64_sys_*",
					 "__se_sys_*",
					 "do_sys_*",
					 "do_filp_open",
					 "do_open*",
					 "open_last_lookups",
					 "may_delete*",
					 "generic_permission",
					 "inode_permission",
					 "__fput",
					 "fput*",
					 "__close_fd*",
					 "close_fd*",
					 "filp_close",
					 "do_statx",
					 "vfs_statx",
					 "getname*",
					 "putname",
					 "start_removing*",
					 "__start_removing*",
					 "start_dirop",
					 "simple_*",
					 "generic_*",
					 "mnt_*",
					 "mntput*",
					 "touch_atime",
					 "file_*",
					 "ksys_*",
					 "__fdget*",
					 "sync_*",
					 "__sync_*",
					 "writeback_*",
					 "__writeback_*",
					 "wb_*",
					 "iterate_supers*",
					 "do_fsync",
					 "vfs_fsync*",
					 "write_inode_now",
					 NULL } },
};

/* Filesystems by their functions' prefixes: SS_FS with the name. */
static const struct fs_family {
	const char *prefix, *fs;
} fs_families[] = {
	{ "ext4_", "ext4" },	 { "__ext4_", "ext4" },
	{ "jbd2_", "ext4" },	 { "__jbd2_", "ext4" },
	{ "xfs_", "xfs" },	 { "xlog_", "xfs" },
	{ "xfs", "xfs" },	 { "btrfs_", "btrfs" },
	{ "__btrfs_", "btrfs" }, { "fuse_", "fuse" },
	{ "ovl_", "overlayfs" }, { "shmem_", "tmpfs" },
	{ "nfs_", "nfs" },	 { "f2fs_", "f2fs" },
	{ "fat_", "vfat" },	 { "cifs_", "cifs" },
	{ "ceph_", "ceph" },	 { "zfs_", "zfs" },
	{ "ramfs_", "ramfs" },	 { "kernfs_", "sysfs" },
	{ "proc_", "proc" },	 { "squashfs_", "squashfs" },
};

int subsys_of_frame(const char *frame, const char **fs)
{
	size_t len = frame_fn_len(frame);

	if (fs)
		*fs = NULL;
	for (size_t i = 0; i < sizeof fs_families / sizeof *fs_families; i++) {
		size_t pl = strlen(fs_families[i].prefix);
		if (len >= pl && !strncmp(frame, fs_families[i].prefix, pl)) {
			if (fs)
				*fs = fs_families[i].fs;
			return SS_FS;
		}
	}
	for (size_t i = 0; i < sizeof families / sizeof *families; i++)
		if (frame_match_any(frame, len, families[i].fns))
			return families[i].ss;
	return SS_KERNEL;
}

/* Frames that say how a thread waits or runs, not for whom: skipped when
 * the first frame decides. */
static bool plumbing(int ss)
{
	return ss == SS_SCHED || ss == SS_LOCKING || ss == SS_TIMER || ss == SS_BPF ||
	       ss == SS_TRACING;
}

/* Subsystems that win from anywhere in the stack: the work or wait is
 * theirs, whatever called them. BPF and tracing only when on top (they
 * run inside every tracepoint the delete passes). */
static bool wins_anywhere(int ss)
{
	return !subsys_own(ss) && ss != SS_KERNEL && ss != SS_BPF && ss != SS_TRACING &&
	       ss != SS_TIMER && ss != SS_WORKQUEUE && ss != SS_RCU && ss != SS_IPC && ss != SS_NET;
}

int subsys_of_stack(const char *const *frames, int n, int *at, const char **fs)
{
	int first = -1, first_ss = SS_KERNEL, top = -1, top_ss = SS_KERNEL;
	const char *first_fs = NULL, *f;

	if (fs)
		*fs = NULL;
	for (int i = 0; i < n; i++) {
		int ss = subsys_of_frame(frames[i], &f);
		if (wins_anywhere(ss)) {
			if (at)
				*at = i;
			return ss;
		}
		if (top < 0) {
			top = i;
			top_ss = ss;
		}
		if (first < 0 && !plumbing(ss)) {
			first = i;
			first_ss = ss;
			first_fs = f;
		}
	}
	if (first >= 0) {
		if (at)
			*at = first;
		if (fs)
			*fs = first_fs;
		return first_ss;
	}
	if (at)
		*at = top;
	return top >= 0 ? top_ss : SS_KERNEL;
}
