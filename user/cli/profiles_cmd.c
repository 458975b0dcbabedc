// SPDX-License-Identifier: GPL-3.0-or-later
/* adaptrm --profiles: list what the controller has stored (see ctl/profile.h). */
#include "cli/profiles_cmd.h"
#include "ctl/profile.h"
#include "lib/msg.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FILES 1024

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* T as local "YYYY-MM-DD HH:MM" in BUF, or "?". */
static const char *date(int64_t t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;
	snprintf(buf, 32, "?");
	if (t && localtime_r(&tt, &tm))
		strftime(buf, 32, "%Y-%m-%d %H:%M", &tm);
	return buf;
}

int profiles_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	char *dir = profile_dir();
	if (!dir) {
		warn_errno(0, "no profile directory: neither XDG_CACHE_HOME nor HOME is set");
		return 1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT) {
			printf("no profiles stored in %s\n", dir);
			free(dir);
			return 0;
		}
		warn_errno(errno, "cannot read %s", dir);
		free(dir);
		return 1;
	}
	char *names[MAX_FILES];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < MAX_FILES) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] != '.' && l > 5 && !strcmp(de->d_name + l - 5, ".json"))
			names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	if (n == 0)
		printf("no profiles stored in %s\n", dir);
	else
		printf("profiles in %s\n%-8s %-16s %-9s %-11s %7s %5s %4s %12s %5s  %-16s  %s\n",
		       dir, "fs", "fsid", "dev", "shape", "threads", "share", "sort", "entries/s",
		       "runs", "updated", "used");
	for (int i = 0; i < n; i++) {
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, names[i]) >= 0) {
			struct profile_file pf;
			if (profile_read(path, NULL, &pf)) {
				for (int j = 0; j < pf.n; j++) {
					char when[32], used[32];
					/* a per-type file (tmpfs.json): every mount of it */
					printf("%-8s %-16s %-9s %-11s %7d %5s %4s %12.0f %5u  %-16s  %s\n",
					       pf.fs, pf.by_type ? "(by type)" : pf.fsid,
					       pf.by_type ? "-" : pf.dev, pf.shape[j],
					       pf.e[j].threads, profile_switch_name(pf.e[j].share),
					       profile_switch_name(pf.e[j].sort), pf.e[j].rate,
					       pf.e[j].runs, date(pf.e[j].updated, when),
					       date(pf.e[j].used, used));
				}
			}
			free(path);
		}
		free(names[i]);
	}
	free(dir);
	return 0;
}
