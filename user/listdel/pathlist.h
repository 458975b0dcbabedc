// SPDX-License-Identifier: GPL-3.0-or-later
/* Deleting a list of paths (`adaptrm --from-list FILE`, and the per-rank
 * library of the MPI purge): a streaming reader, the parent-directory hash
 * that deals paths to ranks and threads, a per-thread unlinker that walks
 * each path fd-relative without following symlinks, and the pass that
 * prunes the directories left empty.
 *
 * Bounded: memory grows to the longest path only, never with the number of
 * paths; each unlinker holds at most its fd budget of directory fds (the
 * current path's parent chain, reused by the next path that shares it). */
#ifndef ADAPTRM_PATHLIST_H
#define ADAPTRM_PATHLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- reader ------------------------------------------------------------ */

/* Records separated by NUL if the first 32 KiB hold a NUL, else by
 * newline; empty records are skipped; no length limit. */
struct pathlist_reader {
	int fd;
	bool own_fd;
	int sep;	   /* '\0', '\n', or -1 before the first block */
	char *buf;	   /* grows to the longest record + one block */
	size_t cap;	   /* bytes allocated */
	size_t start, end; /* unread bytes: buf[start, end) */
	size_t scan;	   /* buf[start, scan) holds no separator */
	bool eof;
};

/* Open FILE ("-": standard input). 0, or an errno. */
int pathlist_open(struct pathlist_reader *r, const char *file);
/* Read FD (not closed by pathlist_close); SEP -1 decides from the first
 * block, '\0' or '\n' forces it. */
void pathlist_init_fd(struct pathlist_reader *r, int fd, int sep);
/* The next record, NUL-terminated in the reader's buffer (valid until the
 * next call): 1; 0 at the end; -errno on a read error. */
int pathlist_next(struct pathlist_reader *r, char **path, size_t *len);
void pathlist_close(struct pathlist_reader *r);

/* The next component of P[0, LEN) from *POS, empty and "." ones skipped:
 * true with its START and CLEN; false at the end. */
static inline bool pathlist_component(const char *p, size_t len, size_t *pos, size_t *start,
				      size_t *clen)
{
	size_t i = *pos;
	for (;;) {
		while (i < len && p[i] == '/')
			i++;
		if (i >= len) {
			*pos = i;
			return false;
		}
		size_t s = i;
		while (i < len && p[i] != '/')
			i++;
		if (i - s == 1 && p[s] == '.')
			continue;
		*pos = i;
		*start = s;
		*clen = i - s;
		return true;
	}
}

/* --- dealing ----------------------------------------------------------- */

/* Length of PATH's parent part: the bytes before its last '/' once trailing
 * slashes are cut (0 for "f"; 1 for "/f", whose parent is "/"). */
size_t pathlist_parent_len(const char *path, size_t len);
/* A 64-bit hash of PATH's parent part: every path of one directory gets the
 * same one. Deal to ranks by hash % nranks, then to a rank's threads by
 * (hash / nranks) % nthreads, so that both levels use independent bits. */
uint64_t pathlist_parent_hash(const char *path, size_t len);

/* --- the directories that are never pruned ----------------------------- */

/* The deepest common ancestor of the parents noted, one per root (absolute
 * and relative paths): it and everything above it are kept. */
struct pathlist_keep {
	char *abs, *rel; /* components joined by '\0' */
	size_t abs_len, rel_len;
	unsigned abs_depth, rel_depth;
	bool abs_seen, rel_seen;
};
/* Note PARENT (a path's parent part, as pathlist_parent_len cuts it). */
void pathlist_keep_note(struct pathlist_keep *k, const char *parent, size_t len);
/* Fold OTHER's ancestors into K (one rank's into the global one). */
void pathlist_keep_merge(struct pathlist_keep *k, const struct pathlist_keep *other);
void pathlist_keep_free(struct pathlist_keep *k);

/* --- unlinking --------------------------------------------------------- */

struct pathdel_opts {
	bool force;	 /* -f: missing paths are not errors */
	bool verbose;	 /* -v: "removed 'p'", "removed directory 'p'" */
	bool prune;	 /* listed directories are left to the prune pass */
	unsigned budget; /* directory fds the chain may hold (>= 1) */
	/* --max-ops: unlinks and rmdirs start at least INTERVAL_NS apart over
	 * every unlinker sharing *NEXT, the next start (0: unpaced) */
	uint64_t interval_ns;
	_Atomic uint64_t *next;
};

struct pathdel_counts {
	uint64_t files;	      /* unlinked */
	uint64_t dirs;	      /* pruned (rmdir) */
	uint64_t listed_dirs; /* listed directories left to the prune pass */
	uint64_t errors;      /* each said on stderr */
};

struct pathdel_level {
	size_t off, len; /* the component's name in names */
	int fd;		 /* -1 when closed for the budget */
};

struct prune_spool;

/* One thread's unlinker: its parent chain, its buffers, its counts. */
struct pathdel {
	struct pathdel_opts o;
	struct pathdel_counts n;
	struct prune_spool *spool; /* listed directories go here (may be NULL) */
	/* the chain: the open directories of the current parent, from the root */
	struct pathdel_level *lv;
	size_t depth, lv_cap, lo; /* levels below lo are closed */
	bool abs;		  /* the chain starts at "/" (else at the cwd) */
	int rootfd;		  /* "/", opened on first use */
	char *names;		  /* the chain's names, each NUL-terminated */
	size_t names_cap;
	/* the path being worked on, split in place; its components */
	char *buf;
	size_t buf_cap;
	struct pathdel_level *comp;
	size_t ncomp, comp_cap;
	void *msg; /* a struct strbuf for -v lines, reused */
};

/* The fd budget of one of NTHREADS unlinkers: RLIMIT_NOFILE's soft limit,
 * less a reserve, shared out, at most 64. */
unsigned pathdel_fd_budget(unsigned nthreads);
void pathdel_init(struct pathdel *d, const struct pathdel_opts *o, struct prune_spool *spool);
void pathdel_destroy(struct pathdel *d);
/* Unlink PATH (LEN bytes, need not be NUL-terminated). 0, or the errno of
 * the failure, which has been counted and said (a missing path under -f:
 * counted in neither; a listed directory under prune: EISDIR, spooled). */
int pathdel_unlink(struct pathdel *d, const char *path, size_t len);

/* --- several threads -------------------------------------------------- */

/* NTHREADS unlinkers, each with its own bounded queue: a path goes to
 * thread (pathlist_parent_hash / HASH_DIV) % NTHREADS (HASH_DIV: the ranks
 * dealt before, 1 on one machine), so one directory stays with one thread
 * and its chain. A full queue blocks the caller. One thread: inline, no
 * queue. */
/* Unlinker threads: ASKED (--threads=N) if set, else one per CPU up to
 * PATHDEL_THREADS_MAX: each is CPU-bound on a local filesystem, and past
 * that the one reader is the limit. */
#define PATHDEL_THREADS_MAX 8
unsigned pathdel_threads(int asked);

struct pathdel_pool;
struct pathdel_pool *pathdel_pool_new(unsigned nthreads, uint64_t hash_div,
				      const struct pathdel_opts *o, struct prune_spool *spool);
void pathdel_pool_add(struct pathdel_pool *p, const char *path, size_t len);
/* Wait until every queued path is done (the phase boundary), add the
 * threads' counts to *N, and free the pool. */
void pathdel_pool_finish(struct pathdel_pool *p, struct pathdel_counts *n);

/* --- pruning ----------------------------------------------------------- */

/* Where spools go: $TMPDIR if it is an absolute path, else /tmp. */
const char *prune_spool_dir_name(void);
/* An unlinked temporary file in TMPDIR (NULL: prune_spool_dir_name()) of
 * the parents to revisit. Returns NULL and sets *err if it cannot be made. */
struct prune_spool *prune_spool_new(const char *tmpdir, int *err);
void prune_spool_free(struct prune_spool *s);
/* A listed path's parent (the reader, one thread): consecutive duplicates
 * are skipped; the spool's own keep notes it. 0 or an errno. */
int prune_spool_parent(struct prune_spool *s, const char *parent, size_t len);
/* A listed directory (any thread). 0 or an errno. */
int prune_spool_dir(struct prune_spool *s, const char *path, size_t len);
/* The spool's own keep (what prune_spool_parent noted). */
struct pathlist_keep *prune_spool_keep(struct prune_spool *s);
/* The spool's fd, flushed and rewound (for the replay), or -errno. */
int prune_spool_rewind(struct prune_spool *s);
/* After every unlink is done (all threads: the phase boundary): replay the
 * spool with D's chain as the stack of the current path's components; each
 * component that pops off is tried with rmdir, unless KEEP (NULL: the
 * spool's own; the MPI side passes the merged one) keeps it. Correct for
 * any order of the list: a directory is retried each time it pops. A
 * directory that is not empty stays, silently. 0, or the errno of a failed
 * spool read. */
int prune_spool_replay(struct prune_spool *s, struct pathdel *d, const struct pathlist_keep *keep);

#endif
