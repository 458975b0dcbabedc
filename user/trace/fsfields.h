// SPDX-License-Identifier: GPL-3.0-or-later
/* The filesystem and block figures of a trace (ext4, jbd2, xfs, btrfs and
 * block I/O) in one table: where each is in the probes' counters, its name
 * in the JSON's "fs" object, its row in --compare, and the words of the
 * text report. The report's text and JSON and --compare all read the table,
 * so a figure is added or renamed in one place. */
#ifndef ADAPTRM_TRACE_FSFIELDS_H
#define ADAPTRM_TRACE_FSFIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "probes/probes.h"

struct json_value;
struct json_writer;

enum trace_fs_unit {
	TRACE_FS_COUNT,	  /* a number of events or blocks */
	TRACE_FS_NS,	  /* nanoseconds */
	TRACE_FS_BYTES,	  /* bytes, shown in MiB */
	TRACE_FS_JIFFIES, /* jbd2 jiffies summed over the commits, shown in ms per commit */
	TRACE_FS_HZ,	  /* the kernel's HZ, which the jiffies count in */
};

/* The member of a histogram a figure is, or TRACE_FS_VALUE for a counter. */
enum trace_fs_stat {
	TRACE_FS_VALUE,
	TRACE_FS_HCOUNT,
	TRACE_FS_HTOTAL,
	TRACE_FS_HMEAN,
	TRACE_FS_HP50,
	TRACE_FS_HP99,
};

struct trace_fs_field {
	const char *group; /* the object under "fs": ext4, jbd2, xfs, btrfs, block, other_block */
	const char *key;   /* its member: a counter or a histogram object */
	enum trace_fs_stat stat;
	enum trace_fs_unit unit;
	bool dev;	   /* a device's counter (probe_dev_stat), else the threads' (probe_misc) */
	size_t off;	   /* where the counter or histogram is in that struct */
	const char *label; /* its --compare row, NULL for none */
	double scale;	   /* --compare shows the value divided by this */
	const char *fmt;   /* and in this format */
};

/* The figures in the JSON's order; the last has a NULL group. */
extern const struct trace_fs_field trace_fs_fields[];

/* The text report's sentences. */
enum trace_fs_line {
	TRACE_FS_LINE_EXT4,	     /* the traced threads' ext4 unlinks and freed blocks */
	TRACE_FS_LINE_XFS,	     /* their xfs log-grant waits and inode-GC throttles */
	TRACE_FS_LINE_BTRFS,	     /* their btrfs tree-lock waits and reservation tickets */
	TRACE_FS_LINE_JBD2,	     /* a device's journal commits */
	TRACE_FS_LINE_BLOCK,	     /* a device's block requests */
	TRACE_FS_LINE_EXT4_DISCARDS, /* a device's ext4 discards */
	TRACE_FS_LINE_OTHER_BLOCK,   /* a device's block requests that are not the delete's */
};

/* Print sentence LINE to F after INDENT, its figures from M (the traced
 * threads') or D (a device's). */
void trace_fs_text(FILE *f, const char *indent, enum trace_fs_line line, const struct probe_misc *m,
		   const struct probe_dev_stat *d);
/* Write GROUP's object, its figures from M and D (NULL when GROUP has no
 * figures of that kind). */
void trace_fs_json(struct json_writer *w, const char *group, const struct probe_misc *m,
		   const struct probe_dev_stat *d);
/* Figure X as --compare shows it, from the saved JSON's "fs" object FS. */
double trace_fs_from_json(const struct json_value *fs, const struct trace_fs_field *x);

#endif
