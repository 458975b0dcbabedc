/* What the controller learned, per filesystem and tree shape, kept across
 * runs under $XDG_CACHE_HOME/adaptrm/ (default ~/.cache/adaptrm/): one JSON
 * file per filesystem (type + fsid + device), one entry per shape class.
 * Written atomically (temp file + rename); a corrupt or foreign file is
 * ignored with one warning. */
#ifndef ADAPTRM_PROFILE_H
#define ADAPTRM_PROFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct profile_key {
	char fs[24]; /* "xfs", "tmpfs", "fuse", ... */
	uint64_t f_type;
	char fsid[20];		       /* fstatfs f_fsid, hex */
	unsigned dev_major, dev_minor; /* st_dev of the tree's top */
	char shape[16]; /* "flat", "chain", "tree-wide", "tree-small", "small", "empty" */
};

struct profile_entry {
	int threads;	 /* settled worker count */
	double rate;	 /* entries/s measured there */
	unsigned runs;	 /* deletes that taught it */
	int64_t updated; /* unix time */
	int share;	 /* sharing big directories, learned where the
				 * filesystem type says nothing: 1 on, 0 off,
				 * -1 not tried ("share" absent from the file) */
	int sort;	 /* inode order in big directories, the same way
				 * ("sort": "on"/"off", or absent) */
};

/* Identify the filesystem and classify the shape of tree NAME in DIRFD
 * (reads at most two directory buffers). False if it cannot be opened. */
bool profile_key_for(int dirfd, const char *name, struct profile_key *k);
/* The shape class from the first buffer of a directory (pure). */
const char *profile_shape_class(unsigned entries, unsigned dirs, bool more, int sub_entries);

/* The profile directory (malloc'ed), or NULL when neither XDG_CACHE_HOME nor
 * HOME is set. */
char *profile_dir(void);
bool profile_load(const struct profile_key *k, struct profile_entry *out);
bool profile_store(const struct profile_key *k, const struct profile_entry *e);
/* Whether the profile directory is DEV/INO or lies below it: a tree being
 * deleted that holds the cache must not get it back (rm -rf ~). */
bool profile_dir_inside(dev_t dev, ino_t ino);
/* Path of the file holding K (malloc'ed), or NULL. */
char *profile_path(const struct profile_key *k);

/* One profile file: its filesystem and an entry per shape class. */
#define PROFILE_MAX_CLASSES 16
struct profile_file {
	char fs[24], fsid[20], dev[24];
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
