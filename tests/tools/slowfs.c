// SPDX-License-Identifier: GPL-3.0-or-later
// slowfs: a pass-through FUSE filesystem that sleeps a fixed time on every
// operation. It stands in for a high-latency network filesystem (NFS, SMB,
// a cloud FUSE mount) in the end-to-end tests and in the benchmark: there,
// each request costs a round trip, so throughput grows with the number of
// requests in flight, which is what adaptrm's controller has to discover.
// With --server-slots and several mounts it also stands in for a parallel
// filesystem's metadata server shared by several client nodes.
//
//   slowfs [OPTION]... BACKING MOUNTPOINT [FUSE options, e.g. -f -o max_threads=64]
//
//   --delay-us=N         service time of every request, in microseconds
//                        (default 0)
//   --readdir-us=N       service time of a READDIR instead (default: N above)
//   --slow-unlink=NAME   an UNLINK of an entry called NAME sleeps
//   --slow-unlink-us=N   N microseconds more (default 2000000): a huge file
//                        on a cold disk, for the engine's tests
//   --mount=DIR          mount BACKING at DIR too, from this same daemon (one
//                        FUSE session per mount, each its own "client node");
//                        repeat for more mounts (up to 64 in all)
//   --server-slots=K     at most K requests in service at once over all
//                        mounts; the others wait in one FIFO server queue
//                        (a knee at K / delay requests a second). 0, the
//                        default: no limit
//   --client-cap=C       at most C requests of one mount in flight (in the
//                        server queue or in service); the others wait on the
//                        client side, in FIFO order. 0, the default: no limit
//   --log=FILE           the server's view, a TSV row per interval
//   --log-interval-ms=N  its interval (default 100)
//
// Without the new options the behaviour is today's: one mount, every request
// sleeps the delay in its own worker thread, any number at once.
//
// Everything is served from the directory BACKING, relative to one fd opened
// at start-up (never by absolute path), so every mount mirrors BACKING exactly
// and what is deleted through one is gone from BACKING too. Inode numbers
// pass through (use_ino), so a directory has the same st_ino through every
// mount (its st_dev differs: one per mount, as on separate clients).
//
// Requests are served by libfuse's multi-threaded loop, one per mount, each
// in its own thread; the sleep happens in the worker thread, so concurrent
// requests overlap as they would on a real network filesystem. Readdir hands
// out entries with their attributes (readdirplus) so that, as on NFS,
// listing a directory primes the kernel's dentry cache and a later unlink
// costs one request, not a lookup too.
//
// The request model. A request first takes one of its mount's C client
// slots, then one of the server's K slots, both first come first served,
// sleeps its service time in the server slot, does the operation on BACKING
// and gives both slots back. The client cap applies to every operation, not
// only the modifying ones: Lustre's mdc caps all metadata RPCs at
// max_rpcs_in_flight (8) and the modifying ones at max_mod_rpcs_in_flight
// (7), one less, so one cap on everything is within one slot of both, and a
// readdir-heavy phase is capped as well. The log's "inflight" is then simply
// the number of that mount's requests past the client side.
//
// Caches across mounts. The kernel keeps libfuse's default timeouts on each
// mount (entry and attributes 1 s, negative entries 0, i.e. not cached), so
// one mount's walk does not pay a LOOKUP per component. Coherence comes from
// the server, as Lustre's lock revocation gives it: after an unlink, rmdir
// or rename through one mount succeeds, the daemon invalidates the cached
// attributes of the entry and of its parent in every other mount
// (fuse_invalidate_path, a notification, not a request, outside the slots
// so it cannot wait on a request that waits on a slot). A stat through
// another mount then asks the server and gets ENOENT; READDIR always asks.
// A stale positive dentry may remain for up to 1 s, so an unlink through it
// reaches the server and fails with ENOENT, as it would on NFS.
//
// The log (--log): a header line, then one row per interval, written and
// flushed by a logger thread (so a benchmark can read it while it runs),
// from counters reset each interval (memory bounded, no per-request record):
//   t_s            seconds since start
//   queued         requests waiting in the server queue at the end of the
//                  interval; queued_max, the most at any time in it
//   in_service     requests in a server slot at the end; in_service_max the
//                  most at any time in it
//   inflight_max   the most requests of one mount in flight at any time in
//                  the interval, over all mounts
//   client_queued  requests waiting on the client side (all mounts) at the
//                  end; client_queued_max the most at any time in it: when
//                  it is not 0, the client cap binds
//   unlink rmdir readdir getattr other
//                  requests completed in the interval by type (the
//                  high-level API serves LOOKUP as getattr)
//   lat_mean_us lat_max_us
//                  their latency at the server: queue wait + service
// At exit a summary line: "# max_queued=N max_in_service=N max_inflight=N
// requests=N".
//
// Stopping: SIGTERM, SIGINT or SIGHUP unmounts every mount and ends the
// daemon; so does unmounting all the mounts (one unmounted alone stops
// only its own loop).
#define FUSE_USE_VERSION 312

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define PROG "slowfs"
#define MAX_MOUNTS 64

struct slowfs_opts {
	unsigned delay_us;
	long readdir_us;  // -1: the delay
	char *slow_name;  // --slow-unlink
	unsigned slow_us;
	unsigned server_slots;
	unsigned client_cap;
	unsigned log_interval_ms;
	char *log_path;
	char *backing;
	char *extra_mounts[MAX_MOUNTS - 1];
	unsigned n_extra;
	int show_help;
	int bad;  // a usage error was reported
};

static struct slowfs_opts opts = { .readdir_us = -1, .log_interval_ms = 100, .slow_us = 2000000 };
static int backing_fd = -1;

// ---- The server model: FIFO queues of waiting requests, slot counters ----

// A request waiting for a slot, on its worker's stack: no allocation.
struct waiter {
	pthread_cond_t cv;
	struct waiter *next;
	int granted;
};

struct fifo {
	struct waiter *head, *tail;
	unsigned len;
};

enum opclass { OP_UNLINK, OP_RMDIR, OP_READDIR, OP_GETATTR, OP_OTHER, N_OPCLASS };

// What the log prints for one interval; reset after each row.
struct interval {
	unsigned long done[N_OPCLASS];
	unsigned long long lat_sum_us;
	unsigned long lat_max_us;
	unsigned queued_max, busy_max, inflight_max, client_queued_max;
};

struct mount {
	const char *dir;
	struct fuse *fuse;
	pthread_t thread;
	int loop_started;
	volatile int loop_done;
	unsigned inflight;  // past the client side: queued at the server or in service
	struct fifo client_q;
};

static struct mount mounts[MAX_MOUNTS];
static unsigned n_mounts;

static pthread_mutex_t server_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fifo server_q;
static unsigned busy;		// requests in a server slot
static unsigned client_queued;	// requests waiting on the client side, all mounts
static struct interval cur;
static struct {
	unsigned queued, busy, inflight;
	unsigned long long requests;
} peak;

static void fifo_push(struct fifo *q, struct waiter *w)
{
	w->next = NULL;
	if (q->tail)
		q->tail->next = w;
	else
		q->head = w;
	q->tail = w;
	q->len++;
}

// Hand the slot just freed to the oldest waiter, if any.
static int fifo_grant_head(struct fifo *q)
{
	struct waiter *w = q->head;
	if (!w)
		return 0;
	if (q != &server_q)
		client_queued--;
	q->head = w->next;
	if (!q->head)
		q->tail = NULL;
	q->len--;
	w->granted = 1;
	pthread_cond_signal(&w->cv);
	return 1;
}

// Wait (server_mu held) until a slot of a pool of `cap` (0: unlimited) with
// `*used` taken is ours; a freed slot goes straight to the queue's head, so
// latecomers cannot overtake.
static void slot_take(struct fifo *q, unsigned *used, unsigned cap)
{
	if (!cap || (*used < cap && !q->head)) {
		(*used)++;
		return;
	}
	struct waiter w = { .granted = 0 };
	pthread_cond_init(&w.cv, NULL);
	fifo_push(q, &w);
	if (q == &server_q && q->len > cur.queued_max)
		cur.queued_max = q->len;
	if (q != &server_q && ++client_queued > cur.client_queued_max)
		cur.client_queued_max = client_queued;
	while (!w.granted)
		pthread_cond_wait(&w.cv, &server_mu);
	pthread_cond_destroy(&w.cv);
	// the granter left *used unchanged: its slot became ours
}

static void slot_give(struct fifo *q, unsigned *used)
{
	if (!fifo_grant_head(q))
		(*used)--;
}

static unsigned long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000 + (unsigned long long)ts.tv_nsec / 1000;
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

// One request in progress.
struct req {
	struct mount *m;
	enum opclass op;
	unsigned long long t_queued;
};

static unsigned long service_us(enum opclass op)
{
	if (op == OP_READDIR && opts.readdir_us >= 0)
		return (unsigned long)opts.readdir_us;
	return opts.delay_us;
}

// The request's round trip up to the operation: client slot, server queue,
// server slot, then its service time (one simulated round trip).
static struct req req_begin(enum opclass op)
{
	struct req r = { fuse_get_context()->private_data, op, 0 };
	pthread_mutex_lock(&server_mu);
	slot_take(&r.m->client_q, &r.m->inflight, opts.client_cap);
	if (r.m->inflight > cur.inflight_max)
		cur.inflight_max = r.m->inflight;
	r.t_queued = now_us();
	slot_take(&server_q, &busy, opts.server_slots);
	if (busy > cur.busy_max)
		cur.busy_max = busy;
	pthread_mutex_unlock(&server_mu);
	unsigned long us = service_us(op);
	if (us)
		sleep_us(us);
	return r;
}

// Give both slots back and count the request; returns res, the reply.
static int req_end(const struct req *r, int res)
{
	unsigned long long lat = now_us() - r->t_queued;
	pthread_mutex_lock(&server_mu);
	slot_give(&server_q, &busy);
	slot_give(&r->m->client_q, &r->m->inflight);
	cur.done[r->op]++;
	cur.lat_sum_us += lat;
	if (lat > cur.lat_max_us)
		cur.lat_max_us = (unsigned long)lat;
	pthread_mutex_unlock(&server_mu);
	return res;
}

// The server revokes other clients' cached view of path (see the header):
// the entry's attributes and its parent's.
static void invalidate_elsewhere(const char *path)
{
	struct mount *self = fuse_get_context()->private_data;
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t plen = slash && slash != path ? (size_t)(slash - path) : 1;
	if (plen >= sizeof(parent))
		plen = 0;
	memcpy(parent, path, plen);
	parent[plen] = '\0';
	for (unsigned i = 0; i < n_mounts; i++) {
		if (&mounts[i] == self || mounts[i].loop_done)
			continue;
		fuse_invalidate_path(mounts[i].fuse, path);  // -ENOENT: not cached there
		if (plen)
			fuse_invalidate_path(mounts[i].fuse, parent);
	}
}

// ---- The operations ----

// FUSE paths are absolute within the mount ("/a/b"); the backing fd resolves
// them relative to BACKING. The root itself is ".".
static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static int neg_errno(int r)
{
	return r == -1 ? -errno : 0;
}

static void *slowfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->use_ino = 1;      // report the backing inode numbers
	cfg->hard_remove = 1;  // unlink really unlinks (no .fuse_hidden files to break rmdir)
	cfg->nullpath_ok = 0;
	return fuse_get_context()->private_data;  // the struct mount given to fuse_new
}

static int slowfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_GETATTR);
	int res = fi ? fstat((int)fi->fh, st) :
		       fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
	return req_end(&r, neg_errno(res));
}

static int do_readlink(const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -EINVAL;
	ssize_t n = readlinkat(backing_fd, rel(path), buf, size - 1);
	if (n == -1)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int slowfs_readlink(const char *path, char *buf, size_t size)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, do_readlink(path, buf, size));
}

static int slowfs_mknod(const char *path, mode_t mode, dev_t rdev)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, neg_errno(mknodat(backing_fd, rel(path), mode, rdev)));
}

static int slowfs_mkdir(const char *path, mode_t mode)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, neg_errno(mkdirat(backing_fd, rel(path), mode)));
}

static int slowfs_unlink(const char *path)
{
	struct req r = req_begin(OP_UNLINK);
	const char *base = strrchr(path, '/');
	if (opts.slow_name && !strcmp(base ? base + 1 : path, opts.slow_name))
		sleep_us(opts.slow_us);
	int res = req_end(&r, neg_errno(unlinkat(backing_fd, rel(path), 0)));
	if (!res)
		invalidate_elsewhere(path);
	return res;
}

static int slowfs_rmdir(const char *path)
{
	struct req r = req_begin(OP_RMDIR);
	int res = req_end(&r, neg_errno(unlinkat(backing_fd, rel(path), AT_REMOVEDIR)));
	if (!res)
		invalidate_elsewhere(path);
	return res;
}

static int slowfs_symlink(const char *target, const char *path)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, neg_errno(symlinkat(target, backing_fd, rel(path))));
}

static int slowfs_rename(const char *from, const char *to, unsigned int flags)
{
	struct req r = req_begin(OP_OTHER);
	int res =
		req_end(&r, neg_errno(renameat2(backing_fd, rel(from), backing_fd, rel(to), flags)));
	if (!res) {
		invalidate_elsewhere(from);
		invalidate_elsewhere(to);
	}
	return res;
}

static int slowfs_link(const char *from, const char *to)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, neg_errno(linkat(backing_fd, rel(from), backing_fd, rel(to), 0)));
}

static int slowfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	int res = fi ? fchmod((int)fi->fh, mode) : fchmodat(backing_fd, rel(path), mode, 0);
	return req_end(&r, neg_errno(res));
}

static int slowfs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	int res = fi ? fchown((int)fi->fh, uid, gid) :
		       fchownat(backing_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
	return req_end(&r, neg_errno(res));
}

static int do_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	if (fi)
		return neg_errno(ftruncate((int)fi->fh, size));
	int fd = openat(backing_fd, rel(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	int res = neg_errno(ftruncate(fd, size));
	close(fd);
	return res;
}

static int slowfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, do_truncate(path, size, fi));
}

static int slowfs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	int res = fi ? futimens((int)fi->fh, tv) :
		       utimensat(backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW);
	return req_end(&r, neg_errno(res));
}

/* O_DIRECT is the client's business (a loop device over slowfs in direct
 * I/O, so that its requests overlap): slowfs models the latency, and the
 * backing file, on tmpfs say, may refuse it or the client's alignment. */
static int do_open(const char *path, int flags, mode_t mode, struct fuse_file_info *fi)
{
	int fd = openat(backing_fd, rel(path), (flags & ~O_DIRECT) | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd == -1)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int slowfs_open(const char *path, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, do_open(path, fi->flags & ~O_CREAT, 0, fi));
}

static int slowfs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, do_open(path, fi->flags | O_CREAT, mode, fi));
}

static int slowfs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)path;
	struct req r = req_begin(OP_OTHER);
	ssize_t n = pread((int)fi->fh, buf, size, off);
	return req_end(&r, n == -1 ? -errno : (int)n);
}

static int slowfs_write(const char *path, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	(void)path;
	struct req r = req_begin(OP_OTHER);
	ssize_t n = pwrite((int)fi->fh, buf, size, off);
	return req_end(&r, n == -1 ? -errno : (int)n);
}

static int slowfs_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, neg_errno(fstatvfs(backing_fd, sv)));
}

static int slowfs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	struct req r = req_begin(OP_OTHER);
	close((int)fi->fh);
	return req_end(&r, 0);
}

static int slowfs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	struct req r = req_begin(OP_OTHER);
	int res = datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh);
	return req_end(&r, neg_errno(res));
}

// An open directory: the DIR stream plus the entry read ahead but not yet
// handed to the kernel (its buffer was full), so no entry is skipped.
struct slowdir {
	DIR *dp;
	struct dirent *pending;
	off_t offset;
};

static int do_opendir(const char *path, struct fuse_file_info *fi)
{
	int fd = openat(backing_fd, rel(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	struct slowdir *d = calloc(1, sizeof(*d));
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	d->dp = fdopendir(fd);
	if (!d->dp) {
		int e = errno;
		close(fd);
		free(d);
		return -e;
	}
	fi->fh = (uint64_t)(uintptr_t)d;
	return 0;
}

static int slowfs_opendir(const char *path, struct fuse_file_info *fi)
{
	struct req r = req_begin(OP_OTHER);
	return req_end(&r, do_opendir(path, fi));
}

// One call per kernel READDIR request (offset mode), so a big directory
// costs one delay per buffer-full of entries, as on a network filesystem.
static int do_readdir(struct slowdir *d, void *buf, fuse_fill_dir_t fill, off_t off,
		      enum fuse_readdir_flags flags)
{
	if (off != d->offset) {
		seekdir(d->dp, off);
		d->pending = NULL;
		d->offset = off;
	}
	for (;;) {
		struct dirent *e = d->pending;
		if (!e) {
			errno = 0;
			e = readdir(d->dp);
			if (!e)
				return errno ? -errno : 0;
		}
		d->pending = e;
		struct stat st;
		enum fuse_fill_dir_flags ff = 0;
		memset(&st, 0, sizeof(st));
		if ((flags & FUSE_READDIR_PLUS) && strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    fstatat(dirfd(d->dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			ff = FUSE_FILL_DIR_PLUS;
		} else {
			st.st_ino = e->d_ino;
			st.st_mode = (mode_t)DTTOIF(e->d_type);
		}
		off_t next = telldir(d->dp);
		if (fill(buf, e->d_name, &st, next, ff))
			return 0;  // kernel buffer full: keep e pending for the next call
		d->pending = NULL;
		d->offset = next;
	}
}

static int slowfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			  struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)path;
	struct req r = req_begin(OP_READDIR);
	return req_end(&r, do_readdir((struct slowdir *)(uintptr_t)fi->fh, buf, fill, off, flags));
}

static int slowfs_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	struct slowdir *d = (struct slowdir *)(uintptr_t)fi->fh;
	struct req r = req_begin(OP_OTHER);
	closedir(d->dp);
	free(d);
	return req_end(&r, 0);
}

static const struct fuse_operations slowfs_ops = {
	.init = slowfs_init,
	.getattr = slowfs_getattr,
	.readlink = slowfs_readlink,
	.mknod = slowfs_mknod,
	.mkdir = slowfs_mkdir,
	.unlink = slowfs_unlink,
	.rmdir = slowfs_rmdir,
	.symlink = slowfs_symlink,
	.rename = slowfs_rename,
	.link = slowfs_link,
	.chmod = slowfs_chmod,
	.chown = slowfs_chown,
	.truncate = slowfs_truncate,
	.utimens = slowfs_utimens,
	.open = slowfs_open,
	.create = slowfs_create,
	.read = slowfs_read,
	.write = slowfs_write,
	.statfs = slowfs_statfs,
	.release = slowfs_release,
	.fsync = slowfs_fsync,
	.opendir = slowfs_opendir,
	.readdir = slowfs_readdir,
	.releasedir = slowfs_releasedir,
};

// ---- The log ----

static FILE *log_file;
static pthread_t log_thread;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t log_cv;
static int log_stop;
static unsigned long long t_start_us;

static void log_header(void)
{
	fprintf(log_file, "t_s\tqueued\tqueued_max\tin_service\tin_service_max\tinflight_max\t"
			  "client_queued\tclient_queued_max\t"
			  "unlink\trmdir\treaddir\tgetattr\tother\tlat_mean_us\tlat_max_us\n");
	fflush(log_file);
}

// Take this interval's counters and start the next; the peaks carry the
// current levels over, so a queue that stays full shows in every row.
static struct interval log_take(unsigned *queued, unsigned *in_service, unsigned *waiting)
{
	pthread_mutex_lock(&server_mu);
	struct interval iv = cur;
	*queued = server_q.len;
	*in_service = busy;
	*waiting = client_queued;
	memset(&cur, 0, sizeof(cur));
	cur.queued_max = server_q.len;
	cur.busy_max = busy;
	cur.client_queued_max = client_queued;
	for (unsigned i = 0; i < n_mounts; i++)
		if (mounts[i].inflight > cur.inflight_max)
			cur.inflight_max = mounts[i].inflight;
	pthread_mutex_unlock(&server_mu);
	return iv;
}

static void log_row(void)
{
	unsigned queued, in_service, waiting;
	struct interval iv = log_take(&queued, &in_service, &waiting);
	unsigned long n = 0;
	for (int i = 0; i < N_OPCLASS; i++)
		n += iv.done[i];
	if (iv.queued_max > peak.queued)
		peak.queued = iv.queued_max;
	if (iv.busy_max > peak.busy)
		peak.busy = iv.busy_max;
	if (iv.inflight_max > peak.inflight)
		peak.inflight = iv.inflight_max;
	peak.requests += n;
	fprintf(log_file, "%.3f\t%u\t%u\t%u\t%u\t%u\t%u\t%u\t%lu\t%lu\t%lu\t%lu\t%lu\t%llu\t%lu\n",
		(double)(now_us() - t_start_us) / 1e6, queued, iv.queued_max, in_service,
		iv.busy_max, iv.inflight_max, waiting, iv.client_queued_max, iv.done[OP_UNLINK],
		iv.done[OP_RMDIR], iv.done[OP_READDIR], iv.done[OP_GETATTR], iv.done[OP_OTHER],
		n ? iv.lat_sum_us / n : 0, iv.lat_max_us);
	fflush(log_file);
}

static void *log_main(void *arg)
{
	(void)arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&log_mu);
	while (!log_stop) {
		next.tv_nsec += (long)opts.log_interval_ms % 1000 * 1000000;
		next.tv_sec += opts.log_interval_ms / 1000 + next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (!log_stop && pthread_cond_timedwait(&log_cv, &log_mu, &next) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&log_mu);
		log_row();
		pthread_mutex_lock(&log_mu);
	}
	pthread_mutex_unlock(&log_mu);
	fprintf(log_file, "# max_queued=%u max_in_service=%u max_inflight=%u requests=%llu\n",
		peak.queued, peak.busy, peak.inflight, peak.requests);
	fflush(log_file);
	return NULL;
}

static int log_start(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&log_cv, &ca);
	pthread_condattr_destroy(&ca);
	t_start_us = now_us();
	log_header();
	return pthread_create(&log_thread, NULL, log_main, NULL);
}

static void log_finish(void)
{
	pthread_mutex_lock(&log_mu);
	log_stop = 1;
	pthread_cond_signal(&log_cv);
	pthread_mutex_unlock(&log_mu);
	pthread_join(log_thread, NULL);
}

// ---- Options ----

enum {
	KEY_MOUNT,
	KEY_SLOTS,
	KEY_CAP,
	KEY_LOG,
	KEY_INTERVAL,
	KEY_SLOW_NAME,
	KEY_SLOW_US,
	KEY_READDIR,
	KEY_DELAY,
	KEY_NOARG,  // one of the above without its "=VALUE"
};

#define OPT(t, p) \
	{ \
		t, offsetof(struct slowfs_opts, p), 1 \
	}
static const struct fuse_opt slowfs_optspec[] = {
	FUSE_OPT_KEY("--delay-us=", KEY_DELAY),
	FUSE_OPT_KEY("delay_us=", KEY_DELAY),
	FUSE_OPT_KEY("--readdir-us=", KEY_READDIR),
	FUSE_OPT_KEY("--mount=", KEY_MOUNT),
	FUSE_OPT_KEY("--server-slots=", KEY_SLOTS),
	FUSE_OPT_KEY("--client-cap=", KEY_CAP),
	FUSE_OPT_KEY("--log=", KEY_LOG),
	FUSE_OPT_KEY("--log-interval-ms=", KEY_INTERVAL),
	FUSE_OPT_KEY("--slow-unlink=", KEY_SLOW_NAME),
	FUSE_OPT_KEY("--slow-unlink-us=", KEY_SLOW_US),
	FUSE_OPT_KEY("--slow-unlink", KEY_NOARG),
	FUSE_OPT_KEY("--slow-unlink-us", KEY_NOARG),
	FUSE_OPT_KEY("--delay-us", KEY_NOARG),
	FUSE_OPT_KEY("--readdir-us", KEY_NOARG),
	FUSE_OPT_KEY("--mount", KEY_NOARG),
	FUSE_OPT_KEY("--server-slots", KEY_NOARG),
	FUSE_OPT_KEY("--client-cap", KEY_NOARG),
	FUSE_OPT_KEY("--log", KEY_NOARG),
	FUSE_OPT_KEY("--log-interval-ms", KEY_NOARG),
	OPT("-h", show_help),
	OPT("--help", show_help),
	FUSE_OPT_END,
};

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
	va_end(ap);
	opts.bad = 1;
	return -1;
}

// A decimal count in [min, UINT_MAX]: digits only, no sign, no garbage.
static int parse_count(const char *arg, unsigned min, unsigned *out)
{
	const char *v = strchr(arg, '=') + 1;
	char *end;
	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || errno || n > UINT_MAX || n < min)
		return -1;
	*out = (unsigned)n;
	return 0;
}

static int set_count(const char *arg, unsigned min, unsigned *out)
{
	const char *eq = strchr(arg, '=');
	if (parse_count(arg, min, out) == -1)
		return usage_error("invalid %.*s value: '%s'", (int)(eq - arg), arg, eq + 1);
	return 0;
}

static int add_mount(const char *arg)
{
	const char *dir = strchr(arg, '=') + 1;
	if (!*dir)
		return usage_error("--mount: empty mount point");
	if (opts.n_extra == MAX_MOUNTS - 1)
		return usage_error("too many mounts (at most %d)", MAX_MOUNTS);
	opts.extra_mounts[opts.n_extra++] = strdup(dir);
	return 0;
}

// Our options and BACKING (the first non-option argument); the rest go to
// libfuse.
static int slowfs_optproc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	(void)data;
	(void)outargs;
	unsigned v = 0;
	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		if (opts.backing)
			return 1;
		opts.backing = strdup(arg);
		return 0;
	case KEY_DELAY: return set_count(arg, 0, &opts.delay_us);
	case KEY_READDIR:
		if (set_count(arg, 0, &v))
			return -1;
		opts.readdir_us = v;
		return 0;
	case KEY_SLOTS: return set_count(arg, 0, &opts.server_slots);
	case KEY_CAP: return set_count(arg, 0, &opts.client_cap);
	case KEY_INTERVAL: return set_count(arg, 1, &opts.log_interval_ms);
	case KEY_LOG:
		free(opts.log_path);
		opts.log_path = strdup(strchr(arg, '=') + 1);
		return 0;
	case KEY_MOUNT: return add_mount(arg);
	case KEY_SLOW_NAME:
		free(opts.slow_name);
		opts.slow_name = strdup(strchr(arg, '=') + 1);
		return 0;
	case KEY_SLOW_US: return set_count(arg, 0, &opts.slow_us);
	case KEY_NOARG: return usage_error("option '%s' requires an argument", arg);
	default: return 1;
	}
}

static void usage(const char *prog)
{
	printf("Usage: %s [OPTION]... BACKING MOUNTPOINT [FUSE options]\n"
	       "Mirror directory BACKING at MOUNTPOINT, sleeping N microseconds in every\n"
	       "operation (default 0). Requests are served by up to 256 threads (override\n"
	       "with -o max_threads=N), so concurrent requests overlap.\n\n"
	       "  --delay-us=N          service time of every request (default 0)\n"
	       "  --readdir-us=N        service time of a READDIR (default: the delay)\n"
	       "  --slow-unlink=NAME    an UNLINK of an entry called NAME takes longer\n"
	       "  --slow-unlink-us=N    by N microseconds (default 2000000)\n"
	       "  --mount=DIR           mount BACKING at DIR too (repeatable): another client\n"
	       "  --server-slots=K      at most K requests in service over all mounts, the\n"
	       "                        rest wait in a FIFO queue (0: no limit, the default)\n"
	       "  --client-cap=C        at most C requests of one mount in flight (0: no limit)\n"
	       "  --log=FILE            the server's queue and latency, a TSV row per interval\n"
	       "  --log-interval-ms=N   the log's interval (default 100)\n\n",
	       prog);
}

// ---- Mounts and their loops ----

static struct fuse_cmdline_opts cmd;

static void wake(int sig)
{
	(void)sig;  // only interrupts a blocked wait or read
}

static void *loop_main(void *arg)
{
	struct mount *m = arg;
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	if (cmd.singlethread) {
		fuse_loop(m->fuse);
	} else {
		struct fuse_loop_config *lc = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(lc, (unsigned)cmd.clone_fd);
		fuse_loop_cfg_set_idle_threads(lc, cmd.max_idle_threads);
		fuse_loop_cfg_set_max_threads(lc, cmd.max_threads);
		fuse_loop_mt(m->fuse, lc);
		fuse_loop_cfg_destroy(lc);
	}
	m->loop_done = 1;
	return NULL;
}

// One fuse instance per mount, each from a fresh copy of the libfuse
// arguments (fuse_new consumes what it parses).
static int mount_one(struct mount *m, const struct fuse_args *args)
{
	struct fuse_args a = FUSE_ARGS_INIT(0, NULL);
	for (int i = 0; i < args->argc; i++)
		if (fuse_opt_add_arg(&a, args->argv[i]) == -1)
			return -1;
	m->fuse = fuse_new(&a, &slowfs_ops, sizeof(slowfs_ops), m);
	fuse_opt_free_args(&a);
	if (!m->fuse)
		return -1;
	if (fuse_mount(m->fuse, m->dir) != 0) {
		fuse_destroy(m->fuse);
		m->fuse = NULL;
		return -1;
	}
	return 0;
}

static void unmount_all(void)
{
	for (unsigned i = 0; i < n_mounts; i++) {
		if (!mounts[i].fuse)
			continue;
		fuse_unmount(mounts[i].fuse);
		fuse_destroy(mounts[i].fuse);
		mounts[i].fuse = NULL;
	}
}

static int all_loops_done(void)
{
	for (unsigned i = 0; i < n_mounts; i++)
		if (mounts[i].loop_started && !mounts[i].loop_done)
			return 0;
	return 1;
}

// Until a signal, or until every mount is unmounted from outside.
static void wait_for_end(const sigset_t *stop)
{
	struct timespec tick = { 0, 100 * 1000000 };
	while (!all_loops_done()) {
		int sig = sigtimedwait(stop, NULL, &tick);
		if (sig > 0)
			return;
	}
}

// Ask every loop to end and wake it (a wait or a read blocked before it saw
// the request would not look again), until it has ended.
static void stop_loops(void)
{
	for (unsigned i = 0; i < n_mounts; i++)
		if (mounts[i].loop_started)
			fuse_session_exit(fuse_get_session(mounts[i].fuse));
	for (unsigned i = 0; i < n_mounts; i++) {
		if (!mounts[i].loop_started)
			continue;
		while (!mounts[i].loop_done) {
			pthread_kill(mounts[i].thread, SIGUSR1);
			sleep_us(20000);
		}
		pthread_join(mounts[i].thread, NULL);
	}
}

static int serve(void)
{
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);  // every thread inherits this
	sigdelset(&stop, SIGUSR1);
	struct sigaction sa = { .sa_handler = wake };  // no SA_RESTART
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (log_file && log_start() != 0) {
		fprintf(stderr, PROG ": cannot start the logger thread\n");
		log_file = NULL;
	}
	int res = 0;
	for (unsigned i = 0; i < n_mounts; i++) {
		if (pthread_create(&mounts[i].thread, NULL, loop_main, &mounts[i]) != 0) {
			fprintf(stderr, PROG ": cannot start the loop of '%s'\n", mounts[i].dir);
			res = 1;
			break;
		}
		mounts[i].loop_started = 1;
	}
	if (!res)
		wait_for_end(&stop);
	stop_loops();
	if (log_file)
		log_finish();
	return res;
}

static int open_log(void)
{
	if (!opts.log_path)
		return 0;
	int fd = open(opts.log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd == -1 || !(log_file = fdopen(fd, "w"))) {
		fprintf(stderr, PROG ": cannot open '%s': %s\n", opts.log_path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return 0;
}

static int show_help(struct fuse_args *args, const char *prog)
{
	usage(prog);
	printf("FUSE options:\n");
	fuse_cmdline_help();
	args->argv[0][0] = '\0';
	fuse_lib_help(args);
	return 0;
}

static int run(struct fuse_args *args)
{
	if (fuse_parse_cmdline(args, &cmd) != 0)
		return 2;
	if (cmd.show_version) {
		fuse_lowlevel_version();
		return 0;
	}
	if (!cmd.mountpoint) {
		usage_error("missing MOUNTPOINT");
		return 2;
	}
	backing_fd = open(opts.backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (backing_fd == -1) {
		fprintf(stderr, PROG ": cannot open '%s': %s\n", opts.backing, strerror(errno));
		return 1;
	}
	if (open_log() == -1)
		return 1;
	mounts[n_mounts++].dir = cmd.mountpoint;
	for (unsigned i = 0; i < opts.n_extra; i++)
		mounts[n_mounts++].dir = opts.extra_mounts[i];
	for (unsigned i = 0; i < n_mounts; i++) {
		if (mount_one(&mounts[i], args) == -1) {
			fprintf(stderr, PROG ": cannot mount '%s'\n", mounts[i].dir);
			unmount_all();
			return 1;
		}
	}
	int res = fuse_daemonize(cmd.foreground) != 0 ? 1 : serve();
	unmount_all();
	return res;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	int res;
	if (fuse_opt_parse(&args, &opts, slowfs_optspec, slowfs_optproc) == -1) {
		res = 2;
	} else if (opts.show_help) {
		res = show_help(&args, argv[0]);
	} else if (!opts.backing) {
		usage_error("missing BACKING directory");
		res = 2;
	} else if (fuse_opt_insert_arg(&args, 1, "-omax_threads=256,max_idle_threads=256") == -1) {
		// libfuse 3.14 caps its worker pool at 10 threads by default, which
		// would cap the overlap; ask for more (a later -o max_threads wins).
		// Keep idle workers rather than re-creating them per burst; setting
		// max_idle_threads also avoids a spurious libfuse 3.14 warning.
		res = 1;
	} else {
		umask(0);
		res = run(&args);
	}
	if (log_file)
		fclose(log_file);
	fuse_opt_free_args(&args);
	if (backing_fd != -1)
		close(backing_fd);
	free(opts.backing);
	free(opts.log_path);
	free(cmd.mountpoint);
	for (unsigned i = 0; i < opts.n_extra; i++)
		free(opts.extra_mounts[i]);
	return res;
}
