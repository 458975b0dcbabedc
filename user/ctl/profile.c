/* Stored controller profiles (see profile.h). */
#include "ctl/profile.h"
#include "engine/fsinfo.h"
#include "lib/env.h"
#include "lib/json.h"
#include "lib/msg.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

bool profile_key_for(int dirfd, const char *name, struct profile_key *k)
{
	memset(k, 0, sizeof(*k));
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct statfs sfs;
	struct stat st;
	if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0) {
		close(fd);
		return false;
	}
	k->f_type = (uint64_t)sfs.f_type;
	char nb[24];
	snprintf(k->fs, sizeof k->fs, "%s", fsinfo_name(k->f_type, nb));
	unsigned a, b;
	memcpy(&a, &sfs.f_fsid, sizeof a);
	memcpy(&b, (char *)&sfs.f_fsid + sizeof a, sizeof b);
	snprintf(k->fsid, sizeof k->fsid, "%08x%08x", a, b);
	k->dev_major = major(st.st_dev);
	k->dev_minor = minor(st.st_dev);

	unsigned entries, dirs, se, sd;
	bool more, smore;
	char sub[256];
	int sub_entries = -1;
	if (sample_dir(fd, &entries, &dirs, &more, sub, sizeof sub) && dirs >= 2 && sub[0]) {
		int sfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd >= 0) {
			if (sample_dir(sfd, &se, &sd, &smore, NULL, 0))
				sub_entries = (int)se;
			close(sfd);
		}
	}
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

char *profile_path(const struct profile_key *k)
{
	char *dir = profile_dir(), *p = NULL;
	if (!dir)
		return NULL;
	if (asprintf(&p, "%s/%s-%s-%u_%u.json", dir, k->fs, k->fsid, k->dev_major, k->dev_minor) < 0)
		p = NULL;
	free(dir);
	return p;
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

bool profile_read(const char *path, const struct profile_key *k, struct profile_file *pf)
{
	memset(pf, 0, sizeof(*pf));
	if (access(path, F_OK) != 0)
		return true;
	char err[200];
	struct json_value *v = json_parse_file(path, err, sizeof err);
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
	if (k && (strcmp(json_get_str(v, "fs", ""), k->fs) ||
		  strcmp(json_get_str(v, "fsid", ""), k->fsid))) {
		why = "written for another filesystem";
		goto out;
	}
	snprintf(pf->fs, sizeof pf->fs, "%s", json_get_str(v, "fs", "?"));
	snprintf(pf->fsid, sizeof pf->fsid, "%s", json_get_str(v, "fsid", "?"));
	snprintf(pf->dev, sizeof pf->dev, "%s", json_get_str(v, "dev", "?"));
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
		pf->e[pf->n].runs = (unsigned)json_get_num(c, "runs", 1);
		pf->e[pf->n].updated = (int64_t)json_get_num(c, "updated", 0);
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

bool profile_load(const struct profile_key *k, struct profile_entry *out)
{
	char *path = profile_path(k);
	if (!path)
		return false;
	struct profile_file pf;
	bool found = false;
	if (profile_read(path, k, &pf))
		for (int i = 0; i < pf.n; i++)
			if (!strcmp(pf.shape[i], k->shape)) {
				*out = pf.e[i];
				found = true;
			}
	free(path);
	return found;
}

/* Create the profile directory, but never $HOME nor the parent of
 * $XDG_CACHE_HOME: if that is gone (the user just deleted it), so is the
 * wish to keep a cache there. Creates at most "$HOME/.cache/adaptrm", or
 * "$XDG_CACHE_HOME/adaptrm" and $XDG_CACHE_HOME itself. */
static int make_profile_dir(const char *dir)
{
	const char *x = env_str(ENV_XDG_CACHE_HOME);
	bool xdg = x && x[0] == '/';
	char *d = xstrdup(dir);
	char *cut = strrchr(d, '/'); /* .../adaptrm */
	int r = -1;
	struct stat st;
	if (!cut)
		goto out;
	*cut = '\0';
	if (!xdg) {
		char *cache = strrchr(d, '/'); /* $HOME/.cache */
		if (!cache)
			goto out;
		*cache = '\0';
		if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
			goto out;
		*cache = '/';
		if (mkdir(d, 0700) < 0 && errno != EEXIST)
			goto out;
	} else if (stat(d, &st) < 0) {
		/* $XDG_CACHE_HOME itself may be created, if its parent exists */
		char *up = strrchr(d, '/');
		if (!up || up == d)
			goto out;
		*up = '\0';
		bool parent = stat(d, &st) == 0 && S_ISDIR(st.st_mode);
		*up = '/';
		if (!parent || (mkdir(d, 0700) < 0 && errno != EEXIST))
			goto out;
	} else if (!S_ISDIR(st.st_mode)) {
		goto out;
	}
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

bool profile_store(const struct profile_key *k, const struct profile_entry *e)
{
	char *dir = profile_dir(), *path = profile_path(k), *tmp = NULL;
	bool ok = false;
	if (!dir || !path || make_profile_dir(dir) < 0)
		goto out;
	struct profile_file pf;
	if (!profile_read(path, k, &pf))
		pf.n = 0; /* replace a corrupt or foreign file */
	int i;
	for (i = 0; i < pf.n && strcmp(pf.shape[i], k->shape); i++)
		;
	if (i == pf.n) {
		if (pf.n == PROFILE_MAX_CLASSES)
			i = 0;
		else
			pf.n++;
		snprintf(pf.shape[i], 16, "%s", k->shape);
	}
	pf.e[i] = *e;
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		tmp = NULL;
		goto out;
	}
	int fd = mkstemp(tmp);
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
	jw_string(&w, "fsid", k->fsid);
	char dev[32];
	snprintf(dev, sizeof dev, "%u:%u", k->dev_major, k->dev_minor);
	jw_string(&w, "dev", dev);
	jw_array(&w, "classes");
	for (int j = 0; j < pf.n; j++) {
		jw_object(&w, NULL);
		jw_string(&w, "shape", pf.shape[j]);
		jw_int(&w, "threads", pf.e[j].threads);
		jw_double(&w, "rate", pf.e[j].rate);
		jw_uint(&w, "runs", pf.e[j].runs);
		jw_int(&w, "updated", pf.e[j].updated);
		if (pf.e[j].share >= 0)
			jw_string(&w, "share", profile_switch_name(pf.e[j].share));
		if (pf.e[j].sort >= 0)
			jw_string(&w, "sort", profile_switch_name(pf.e[j].sort));
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
	free(dir);
	free(path);
	free(tmp);
	return ok;
}
