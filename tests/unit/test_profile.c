/* Stored controller profiles: shape classes, round trip, atomic rewrite,
 * corrupt and foreign files. Each test works in its own XDG_CACHE_HOME. */
#include "ctl/profile.h"
#include "lib/msg.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char home[64];

static void setup(void)
{
	msg_init("adaptrm");
	snprintf(home, sizeof home, "/tmp/adaptrm-profile-test.XXXXXX");
	cr_assert(mkdtemp(home));
	setenv("XDG_CACHE_HOME", home, 1);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	cr_expect_eq(system(cmd), 0);
}

static struct profile_key key(const char *shape)
{
	struct profile_key k = { .f_type = 0x58465342, .dev_major = 7, .dev_minor = 3 };
	strcpy(k.fs, "xfs");
	strcpy(k.fsid, "00ab00cd00ef0012");
	strcpy(k.shape, shape);
	return k;
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(profile, shape_classes)
{
	cr_expect_str_eq(profile_shape_class(0, 0, false, -1), "empty");
	cr_expect_str_eq(profile_shape_class(1, 1, false, -1), "chain");
	cr_expect_str_eq(profile_shape_class(2, 1, false, -1), "chain");
	cr_expect_str_eq(profile_shape_class(900, 0, true, -1), "flat");
	cr_expect_str_eq(profile_shape_class(300, 3, false, -1), "flat");
	cr_expect_str_eq(profile_shape_class(200, 200, false, 1000), "tree-wide");
	cr_expect_str_eq(profile_shape_class(900, 900, true, 10), "tree-small");
	cr_expect_str_eq(profile_shape_class(5, 0, false, -1), "small");
}

Test(profile, dir_follows_xdg_then_home, .init = setup, .fini = teardown)
{
	char *d = profile_dir();
	char want[128];
	snprintf(want, sizeof want, "%s/adaptrm", home);
	cr_expect_str_eq(d, want);
	free(d);
	setenv("XDG_CACHE_HOME", "relative/ignored", 1);
	setenv("HOME", "/home/someone", 1);
	d = profile_dir();
	cr_expect_str_eq(d, "/home/someone/.cache/adaptrm");
	free(d);
}

Test(profile, round_trip_keeps_other_classes, .init = setup, .fini = teardown)
{
	struct profile_key flat = key("flat"), tree = key("tree-wide");
	struct profile_entry e = { .threads = 1, .rate = 61000, .runs = 1, .updated = 1700000000 },
			     got;
	cr_expect_not(profile_load(&flat, &got), "nothing stored yet");
	cr_assert(profile_store(&flat, &e));
	struct profile_entry t = { .threads = 2, .rate = 90000, .runs = 4, .updated = 1700000100 };
	cr_assert(profile_store(&tree, &t));
	cr_assert(profile_load(&flat, &got));
	cr_expect_eq(got.threads, 1);
	cr_expect_eq(got.runs, 1);
	cr_expect_eq((long)got.rate, 61000);
	cr_assert(profile_load(&tree, &got));
	cr_expect_eq(got.threads, 2);
	cr_expect_eq(got.runs, 4);
	e.threads = 3;
	cr_assert(profile_store(&flat, &e));
	cr_assert(profile_load(&flat, &got));
	cr_expect_eq(got.threads, 3);
	cr_assert(profile_load(&tree, &got), "updating one class keeps the other");
	/* one file per filesystem, no temporary left behind */
	char dir[128];
	snprintf(dir, sizeof dir, "%s/adaptrm", home);
	cr_expect_eq(count_files(dir), 1);
	struct profile_key other = key("flat");
	strcpy(other.fsid, "1111111111111111");
	cr_expect_not(profile_load(&other, &got), "another filesystem has its own file");
}

/* The trials' answers (ctl_trial.c), sharing and inode order: on, off, or
 * absent (not tried), each on its own, and a file written before they
 * existed reads as "not tried". */
Test(profile, sharing_answer_round_trip, .init = setup, .fini = teardown)
{
	struct profile_key flat = key("flat"), tree = key("tree-wide"), small = key("small");
	struct profile_entry on = { .threads = 2,
				    .rate = 1,
				    .runs = 1,
				    .updated = 1,
				    .share = 1,
				    .sort = 0 };
	struct profile_entry off = { .threads = 1,
				     .rate = 1,
				     .runs = 1,
				     .updated = 1,
				     .share = 0,
				     .sort = 1 };
	struct profile_entry untried = { .threads = 4,
					 .rate = 1,
					 .runs = 1,
					 .updated = 1,
					 .share = -1,
					 .sort = -1 },
			     got;
	cr_assert(profile_store(&flat, &on));
	cr_assert(profile_store(&tree, &off));
	cr_assert(profile_store(&small, &untried));
	cr_assert(profile_load(&flat, &got));
	cr_expect_eq(got.share, 1);
	cr_expect_eq(got.sort, 0);
	cr_assert(profile_load(&tree, &got));
	cr_expect_eq(got.share, 0);
	cr_expect_eq(got.sort, 1);
	cr_assert(profile_load(&small, &got));
	cr_expect_eq(got.share, -1);
	cr_expect_eq(got.sort, -1);
	char *path = profile_path(&small);
	cr_assert(path);
	FILE *f = fopen(path, "r");
	cr_assert(f);
	char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	cr_expect(strstr(buf, "\"share\": \"on\""), "%s", buf);
	cr_expect(strstr(buf, "\"share\": \"off\""), "%s", buf);
	cr_expect_eq(strstr(strstr(buf, "\"small\""), "share"), NULL, "untried writes no share: %s",
		     buf);
	cr_expect_eq(strstr(strstr(buf, "\"small\""), "sort"), NULL, "untried writes no sort: %s",
		     buf);
	cr_expect(strstr(buf, "\"sort\": \"on\""), "%s", buf);
	/* an older file, without "share" */
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f,
		"{\"format\": \"%s\", \"fs\": \"%s\", \"fsid\": \"%s\", \"dev\": \"8:1\", "
		"\"classes\": [{\"shape\": \"flat\", \"threads\": 3, \"rate\": 5, \"runs\": 2, \"updated\": 9}]}\n",
		"adaptrm-profile-1", flat.fs, flat.fsid);
	fclose(f);
	free(path);
	cr_assert(profile_load(&flat, &got));
	cr_expect_eq(got.threads, 3);
	cr_expect_eq(got.share, -1);
	cr_expect_eq(got.sort, -1);
}

Test(profile, corrupt_and_foreign_files_are_ignored, .init = setup, .fini = teardown)
{
	struct profile_key k = key("flat");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 }, got;
	cr_assert(profile_store(&k, &e));
	char *path = profile_path(&k);
	FILE *f = fopen(path, "w");
	fputs("{\"format\": \"adaptrm-profile-1\", \"classes\": [", f);
	fclose(f);
	cr_expect_not(profile_load(&k, &got), "corrupt file used");
	/* a well-formed file written for another filesystem */
	f = fopen(path, "w");
	fputs("{\"format\": \"adaptrm-profile-1\", \"fs\": \"xfs\", \"fsid\": \"ffff\","
	      " \"classes\": [{\"shape\": \"flat\", \"threads\": 9}]}",
	      f);
	fclose(f);
	cr_expect_not(profile_load(&k, &got), "foreign file used");
	/* out-of-range values */
	f = fopen(path, "w");
	fputs("{\"format\": \"adaptrm-profile-1\", \"fs\": \"xfs\", \"fsid\": \"00ab00cd00ef0012\","
	      " \"classes\": [{\"shape\": \"flat\", \"threads\": -4}]}",
	      f);
	fclose(f);
	cr_expect_not(profile_load(&k, &got), "malformed entry used");
	/* storing replaces the bad file with a good one */
	cr_assert(profile_store(&k, &e));
	cr_assert(profile_load(&k, &got));
	cr_expect_eq(got.threads, 2);
	free(path);
}

Test(profile, key_for_a_real_directory, .init = setup, .fini = teardown)
{
	char d[160];
	snprintf(d, sizeof d, "%s/tree", home);
	cr_assert_eq(mkdir(d, 0700), 0);
	struct profile_key k;
	cr_assert(profile_key_for(AT_FDCWD, d, &k));
	cr_expect_str_eq(k.shape, "empty");
	cr_expect_eq(strlen(k.fsid), 16);
	char sub[200];
	snprintf(sub, sizeof sub, "%s/a", d);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert(profile_key_for(AT_FDCWD, d, &k));
	cr_expect_str_eq(k.shape, "chain");
	snprintf(sub, sizeof sub, "%s/link", home);
	cr_assert_eq(symlink(d, sub), 0);
	cr_expect_not(profile_key_for(AT_FDCWD, sub, &k), "followed a symlink");
}

Test(profile, creates_the_cache_but_not_its_base, .init = setup, .fini = teardown)
{
	struct profile_key k = key("flat");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 };
	char x[160];
	/* $XDG_CACHE_HOME itself may be created when its parent exists */
	snprintf(x, sizeof x, "%s/new", home);
	setenv("XDG_CACHE_HOME", x, 1);
	cr_expect(profile_store(&k, &e));
	/* ...but not a missing parent (it may just have been deleted) */
	snprintf(x, sizeof x, "%s/gone/cache", home);
	setenv("XDG_CACHE_HOME", x, 1);
	cr_expect_not(profile_store(&k, &e));
	cr_expect_neq(access(x, F_OK), 0);
	/* $HOME must exist; .cache below it may be created */
	unsetenv("XDG_CACHE_HOME");
	snprintf(x, sizeof x, "%s/home", home);
	setenv("HOME", x, 1);
	cr_expect_not(profile_store(&k, &e));
	cr_expect_neq(access(x, F_OK), 0, "recreated $HOME");
	cr_assert_eq(mkdir(x, 0700), 0);
	cr_expect(profile_store(&k, &e));
}
