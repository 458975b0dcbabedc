// SPDX-License-Identifier: GPL-3.0-or-later
/* Stored controller profiles (see profile.h). */
#include "ctl/profile.h"
#include "engine/fsinfo.h"
#include "lib/env.h"
#include "lib/json.h"
#include "lib/msg.h"
#include "lib/taskio.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define PROFILE_FORMAT "adaptrm-profile-1"
#define DAY 86400
/* A found entry older than this is written back with "used" now, so that
 * loads count as use without a write on most starts. */
#define REFRESH_USED (7 * DAY)
/* A profile file is a few hundred bytes per class. */
#define MAX_FILE_BYTES 65536

/* Filesystems whose fsid or device is made up at mount time (a per-id file
 * would never be read again after a remount), kept in one file per type.
 * Network filesystems (NFS, CIFS) and btrfs/zfs subvolumes keep the id key:
 * their server or pool is worth telling apart, and the file cap bounds them. */
static const struct {
	uint64_t f_type;
	const char *name; /* fsinfo_name's */
} by_type[] = {
	{ 0x01021994, "tmpfs" }, /* also devtmpfs */
	{ 0x858458f6, "ramfs" },
	{ 0x794c7630, "overlay" },
	{ 0x65735546, "fuse" }, /* every FUSE filesystem, fuseblk and virtiofs too */
};
#define N_BY_TYPE (sizeof by_type / sizeof by_type[0])

bool profile_fs_by_type(uint64_t f_type)
{
	for (size_t i = 0; i < N_BY_TYPE; i++)
		if (by_type[i].f_type == f_type)
			return true;
	return false;
}

void profile_key_fs(struct profile_key *k, uint64_t f_type, const char *fsid, unsigned dev_major,
		    unsigned dev_minor)
{
	char nb[24];
	k->f_type = f_type;
	snprintf(k->fs, sizeof k->fs, "%s", fsinfo_name(f_type, nb));
	k->by_type = profile_fs_by_type(f_type);
	snprintf(k->fsid, sizeof k->fsid, "%s", fsid);
	k->dev_major = dev_major;
	k->dev_minor = dev_minor;
}

const char *profile_shape_class(unsigned entries, unsigned dirs, bool more, int sub_entries)
{
	if (entries == 0)
		return "empty";
	if (dirs == 1 && entries <= 2 && !more)
		return "chain";
	if ((more || entries >= 256) && dirs * 20 < entries)
		return "flat";
	if (dirs >= 2)
		return sub_entries >= 100 ? "tree-wide" : "tree-small";
	return "small";
}

struct dirent64_hdr {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Count the entries of the first getdents64 buffer of FD; copies the first
 * subdirectory's name into SUB when asked. Returns false on error. */
static bool sample_dir(int fd, unsigned *entries, unsigned *dirs, bool *more, char *sub, size_t sublen)
{
	static _Thread_local char buf[32768];
	*entries = *dirs = 0;
	*more = false;
	if (sub)
		sub[0] = '\0';
	long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
	if (n < 0)
		return false;
	for (long off = 0; off < n;) {
		struct dirent64_hdr *d = (struct dirent64_hdr *)(buf + off);
		off += d->d_reclen;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		(*entries)++;
		if (d->d_type == DT_DIR) {
			if (sub && !sub[0] && strlen(d->d_name) < sublen)
				strcpy(sub, d->d_name);
			(*dirs)++;
		}
	}
	/* A full buffer means there is more (a big directory). */
	*more = n > (long)sizeof buf - 512;
	return true;
}

/* A directory that only wraps one subdirectory (a project around its
 * node_modules, a checkout's parent) says nothing of the tree below it:
 * sample through up to this many of them, so that a chain is a directory
 * nested one in another all the way down, not the wrapper of a tree. */
#define UNWRAP_DEPTH 4

/* Sample FD's first buffer; while it is only a wrapper, sample its one
 * subdirectory instead, unless that is empty (then it was a short chain).
 * Returns the fd sampled last: FD, or one opened below it (FD then closed). */
static int unwrap(int fd, unsigned *entries, unsigned *dirs, bool *more, char *sub, size_t sublen)
{
	if (!sample_dir(fd, entries, dirs, more, sub, sublen))
		return fd;
	for (int depth = 0; depth < UNWRAP_DEPTH; depth++) {
		if (*dirs != 1 || *entries > 2 || *more || !sub[0])
			break;
		int in = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		unsigned e, d;
		bool m;
		char s[256];
		if (in < 0)
			break;
		if (!sample_dir(in, &e, &d, &m, s, sizeof s) || e == 0) {
			close(in);
			break;
		}
		close(fd);
		fd = in;
		*entries = e;
		*dirs = d;
		*more = m;
		snprintf(sub, sublen, "%s", s);
	}
	return fd;
}

bool profile_key_for(int dirfd, const char *name, struct profile_key *k, bool *cold)
{
	memset(k, 0, sizeof(*k));
	int64_t io0 = cold ? taskio_read_bytes() : -1;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct statfs sfs;
	struct stat st;
	if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0) {
		close(fd);
		return false;
	}
	unsigned a, b;
	memcpy(&a, &sfs.f_fsid, sizeof a);
	memcpy(&b, (char *)&sfs.f_fsid + sizeof a, sizeof b);
	char fsid[20];
	snprintf(fsid, sizeof fsid, "%08x%08x", a, b);
	/* as fsinfo_type: f_type is a 32-bit magic in a signed long */
	profile_key_fs(k, (uint32_t)sfs.f_type, fsid, major(st.st_dev), minor(st.st_dev));

	unsigned entries, dirs, se, sd;
	bool more, smore;
	char sub[256];
	int sub_entries = -1;
	fd = unwrap(fd, &entries, &dirs, &more, sub, sizeof sub);
	if (dirs >= 2 && sub[0]) {
		int sfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd >= 0) {
			if (sample_dir(sfd, &se, &sd, &smore, NULL, 0))
				sub_entries = (int)se;
			close(sfd);
		}
	}
	/* a filesystem in memory has no disk to read */
	if (cold)
		*cold = io0 >= 0 && !fsinfo_type_in_memory(k->f_type) && taskio_read_bytes() > io0;
	close(fd);
	snprintf(k->shape, sizeof k->shape, "%s",
		 profile_shape_class(entries, dirs, more, sub_entries));
	return true;
}

char *profile_dir(void)
{
	const char *x = env_str(ENV_XDG_CACHE_HOME);
	char *d = NULL;
	if (x && x[0] == '/') {
		if (asprintf(&d, "%s/adaptrm", x) < 0)
			d = NULL;
	} else {
		const char *h = env_str(ENV_HOME);
		if (!h || !*h)
			return NULL;
		if (asprintf(&d, "%s/.cache/adaptrm", h) < 0)
			d = NULL;
	}
	return d;
}

/* K's file in DIR; the per-id name when ID even if K is kept per type (an
 * older version's file). */
static char *path_in(const char *dir, const struct profile_key *k, bool id)
{
	char *p = NULL;
	int r = k->by_type && !id ? asprintf(&p, "%s/%s.json", dir, k->fs) :
				    asprintf(&p, "%s/%s-%s-%u_%u.json", dir, k->fs, k->fsid,
					     k->dev_major, k->dev_minor);
	return r < 0 ? NULL : p;
}

char *profile_path(const struct profile_key *k)
{
	char *dir = profile_dir(), *p = NULL;
	if (!dir)
		return NULL;
	p = path_in(dir, k, false);
	free(dir);
	return p;
}

/* [a-z0-9]{1,MAX} then STOP: the length taken, or 0. */
static size_t span(const char *s, const char *set, size_t max, char stop)
{
	size_t n = strspn(s, set);
	return n >= 1 && n <= max && s[n] == stop ? n : 0;
}

bool profile_file_name(const char *name)
{
	for (size_t i = 0; i < N_BY_TYPE; i++) {
		size_t l = strlen(by_type[i].name);
		if (!strncmp(name, by_type[i].name, l) && !strcmp(name + l, ".json"))
			return true;
	}
	/* FS-FSID-MAJOR_MINOR.json: fsinfo_name's names are [a-z0-9] ("0x..."
	 * for unknown types), the fsid 16 hex digits */
	const char *s = name;
	size_t n = span(s, "abcdefghijklmnopqrstuvwxyz0123456789", 23, '-');
	if (!n || strlen(s += n + 1) < 16 || span(s, "0123456789abcdef", 16, '-') != 16)
		return false;
	s += 17;
	if (!(n = span(s, "0123456789", 10, '_')))
		return false;
	s += n + 1;
	if (!(n = span(s, "0123456789", 10, '.')))
		return false;
	return !strcmp(s + n, ".json");
}

static bool warned;

static void warn_once(const char *path, const char *why)
{
	if (warned)
		return;
	warned = true;
	warn_errno(0, "ignoring profile %s: %s", path, why);
}

/* A learned switch: "on" 1, "off" 0, anything else (absent) -1. */
static int on_off(const char *v)
{
	return !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -1;
}

const char *profile_switch_name(int v)
{
	return v < 0 ? "-" : v ? "on" : "off";
}

/* PATH's text (malloc'ed), read without following a symbolic link nor
 * blocking on a FIFO; NULL with *MISSING when it does not exist, else with
 * the reason in ERR. */
static char *read_text(const char *path, bool *missing, int64_t *mtime, char *err, size_t errlen)
{
	*missing = false;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		/* absent, or out of reach (HOME of another user under sudo -u):
		 * nothing stored for us, as before */
		*missing = errno == ENOENT || errno == ENOTDIR || errno == EACCES;
		snprintf(err, errlen, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
		return NULL;
	}
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
	} else if (st.st_size > MAX_FILE_BYTES) {
		snprintf(err, errlen, "larger than %d bytes", MAX_FILE_BYTES);
	} else if ((buf = malloc((size_t)st.st_size + 1))) {
		size_t len = 0;
		ssize_t r;
		while (len < (size_t)st.st_size &&
		       (r = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
			len += (size_t)r;
		buf[len] = '\0';
		*mtime = (int64_t)st.st_mtim.tv_sec;
	} else {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	}
	close(fd);
	return buf;
}

bool profile_read(const char *path, const struct profile_key *k, struct profile_file *pf)
{
	memset(pf, 0, sizeof(*pf));
	char err[200];
	bool missing;
	char *text = read_text(path, &missing, &pf->mtime, err, sizeof err);
	if (!text) {
		if (missing)
			return true;
		warn_once(path, err);
		return false;
	}
	pf->present = true;
	struct json_value *v = json_parse(text, err, sizeof err);
	free(text);
	if (!v) {
		warn_once(path, err);
		return false;
	}
	bool ok = false;
	const char *why = "not an adaptrm profile";
	const struct json_value *cl = json_get(v, "classes");
	if (strcmp(json_get_str(v, "format", ""), PROFILE_FORMAT) != 0 || !cl ||
	    cl->type != JSON_ARRAY)
		goto out;
	/* a per-type file names no fsid; a per-id one names its own */
	const char *fsid = json_get_str(v, "fsid", NULL);
	if (k && (strcmp(json_get_str(v, "fs", ""), k->fs) ||
		  (k->by_type ? fsid != NULL : !fsid || strcmp(fsid, k->fsid)))) {
		why = "written for another filesystem";
		goto out;
	}
	pf->by_type = !fsid;
	snprintf(pf->fs, sizeof pf->fs, "%s", json_get_str(v, "fs", "?"));
	snprintf(pf->fsid, sizeof pf->fsid, "%s", fsid ? fsid : "-");
	snprintf(pf->dev, sizeof pf->dev, "%s", json_get_str(v, "dev", "-"));
	for (size_t i = 0; i < cl->n && pf->n < PROFILE_MAX_CLASSES; i++) {
		const struct json_value *c = cl->items[i];
		const char *shape = json_get_str(c, "shape", NULL);
		double th = json_get_num(c, "threads", -1);
		if (!shape || strlen(shape) >= 16 || th < 1 || th > 4096) {
			why = "an entry is malformed";
			goto out;
		}
		snprintf(pf->shape[pf->n], 16, "%s", shape);
		pf->e[pf->n].threads = (int)th;
		pf->e[pf->n].rate = json_get_num(c, "rate", 0);
		double runs = json_get_num(c, "runs", 1), updated = json_get_num(c, "updated", 0);
		double used = json_get_num(c, "used", updated);
		/* a count and two unix times: anything else is not ours */
		if (!(runs >= 0 && runs <= UINT_MAX) || !(fabs(updated) < 0x1p62) ||
		    !(fabs(used) < 0x1p62)) {
			why = "an entry is malformed";
			goto out;
		}
		pf->e[pf->n].runs = (unsigned)runs;
		pf->e[pf->n].updated = (int64_t)updated;
		pf->e[pf->n].used = (int64_t)used;
		pf->e[pf->n].share = on_off(json_get_str(c, "share", ""));
		pf->e[pf->n].sort = on_off(json_get_str(c, "sort", ""));
		pf->n++;
	}
	ok = true;
out:
	if (!ok)
		warn_once(path, why);
	json_free(v);
	return ok;
}

/* Create the profile directory, but never the cache home it lives in
 * ($XDG_CACHE_HOME, or $HOME/.cache without it) nor anything above: if that
 * is gone (the user just deleted it), so is the wish to keep a cache there.
 * Creates at most the final "adaptrm". */
static int make_profile_dir(const char *dir)
{
	char *d = xstrdup(dir);
	char *cut = strrchr(d, '/'); /* .../adaptrm */
	int r = -1;
	struct stat st;
	if (!cut)
		goto out;
	*cut = '\0';
	if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
		goto out;
	*cut = '/';
	r = mkdir(d, 0700) < 0 && errno != EEXIST ? -1 : 0;
out:
	free(d);
	return r;
}

bool profile_dir_inside(dev_t dev, ino_t ino)
{
	char *d = profile_dir();
	bool inside = false;
	if (!d)
		return false;
	/* Every existing prefix of the path: is one of them that directory? */
	for (char *s = d + strlen(d); s > d && !inside;) {
		struct stat st;
		if (stat(d, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
			inside = true;
		s = strrchr(d, '/');
		if (!s || s == d)
			break;
		*s = '\0';
	}
	free(d);
	return inside;
}

/* Drop the entries of PF not used since the expiry (their class starts from
 * the prior again). */
static void expire(struct profile_file *pf, int64_t now)
{
	int n = 0;
	for (int i = 0; i < pf->n; i++) {
		if (pf->e[i].used < now - (int64_t)PROFILE_EXPIRE_DAYS * DAY)
			continue;
		if (n != i) {
			memcpy(pf->shape[n], pf->shape[i], sizeof pf->shape[n]);
			pf->e[n] = pf->e[i];
		}
		n++;
	}
	pf->n = n;
}

/* Write PF as K's file PATH: a temporary file, then rename. */
static bool write_file(const char *path, const struct profile_key *k, const struct profile_file *pf)
{
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return false;
	bool ok = false;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto out;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		goto out;
	}
	struct json_writer w;
	jw_init(&w, f);
	jw_object(&w, NULL);
	jw_string(&w, "format", PROFILE_FORMAT);
	jw_string(&w, "fs", k->fs);
	if (!k->by_type) {
		jw_string(&w, "fsid", k->fsid);
		char dev[32];
		snprintf(dev, sizeof dev, "%u:%u", k->dev_major, k->dev_minor);
		jw_string(&w, "dev", dev);
	}
	jw_array(&w, "classes");
	for (int j = 0; j < pf->n; j++) {
		jw_object(&w, NULL);
		jw_string(&w, "shape", pf->shape[j]);
		jw_int(&w, "threads", pf->e[j].threads);
		jw_double(&w, "rate", pf->e[j].rate);
		jw_uint(&w, "runs", pf->e[j].runs);
		jw_int(&w, "updated", pf->e[j].updated);
		jw_int(&w, "used", pf->e[j].used);
		if (pf->e[j].share >= 0)
			jw_string(&w, "share", profile_switch_name(pf->e[j].share));
		if (pf->e[j].sort >= 0)
			jw_string(&w, "sort", profile_switch_name(pf->e[j].sort));
		jw_end(&w);
	}
	jw_end(&w);
	jw_end(&w);
	jw_finish(&w);
	bool werr = ferror(f) != 0;
	if (fclose(f) != 0 || werr || rename(tmp, path) < 0) {
		unlink(tmp);
		goto out;
	}
	ok = true;
out:
	free(tmp);
	return ok;
}

/* K's stored file in DIR into PF: its own, or for a filesystem kept per
 * type whose TYPE.json does not exist yet, the per-id file an older version
 * wrote for this very mount (read compatibility; the next write moves it to
 * TYPE.json and the pruning removes it). False if the file is bad. */
static bool read_key(const char *dir, const struct profile_key *k, struct profile_file *pf,
		     bool *legacy)
{
	char *path = path_in(dir, k, false);
	bool ok = path && profile_read(path, k, pf);
	free(path);
	*legacy = false;
	if (ok && !pf->present && k->by_type) {
		struct profile_key id = *k;
		id.by_type = false;
		path = path_in(dir, &id, true);
		ok = path && profile_read(path, &id, pf);
		*legacy = pf->present;
		free(path);
	}
	return ok;
}

bool profile_load(const struct profile_key *k, struct profile_entry *out)
{
	char *dir = profile_dir(), *path = dir ? path_in(dir, k, false) : NULL;
	struct profile_file pf;
	bool found = false, legacy;
	if (!path || !read_key(dir, k, &pf, &legacy))
		goto out;
	int i;
	for (i = 0; i < pf.n && strcmp(pf.shape[i], k->shape); i++)
		;
	if (i == pf.n)
		goto out;
	*out = pf.e[i];
	found = true;
	/* Loading is using: the stamp the expiry reads is refreshed now and
	 * then (a write a week at most), the mtime the cap's LRU order reads
	 * at most hourly (no write of the file). */
	int64_t now = (int64_t)time(NULL);
	if (pf.e[i].used < now - REFRESH_USED || legacy) {
		pf.e[i].used = now;
		expire(&pf, now);
		write_file(path, k, &pf);
	} else if (pf.mtime < now - 3600) {
		utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
	}
out:
	free(dir);
	free(path);
	return found;
}

struct prune_file {
	char name[80];
	int64_t mtime;
};

static int by_mtime(const void *a, const void *b)
{
	const struct prune_file *x = a, *y = b;
	return x->mtime != y->mtime ? (x->mtime < y->mtime ? -1 : 1) : strcmp(x->name, y->name);
}

/* The per-type index of NAME's filesystem when NAME is a per-id file of a
 * type now kept per type ("tmpfs-FSID-0_45.json"), else -1. */
static int per_id_of_by_type(const char *name)
{
	for (size_t i = 0; i < N_BY_TYPE; i++) {
		size_t l = strlen(by_type[i].name);
		if (!strncmp(name, by_type[i].name, l) && name[l] == '-')
			return (int)i;
	}
	return -1;
}

/* Not more than this many names are looked at in one pass (a directory an
 * older version filled with more: the next runs go on). */
#define PRUNE_SCAN_MAX 65536

int profile_prune(const char *dir, const char *keep, int64_t now)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	struct prune_file *f = NULL;
	size_t n = 0, cap = 0, ours = 0;
	bool have_type[N_BY_TYPE] = { false };
	struct dirent *de;
	while ((de = readdir(d)) && n < PRUNE_SCAN_MAX) {
		const char *name = de->d_name;
		struct stat st;
		if (strlen(name) >= sizeof f->name || !profile_file_name(name) ||
		    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue; /* not ours: never touched */
		ours++;
		for (size_t i = 0; i < N_BY_TYPE; i++) {
			size_t l = strlen(by_type[i].name);
			if (!strncmp(name, by_type[i].name, l) && !strcmp(name + l, ".json"))
				have_type[i] = true;
		}
		if (keep && !strcmp(name, keep))
			continue; /* counted, never removed */
		if (!try_grow(&f, &cap, n + 1, 64))
			break;
		snprintf(f[n].name, sizeof f[n].name, "%s", name);
		f[n].mtime = (int64_t)st.st_mtim.tv_sec;
		n++;
	}
	int removed = 0;
	size_t left = 0;
	for (size_t i = 0; i < n; i++) {
		/* expired: not written nor loaded (which touches the mtime) for
		 * the expiry; superseded: a per-id file of a type kept per type
		 * once TYPE.json exists (never read again) */
		int t = per_id_of_by_type(f[i].name);
		bool go = f[i].mtime < now - (int64_t)PROFILE_EXPIRE_DAYS * DAY ||
			  (t >= 0 && have_type[t]);
		if (go && unlinkat(dfd, f[i].name, 0) == 0) {
			removed++;
			ours--;
		} else {
			f[left++] = f[i];
		}
	}
	if (ours > PROFILE_MAX_FILES) {
		qsort(f, left, sizeof *f, by_mtime);
		for (size_t i = 0; i < left && ours > PROFILE_MAX_FILES; i++)
			if (unlinkat(dfd, f[i].name, 0) == 0) {
				removed++;
				ours--;
			}
	}
	free(f);
	closedir(d);
	return removed;
}

bool profile_store(const struct profile_key *k, const struct profile_entry *e)
{
	static bool pruned;
	char *dir = profile_dir(), *path = dir ? path_in(dir, k, false) : NULL;
	bool ok = false, legacy;
	if (!dir || !path || make_profile_dir(dir) < 0)
		goto out;
	struct profile_file pf;
	if (!read_key(dir, k, &pf, &legacy))
		pf.n = 0; /* replace a corrupt or foreign file */
	int64_t now = (int64_t)time(NULL);
	int i;
	for (i = 0; i < pf.n && strcmp(pf.shape[i], k->shape); i++)
		;
	if (i == pf.n) {
		if (pf.n < PROFILE_MAX_CLASSES) {
			pf.n++;
		} else { /* full: the least recently used class gives way */
			i = 0;
			for (int j = 1; j < pf.n; j++)
				if (pf.e[j].used < pf.e[i].used)
					i = j;
		}
		snprintf(pf.shape[i], 16, "%s", k->shape);
	}
	pf.e[i] = *e;
	pf.e[i].used = now;
	expire(&pf, now);
	ok = write_file(path, k, &pf);
	if (ok && !pruned) {
		pruned = true; /* once a run: one readdir, an fstatat per file */
		profile_prune(dir, strrchr(path, '/') + 1, now);
	}
out:
	free(dir);
	free(path);
	return ok;
}
