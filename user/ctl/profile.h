// SPDX-License-Identifier: GPL-3.0-or-later
/* What the controller learned, per filesystem and tree shape, kept across
 * runs under $XDG_CACHE_HOME/adaptrm/ (default ~/.cache/adaptrm/): one JSON
 * file per filesystem (type + fsid + device, FS-FSID-MAJOR_MINOR.json), or
 * per type where the id does not survive a remount (tmpfs, ramfs, overlay,
 * FUSE: TYPE.json), one entry per shape class. Written atomically (temp file
 * + rename); a corrupt or foreign file is ignored with one warning.
 *
 * Bounded: an entry neither loaded nor stored for PROFILE_EXPIRE_DAYS is
 * dropped when its file is next written; once per run, after a store, one
 * readdir + fstatat pass (no parsing) removes our files older than that,
 * per-id files of a type now kept per type, and the least recently used
 * beyond PROFILE_MAX_FILES. Only regular files named as we name them are
 * ever removed. Start-up reads one file. */
#ifndef ADAPTRM_PROFILE_H
#define ADAPTRM_PROFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PROFILE_EXPIRE_DAYS 30
#define PROFILE_MAX_FILES 256

struct profile_key {
	char fs[24]; /* "xfs", "tmpfs", "fuse", ... */
	uint64_t f_type;
	bool by_type;		       /* kept per type (profile_fs_by_type) */
	char fsid[20];		       /* fstatfs f_fsid, hex */
	unsigned dev_major, dev_minor; /* st_dev of the tree's top */
	char shape[16]; /* "flat", "chain", "tree-wide", "tree-small", "small", "empty" */
};

struct profile_entry {
	int threads;	 /* settled worker count */
	double rate;	 /* entries/s measured there */
	unsigned runs;	 /* deletes that taught it */
	int64_t updated; /* unix time it was last learned (stored) */
	int64_t used;	 /* unix time it was last loaded or stored (set by
			  * profile_store; "updated" in files without it) */
	int share;	 /* sharing big directories, learned where the
				 * filesystem type says nothing: 1 on, 0 off,
				 * -1 not tried ("share" absent from the file) */
	int sort;	 /* inode order in big directories, the same way
				 * ("sort": "on"/"off", or absent) */
};

/* Identify the filesystem and classify the shape of tree NAME in DIRFD
 * (reads a few directory buffers: through up to four directories that
 * only wrap one subdirectory, then the top and its first subdirectory).
 * False if it cannot be opened. *COLD (when not NULL): these reads went to
 * the disk (lib/taskio.h), the first sign of a cold cache; never on a
 * filesystem in memory. */
bool profile_key_for(int dirfd, const char *name, struct profile_key *k, bool *cold);
/* Whether filesystems of type F_TYPE are kept per type rather than per id:
 * those whose fsid or device does not survive a remount (tmpfs, ramfs,
 * overlay, FUSE). The one place that decides. */
bool profile_fs_by_type(uint64_t f_type);
/* Fill K's filesystem part (name, by_type, fsid, device); profile_key_for's
 * own, exposed for tests. */
void profile_key_fs(struct profile_key *k, uint64_t f_type, const char *fsid, unsigned dev_major,
		    unsigned dev_minor);
/* The shape class from the first buffer of a directory (pure). */
const char *profile_shape_class(unsigned entries, unsigned dirs, bool more, int sub_entries);

/* The profile directory (malloc'ed), or NULL when neither XDG_CACHE_HOME nor
 * HOME is set. */
char *profile_dir(void);
/* The entry for K's shape. Reads one file (a type-kept filesystem whose
 * TYPE.json is missing falls back to its per-id file of an older version).
 * A found entry last used more than a week ago is written back with "used"
 * now; else a file not touched for an hour gets its mtime set (the pruning's
 * LRU order). */
bool profile_load(const struct profile_key *k, struct profile_entry *out);
/* Store E for K's shape (its "used" is now), dropping the file's expired
 * entries; then, once per process, prune the directory. */
bool profile_store(const struct profile_key *k, const struct profile_entry *e);
/* The pruning pass on DIR at time NOW, sparing the file KEEP (a name, or
 * NULL); returns how many files it removed, -1 if DIR cannot be opened.
 * profile_store runs it; exposed for tests. */
int profile_prune(const char *dir, const char *keep, int64_t now);
/* Whether NAME is a file name profile.c writes (FS-FSID-MAJOR_MINOR.json or
 * TYPE.json for a type kept per type). */
bool profile_file_name(const char *name);
/* Whether the profile directory is DEV/INO or lies below it: a tree being
 * deleted that holds the cache must not get it back (rm -rf ~). */
bool profile_dir_inside(dev_t dev, ino_t ino);
/* Path of the file holding K (malloc'ed), or NULL. */
char *profile_path(const struct profile_key *k);

/* One profile file: its filesystem and an entry per shape class. */
#define PROFILE_MAX_CLASSES 16
struct profile_file {
	char fs[24], fsid[20], dev[24]; /* fsid, dev "-" in a per-type file */
	bool by_type;			/* no "fsid" in it */
	bool present;			/* the file exists */
	int64_t mtime;
	int n;
	char shape[PROFILE_MAX_CLASSES][16];
	struct profile_entry e[PROFILE_MAX_CLASSES];
};
/* Parse PATH; false (with a warning once) if it is corrupt or, when K is
 * given, belongs to another filesystem. A missing file is not an error:
 * empty result. */
bool profile_read(const char *path, const struct profile_key *k, struct profile_file *pf);
/* A learned switch as stored: "on", "off", "-" (not tried). */
const char *profile_switch_name(int v);

#endif
