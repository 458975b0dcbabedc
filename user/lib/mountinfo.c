// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/mountinfo.h"
#include "lib/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "\040" and the like (space, tab, newline, backslash), decoded in place. */
static void unescape_octal(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* "id parent major:minor root target options [optional...] - fstype source superoptions" */
bool mountinfo_parse(char *line, struct mount_entry *e)
{
	char *save = NULL, *f[5];
	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " \n", &save)))
			return false;
	if (sscanf(f[2], "%u:%u", &e->major, &e->minor) != 2)
		return false;
	char *tok;
	while ((tok = strtok_r(NULL, " \n", &save)) && strcmp(tok, "-") != 0)
		; /* mount options and optional fields */
	char *fstype = tok ? strtok_r(NULL, " \n", &save) : NULL;
	char *source = fstype ? strtok_r(NULL, " \n", &save) : NULL;
	if (!source)
		return false;
	unescape_octal(f[4]);
	unescape_octal(source);
	e->target = f[4];
	e->fstype = fstype;
	e->source = source;
	return true;
}

bool mountinfo_find(unsigned major, unsigned minor, struct mount_entry *out)
{
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	if (!fp)
		return false;
	char *line = NULL;
	size_t cap = 0;
	struct mount_entry last = { .major = major, .minor = minor };
	while (getline(&line, &cap, fp) > 0) {
		struct mount_entry e;
		if (!mountinfo_parse(line, &e) || e.major != major || e.minor != minor)
			continue;
		free(last.target);
		free(last.fstype);
		free(last.source);
		last.target = xstrdup(e.target);
		last.fstype = xstrdup(e.fstype);
		last.source = xstrdup(e.source);
	}
	free(line);
	fclose(fp);
	*out = last;
	return last.target != NULL;
}

void mountinfo_entry_free(struct mount_entry *e)
{
	free(e->target);
	free(e->fstype);
	free(e->source);
	*e = (struct mount_entry){ 0 };
}
