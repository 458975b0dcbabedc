// SPDX-License-Identifier: GPL-3.0-or-later
/* /proc/self/mountinfo, one line at a time: which mount a device number
 * belongs to, where it is mounted and what backs it. */
#ifndef ADAPTRM_LIB_MOUNTINFO_H
#define ADAPTRM_LIB_MOUNTINFO_H
#include <stdbool.h>

struct mount_entry {
	unsigned major, minor; /* st_dev of the files on it */
	char *target;	       /* mount point, "\040"-style escapes decoded */
	char *fstype;
	char *source; /* device or other source, escapes decoded */
};

/* Split LINE (modified in place) into E, whose strings point into LINE.
 * False if it is not a mountinfo line. */
bool mountinfo_parse(char *line, struct mount_entry *e);
/* The last mount of device MAJOR:MINOR listed (a later mount of the same
 * filesystem shadows the earlier), its strings malloc'd; false if none. */
bool mountinfo_find(unsigned major, unsigned minor, struct mount_entry *out);
void mountinfo_entry_free(struct mount_entry *e);

#endif
