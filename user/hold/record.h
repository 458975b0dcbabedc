/* The record of one held entry: a small text file next to it in the holding
 * place, so that a killed deleter, a crash or a reboot loses nothing. The
 * deleter touches only what a valid record names, and only when its device
 * and inode still match. */
#ifndef ADAPTRM_HOLD_RECORD_H
#define ADAPTRM_HOLD_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct strbuf;

#define HELD_NAME_MAX 64
#define HELD_RECORD_SUFFIX ".rec"

struct held_record {
	char name[HELD_NAME_MAX]; /* the entry's name inside the place */
	char *path;		  /* where it was (malloc'd), for --pending */
	uid_t uid;		  /* who held it */
	int64_t time;		  /* when, seconds since the epoch */
	uint64_t dev, ino;	  /* the entry as lstat'ed before the rename */
	uint64_t size;		  /* bytes allocated at the top, when known */
};

/* A name the place may hold: letters, digits, '-', '_' and '.', not
 * starting with '.', shorter than HELD_NAME_MAX. */
bool held_name_ok(const char *name);
/* The record as text, appended to SB. */
void held_record_format(const struct held_record *r, struct strbuf *sb);
/* Parse TEXT of LEN bytes into R (R->path malloc'd). False, with R left
 * without a path, for anything that is not a whole, valid record. */
bool held_record_parse(const char *text, size_t len, struct held_record *r);
void held_record_free(struct held_record *r);

/* Write R as NAME.rec in the place PLACEFD: a temporary file created with
 * O_EXCL, synced, renamed into place. 0 or an errno. */
int held_record_write(int placefd, const struct held_record *r);
/* Read and parse the record file FILE in PLACEFD (never following a
 * symlink): 0, an errno, or EINVAL for a corrupted record. */
int held_record_read(int placefd, const char *file, struct held_record *r);
/* Remove R's record file. */
void held_record_remove(int placefd, const struct held_record *r);

#endif
