// slowfs: a pass-through FUSE filesystem that sleeps a fixed time on every
// operation. It stands in for a high-latency network filesystem (NFS, SMB,
// a cloud FUSE mount) in the end-to-end tests and in the benchmark: there,
// each request costs a round trip, so throughput grows with the number of
// requests in flight, which is what adaptrm's controller has to discover.
//
//   slowfs [--delay-us=N] BACKING MOUNTPOINT [FUSE options, e.g. -f -o max_threads=64]
//
// Everything is served from the directory BACKING, relative to one fd opened
// at start-up (never by absolute path), so the mount mirrors BACKING exactly
// and what is deleted through the mount is gone from BACKING too.
//
// Requests are served by libfuse's multi-threaded loop; the sleep happens in
// the worker thread, so concurrent requests overlap as they would on a real
// network filesystem. Readdir hands out entries with their attributes
// (readdirplus) so that, as on NFS, listing a directory primes the kernel's
// dentry cache and a later unlink costs one request, not a lookup too.
#define FUSE_USE_VERSION 35

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

struct slowfs_opts {
	unsigned delay_us;
	char *backing;
	int show_help;
};

static struct slowfs_opts opts;
static int backing_fd = -1;

// One simulated round trip.
static void delay(void)
{
	if (!opts.delay_us)
		return;
	struct timespec ts = { opts.delay_us / 1000000, (long)(opts.delay_us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

// FUSE paths are absolute within the mount ("/a/b"); the backing fd resolves
// them relative to BACKING. The root itself is ".".
static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static void *slowfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->use_ino = 1;      // report the backing inode numbers
	cfg->hard_remove = 1;  // unlink really unlinks (no .fuse_hidden files to break rmdir)
	cfg->nullpath_ok = 0;
	return NULL;
}

static int slowfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	delay();
	int r = fi ? fstat((int)fi->fh, st) : fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
	return r == -1 ? -errno : 0;
}

static int slowfs_readlink(const char *path, char *buf, size_t size)
{
	delay();
	if (size == 0)
		return -EINVAL;
	ssize_t n = readlinkat(backing_fd, rel(path), buf, size - 1);
	if (n == -1)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int slowfs_mknod(const char *path, mode_t mode, dev_t rdev)
{
	delay();
	return mknodat(backing_fd, rel(path), mode, rdev) == -1 ? -errno : 0;
}

static int slowfs_mkdir(const char *path, mode_t mode)
{
	delay();
	return mkdirat(backing_fd, rel(path), mode) == -1 ? -errno : 0;
}

static int slowfs_unlink(const char *path)
{
	delay();
	return unlinkat(backing_fd, rel(path), 0) == -1 ? -errno : 0;
}

static int slowfs_rmdir(const char *path)
{
	delay();
	return unlinkat(backing_fd, rel(path), AT_REMOVEDIR) == -1 ? -errno : 0;
}

static int slowfs_symlink(const char *target, const char *path)
{
	delay();
	return symlinkat(target, backing_fd, rel(path)) == -1 ? -errno : 0;
}

static int slowfs_rename(const char *from, const char *to, unsigned int flags)
{
	delay();
	return renameat2(backing_fd, rel(from), backing_fd, rel(to), flags) == -1 ? -errno : 0;
}

static int slowfs_link(const char *from, const char *to)
{
	delay();
	return linkat(backing_fd, rel(from), backing_fd, rel(to), 0) == -1 ? -errno : 0;
}

static int slowfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	delay();
	int r = fi ? fchmod((int)fi->fh, mode) : fchmodat(backing_fd, rel(path), mode, 0);
	return r == -1 ? -errno : 0;
}

static int slowfs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	delay();
	int r = fi ? fchown((int)fi->fh, uid, gid) :
		     fchownat(backing_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
	return r == -1 ? -errno : 0;
}

static int slowfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	delay();
	if (fi)
		return ftruncate((int)fi->fh, size) == -1 ? -errno : 0;
	int fd = openat(backing_fd, rel(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	int r = ftruncate(fd, size) == -1 ? -errno : 0;
	close(fd);
	return r;
}

static int slowfs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	delay();
	int r = fi ? futimens((int)fi->fh, tv) :
		     utimensat(backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW);
	return r == -1 ? -errno : 0;
}

static int slowfs_open(const char *path, struct fuse_file_info *fi)
{
	delay();
	int fd = openat(backing_fd, rel(path), (fi->flags & ~O_CREAT) | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int slowfs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	delay();
	int fd = openat(backing_fd, rel(path), fi->flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd == -1)
		return -errno;
	fi->fh = (uint64_t)fd;
	return 0;
}

static int slowfs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)path;
	delay();
	ssize_t n = pread((int)fi->fh, buf, size, off);
	return n == -1 ? -errno : (int)n;
}

static int slowfs_write(const char *path, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	(void)path;
	delay();
	ssize_t n = pwrite((int)fi->fh, buf, size, off);
	return n == -1 ? -errno : (int)n;
}

static int slowfs_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	delay();
	return fstatvfs(backing_fd, sv) == -1 ? -errno : 0;
}

static int slowfs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	delay();
	close((int)fi->fh);
	return 0;
}

static int slowfs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path;
	delay();
	int r = datasync ? fdatasync((int)fi->fh) : fsync((int)fi->fh);
	return r == -1 ? -errno : 0;
}

// An open directory: the DIR stream plus the entry read ahead but not yet
// handed to the kernel (its buffer was full), so no entry is skipped.
struct slowdir {
	DIR *dp;
	struct dirent *pending;
	off_t offset;
};

static int slowfs_opendir(const char *path, struct fuse_file_info *fi)
{
	delay();
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

// One call per kernel READDIR request (offset mode), so a big directory
// costs one delay per buffer-full of entries, as on a network filesystem.
static int slowfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			  struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)path;
	struct slowdir *d = (struct slowdir *)(uintptr_t)fi->fh;
	delay();
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
			if (!e) {
				if (errno)
					return -errno;
				break;
			}
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
			break;	// kernel buffer full: keep e pending for the next call
		d->pending = NULL;
		d->offset = next;
	}
	return 0;
}

static int slowfs_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	struct slowdir *d = (struct slowdir *)(uintptr_t)fi->fh;
	delay();
	closedir(d->dp);
	free(d);
	return 0;
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

#define OPT(t, p) \
	{ \
		t, offsetof(struct slowfs_opts, p), 1 \
	}
static const struct fuse_opt slowfs_optspec[] = {
	OPT("--delay-us=%u", delay_us),
	OPT("delay_us=%u", delay_us),
	OPT("-h", show_help),
	OPT("--help", show_help),
	FUSE_OPT_END,
};

// The first non-option argument is BACKING; the rest go to libfuse.
static int slowfs_optproc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	(void)data;
	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT && !opts.backing) {
		opts.backing = strdup(arg);
		return 0;
	}
	return 1;
}

static void usage(const char *prog)
{
	printf("Usage: %s [--delay-us=N] BACKING MOUNTPOINT [FUSE options]\n"
	       "Mirror directory BACKING at MOUNTPOINT, sleeping N microseconds in every\n"
	       "operation (default 0). Requests are served by up to 256 threads (override\n"
	       "with -o max_threads=N), so concurrent requests overlap.\n\n",
	       prog);
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	if (fuse_opt_parse(&args, &opts, slowfs_optspec, slowfs_optproc) == -1)
		return 2;
	if (opts.show_help) {
		usage(argv[0]);
		fuse_opt_add_arg(&args, "--help");
		args.argv[0][0] = '\0';
	} else {
		if (!opts.backing) {
			fprintf(stderr, "%s: missing BACKING directory\n", argv[0]);
			usage(argv[0]);
			return 2;
		}
		backing_fd = open(opts.backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (backing_fd == -1) {
			fprintf(stderr, "%s: cannot open '%s': %s\n", argv[0], opts.backing,
				strerror(errno));
			return 1;
		}
		// libfuse 3.14 caps its worker pool at 10 threads by default, which
		// would cap the overlap; ask for more (a later -o max_threads wins).
		// Keep idle workers rather than re-creating them per burst; setting
		// max_idle_threads also avoids a spurious libfuse 3.14 warning.
		if (fuse_opt_insert_arg(&args, 1, "-omax_threads=256,max_idle_threads=256") == -1)
			return 1;
	}
	umask(0);
	int r = fuse_main(args.argc, args.argv, &slowfs_ops, NULL);
	fuse_opt_free_args(&args);
	if (backing_fd != -1)
		close(backing_fd);
	free(opts.backing);
	return r;
}
