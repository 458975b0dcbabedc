// SPDX-License-Identifier: GPL-3.0-or-later
/* The record of one held entry, so that a killed deleter, a crash or a reboot
 * loses nothing. It is the entry's own name in the holding place (uid, time,
 * device, inode, size, a nonce and the original path escaped), so that the
 * one rename that holds the entry also records it; a path too long for a
 * name goes to a side file that only --pending reads. Older calls wrote a
 * text file NAME.rec next to the entry instead: both are read. The deleter
 * touches only what a valid record names, and only when its device and
 * inode still match. */
#ifndef ADAPTRM_HOLD_RECORD_H
#define ADAPTRM_HOLD_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct strbuf;

#define HELD_NAME_MAX 256 /* NAME_MAX and its NUL */
#define HELD_RECORD_SUFFIX ".rec"
#define HELD_NAME_PREFIX "h2~"
#define HELD_SIDE_SUFFIX ".path"

struct held_record {
	char name[HELD_NAME_MAX]; /* the entry's name inside the place */
	char *path;		  /* where it was (malloc'd), for --pending */
	uid_t uid;		  /* who held it */
	int64_t time;		  /* when, seconds since the epoch */
	uint64_t dev, ino;	  /* the entry as lstat'ed before the rename */
	uint64_t size;		  /* bytes allocated at the top, when known */
	bool in_name;		  /* recorded in the entry's name (else NAME.rec) */
	bool side;		  /* in_name, with the path in NAME.path */
};

/* A name the place may hold: letters, digits and "-_.~+%", not starting
 * with '.', shorter than HELD_NAME_MAX. */
bool held_name_ok(const char *name);
/* The record as text, appended to SB. */
void held_record_format(const struct held_record *r, struct strbuf *sb);
/* Parse TEXT of LEN bytes into R (R->path malloc'd). False, with R left
 * without a path, for anything that is not a whole, valid record. */
bool held_record_parse(const char *text, size_t len, struct held_record *r);
void held_record_free(struct held_record *r);

/* R's entry name into R->name, from its fields, NONCE (letters, digits,
 * '-' and '.') and its path; R->side is set when the path does not fit (it
 * then goes to held_side_write). */
void held_name_format(struct held_record *r, const char *nonce);
/* Parse an entry name written by held_name_format into R (R->path malloc'd,
 * NULL when it is in a side file). False for any other name. */
bool held_name_parse(const char *name, struct held_record *r);
/* Write R's path to its side file (no sync: only --pending reads it, and
 * the entry is deleted without it). 0 or an errno. */
int held_side_write(int placefd, const struct held_record *r);
/* The entry or record file FILE in the place as a record: 0 and R filled
 * (the path from the side file where there is one), ENOENT for a name that
 * is no record, or held_record_read's errors. */
int held_entry_read(int placefd, const char *file, struct held_record *r);
/* FILE is a record's name (a NAME.rec file or a recording entry name). */
bool held_is_record(const char *file);
/* A side file's entry name (FILE without HELD_SIDE_SUFFIX) into NAME;
 * false if FILE is no side file. */
bool held_side_entry(const char *file, char name[HELD_NAME_MAX]);

/* Write R as NAME.rec in the place PLACEFD: a temporary file created with
 * O_EXCL, synced, renamed into place. 0 or an errno. The earlier format:
 * --background no longer writes it, and the tests write it to check that
 * it is still read. */
int held_record_write(int placefd, const struct held_record *r);
/* Read and parse the record file FILE in PLACEFD (never following a
 * symlink): 0, an errno, or EINVAL for a corrupted record. */
int held_record_read(int placefd, const char *file, struct held_record *r);
/* Remove R's record file (or side file). */
void held_record_remove(int placefd, const struct held_record *r);

#endif
