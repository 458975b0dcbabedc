// SPDX-License-Identifier: GPL-3.0-or-later
/* Stored controller profiles: shape classes, round trip, atomic rewrite,
 * corrupt and foreign files; the bounds (per-type keys for filesystems made
 * up at mount time, expiry, the file cap, nothing not ours touched). Each test works in its own XDG_CACHE_HOME. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "ctl/profile.h"
#include "lib/msg.h"

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
	cr_assert(profile_key_for(AT_FDCWD, d, &k, NULL));
	cr_expect_str_eq(k.shape, "empty");
	cr_expect_eq(strlen(k.fsid), 16);
	char sub[200];
	snprintf(sub, sizeof sub, "%s/a", d);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert(profile_key_for(AT_FDCWD, d, &k, NULL));
	cr_expect_str_eq(k.shape, "chain");
	snprintf(sub, sizeof sub, "%s/link", home);
	cr_assert_eq(symlink(d, sub), 0);
	cr_expect_not(profile_key_for(AT_FDCWD, sub, &k, NULL), "followed a symlink");
}

/* mkdir of HOME/REL. */
static void mkdir_in(const char *rel)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", home, rel);
	cr_assert_eq(mkdir(p, 0700), 0, "mkdir %s", p);
}

/* A project directory that only wraps its tree (a node_modules with a lock
 * file beside it) is classed by the tree inside, not as a chain; a real
 * chain, one directory in another all the way down, stays a chain. */
Test(profile, key_for_looks_through_a_wrapper, .init = setup, .fini = teardown)
{
	mkdir_in("proj");
	mkdir_in("proj/node_modules");
	char p[256];
	snprintf(p, sizeof p, "%s/proj/package-lock.json", home);
	int fd = open(p, O_CREAT | O_WRONLY, 0600);
	cr_assert(fd >= 0);
	close(fd);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "proj/node_modules/pkg%d", i);
		mkdir_in(p);
	}
	struct profile_key k;
	snprintf(p, sizeof p, "%s/proj", home);
	cr_assert(profile_key_for(AT_FDCWD, p, &k, NULL));
	cr_expect_str_eq(k.shape, "tree-small");

	mkdir_in("chain");
	char rel[128] = "chain";
	for (int i = 0; i < 8; i++) {
		strcat(rel, "/d");
		mkdir_in(rel);
	}
	snprintf(p, sizeof p, "%s/chain", home);
	cr_assert(profile_key_for(AT_FDCWD, p, &k, NULL));
	cr_expect_str_eq(k.shape, "chain");
}

Test(profile, creates_its_directory_but_never_the_cache_home, .init = setup, .fini = teardown)
{
	struct profile_key k = key("flat");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 };
	char x[160], p[200];
	/* a missing $XDG_CACHE_HOME is not created, even where its parent exists */
	snprintf(x, sizeof x, "%s/new", home);
	setenv("XDG_CACHE_HOME", x, 1);
	cr_expect_not(profile_store(&k, &e));
	cr_expect_neq(access(x, F_OK), 0, "created $XDG_CACHE_HOME");
	/* ...nor a missing parent (it may just have been deleted) */
	snprintf(x, sizeof x, "%s/gone/cache", home);
	setenv("XDG_CACHE_HOME", x, 1);
	cr_expect_not(profile_store(&k, &e));
	cr_expect_neq(access(x, F_OK), 0);
	/* adaptrm/ inside an existing one is */
	snprintf(x, sizeof x, "%s/new", home);
	setenv("XDG_CACHE_HOME", x, 1);
	cr_assert_eq(mkdir(x, 0700), 0);
	cr_expect(profile_store(&k, &e));
	snprintf(p, sizeof p, "%s/adaptrm", x);
	cr_expect_eq(access(p, F_OK), 0);
	/* without it the cache home is $HOME/.cache: neither $HOME nor .cache
	 * is created, adaptrm/ inside it is */
	unsetenv("XDG_CACHE_HOME");
	snprintf(x, sizeof x, "%s/home", home);
	setenv("HOME", x, 1);
	cr_expect_not(profile_store(&k, &e));
	cr_expect_neq(access(x, F_OK), 0, "created $HOME");
	cr_assert_eq(mkdir(x, 0700), 0);
	cr_expect_not(profile_store(&k, &e));
	snprintf(p, sizeof p, "%s/.cache", x);
	cr_expect_neq(access(p, F_OK), 0, "created $HOME/.cache");
	cr_assert_eq(mkdir(p, 0700), 0);
	cr_expect(profile_store(&k, &e));
	snprintf(p, sizeof p, "%s/.cache/adaptrm", x);
	cr_expect_eq(access(p, F_OK), 0);
}

/* ---- The store stays bounded however many filesystems come and go:
 * per-type keys, expiry, the file cap. ---- */

#define DAYS(n) ((int64_t)(n)*86400)

static char *cache_file(const char *name)
{
	static char p[256];
	snprintf(p, sizeof p, "%s/adaptrm/%s", home, name);
	return p;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void set_mtime(const char *path, time_t t)
{
	struct timespec ts[2] = { { .tv_sec = t }, { .tv_sec = t } };
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0, "%s", path);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

/* A key as profile_key_for makes it for a filesystem of type F_TYPE. */
static struct profile_key key_of(uint64_t f_type, const char *fsid, unsigned minor, const char *shape)
{
	struct profile_key k;
	memset(&k, 0, sizeof k);
	profile_key_fs(&k, f_type, fsid, 0, minor);
	snprintf(k.shape, sizeof k.shape, "%s", shape);
	return k;
}

/* tmpfs, ramfs, overlay and FUSE make up their fsid and device at mount
 * time: one file per type, shared by every mount; xfs and ext4 keep theirs. */
Test(profile, ephemeral_filesystems_are_kept_per_type, .init = setup, .fini = teardown)
{
	static const struct {
		uint64_t t;
		const char *file;
	} eph[] = { { 0x01021994, "/tmpfs.json" },
		    { 0x858458f6, "/ramfs.json" },
		    { 0x794c7630, "/overlay.json" },
		    { 0x65735546, "/fuse.json" } };
	for (size_t i = 0; i < sizeof eph / sizeof eph[0]; i++) {
		cr_expect(profile_fs_by_type(eph[i].t), "%s", eph[i].file);
		struct profile_key k = key_of(eph[i].t, "1234567812345678", 40 + i, "flat");
		char *p = profile_path(&k);
		cr_expect(ends_with(p, eph[i].file), "%s: %s", eph[i].file, p);
		cr_expect(profile_file_name(strrchr(p, '/') + 1), "%s", p);
		free(p);
	}
	cr_expect_not(profile_fs_by_type(0x58465342), "xfs");
	cr_expect_not(profile_fs_by_type(0xEF53), "ext4");
	struct profile_key x = key_of(0xEF53, "00ab00cd00ef0012", 3, "flat");
	char *p = profile_path(&x);
	cr_expect(ends_with(p, "/ext4-00ab00cd00ef0012-0_3.json"), "%s", p);
	free(p);

	/* two tmpfs mounts, two overlays, two FUSE mounts: what one learned the
	 * other starts from, in one file per type */
	struct profile_entry e = { .threads = 3, .rate = 1, .runs = 1, .updated = 1 }, got;
	uint64_t types[] = { 0x01021994, 0x794c7630, 0x65735546 };
	for (size_t i = 0; i < 3; i++) {
		struct profile_key m1 = key_of(types[i], "05b816c0b8f21e65", 42, "tree-wide");
		struct profile_key m2 = key_of(types[i], "2713dfba64b3310f", 40, "tree-wide");
		cr_assert(profile_store(&m1, &e));
		cr_assert(profile_load(&m2, &got), "type %#lx: not shared", (unsigned long)types[i]);
		cr_expect_eq(got.threads, 3);
	}
	char dir[128];
	snprintf(dir, sizeof dir, "%s/adaptrm", home);
	cr_expect_eq(count_files(dir), 3);
	/* the file names no fsid: one written for one mount is foreign */
	write_text(cache_file("tmpfs.json"),
		   "{\"format\": \"adaptrm-profile-1\", \"fs\": \"tmpfs\", \"fsid\": \"05b816c0b8f21e65\","
		   " \"classes\": [{\"shape\": \"tree-wide\", \"threads\": 9}]}");
	struct profile_key m = key_of(0x01021994, "05b816c0b8f21e65", 42, "tree-wide");
	cr_expect_not(profile_load(&m, &got), "a per-mount file read as the type's");
}

/* profile_key_for on a real tmpfs (/dev/shm): the per-type key. */
Test(profile, key_for_a_tmpfs_directory, .init = setup, .fini = teardown)
{
	struct statfs sfs;
	if (statfs("/dev/shm", &sfs) != 0 || sfs.f_type != 0x01021994)
		cr_skip_test("/dev/shm is not a tmpfs");
	char d[64];
	snprintf(d, sizeof d, "/dev/shm/adaptrm-profile-test.XXXXXX");
	cr_assert(mkdtemp(d));
	struct profile_key k;
	bool ok = profile_key_for(AT_FDCWD, d, &k, NULL);
	rmdir(d);
	cr_assert(ok);
	cr_expect_str_eq(k.fs, "tmpfs");
	char *p = profile_path(&k);
	cr_expect(ends_with(p, "/adaptrm/tmpfs.json"), "%s", p);
	free(p);
}

/* Files of an older version keep working: a per-id xfs file without
 * "used"; a per-id tmpfs file of this very mount, read until tmpfs.json
 * exists, moved into it by the next store and then removed. */
Test(profile, older_files_keep_working, .init = setup, .fini = teardown)
{
	struct profile_key k = key("flat");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 }, got;
	cr_assert_eq(mkdir(cache_file(""), 0700), 0); /* no store yet: it prunes once a run */
	time_t now = time(NULL);
	char text[512];
	snprintf(text, sizeof text,
		 "{\"format\": \"adaptrm-profile-1\", \"fs\": \"xfs\", \"fsid\": \"00ab00cd00ef0012\","
		 " \"dev\": \"7:3\", \"classes\": [{\"shape\": \"flat\", \"threads\": 5, \"rate\": 5,"
		 " \"runs\": 2, \"updated\": %ld}]}",
		 (long)now - 100);
	write_text(cache_file("xfs-00ab00cd00ef0012-7_3.json"), text);
	cr_assert(profile_load(&k, &got));
	cr_expect_eq(got.threads, 5);
	cr_expect_eq(got.used, now - 100, "used is updated when absent");

	snprintf(text, sizeof text,
		 "{\"format\": \"adaptrm-profile-1\", \"fs\": \"tmpfs\", \"fsid\": \"d0167c633a01244f\","
		 " \"dev\": \"0:45\", \"classes\": [{\"shape\": \"chain\", \"threads\": 1, \"rate\": 5,"
		 " \"runs\": 2, \"updated\": %ld}, {\"shape\": \"flat\", \"threads\": 4, \"rate\": 5,"
		 " \"runs\": 3, \"updated\": %ld}]}",
		 (long)now - 100, (long)now - 100);
	char old[256];
	snprintf(old, sizeof old, "%s", cache_file("tmpfs-d0167c633a01244f-0_45.json"));
	write_text(old, text);
	struct profile_key t = key_of(0x01021994, "d0167c633a01244f", 45, "flat");
	cr_assert(profile_load(&t, &got), "the older per-mount file is not read");
	cr_expect_eq(got.threads, 4);
	/* another mount's older file is not this one's */
	struct profile_key other = key_of(0x01021994, "94d68fc9616735a1", 40, "flat");
	strcpy(t.shape, "tree-wide");
	cr_assert(profile_store(&t, &e));
	cr_expect(exists(cache_file("tmpfs.json")));
	cr_expect_not(exists(old), "the per-mount file outlived tmpfs.json");
	cr_assert(profile_load(&other, &got), "the older entries were not moved");
	cr_expect_eq(got.threads, 4);
	strcpy(other.shape, "chain");
	cr_assert(profile_load(&other, &got));
	cr_expect_eq(got.threads, 1);
}

/* An entry neither loaded nor stored for 30 days goes when its file is
 * written; one loaded lately stays (a load more than a week after the last
 * use writes the stamp back). */
Test(profile, unused_entries_expire, .init = setup, .fini = teardown)
{
	struct profile_key k = key("tree-wide");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 }, got;
	cr_assert(profile_store(&k, &e));
	long now = (long)time(NULL);
	char text[1024];
	snprintf(text, sizeof text,
		 "{\"format\": \"adaptrm-profile-1\", \"fs\": \"xfs\", \"fsid\": \"00ab00cd00ef0012\","
		 " \"dev\": \"7:3\", \"classes\": ["
		 "{\"shape\": \"flat\", \"threads\": 5, \"updated\": %ld, \"used\": %ld},"
		 "{\"shape\": \"chain\", \"threads\": 1, \"updated\": %ld, \"used\": %ld},"
		 "{\"shape\": \"small\", \"threads\": 3, \"updated\": %ld},"
		 "{\"shape\": \"empty\", \"threads\": 2, \"updated\": %ld, \"used\": %ld}]}",
		 now - DAYS(90), now - DAYS(40), now - DAYS(90), now - DAYS(10), now - DAYS(60),
		 now - DAYS(90), now - DAYS(45));
	char *path = profile_path(&k);
	write_text(path, text);
	/* loading "empty", unused for 45 days, is a use */
	struct profile_key empty = key("empty");
	cr_assert(profile_load(&empty, &got));
	cr_assert(profile_store(&k, &e));
	struct profile_key flat = key("flat"), chain = key("chain"), small = key("small");
	cr_expect_not(profile_load(&flat, &got), "an entry unused for 40 days kept");
	cr_expect_not(profile_load(&small, &got), "an older entry updated 60 days ago kept");
	cr_expect(profile_load(&chain, &got), "an entry used 10 days ago dropped");
	cr_expect(profile_load(&empty, &got), "an entry loaded just now dropped");
	cr_expect(profile_load(&k, &got));
	cr_expect_geq(got.used, now, "the store's own stamp");
	free(path);
}

static int count_ours(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += profile_file_name(e->d_name) && e->d_type == DT_REG;
	if (d)
		closedir(d);
	return n;
}

/* 300 profiles (an older version's per-id files of gone mounts, and a few
 * not used for months): after one store, the 256 most recently used are
 * left, the expired gone; what is not ours (other names, a symlink, a
 * directory, a temporary file, a FIFO) is left as it is, old as it is. */
Test(profile, the_file_cap_removes_the_least_recently_used, .init = setup, .fini = teardown)
{
	struct profile_key k = key("flat");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 };
	char dir[128];
	snprintf(dir, sizeof dir, "%s/adaptrm", home);
	cr_assert_eq(mkdir(dir, 0700), 0); /* no store yet: it prunes once a run */
	time_t now = time(NULL);
	char name[96];
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "ext4-%016x-8_%d.json", 0xab00 + i, i);
		write_text(cache_file(name),
			   "{\"format\": \"adaptrm-profile-1\", \"fs\": \"ext4\", \"classes\": []}");
		/* i < 10: unused for 31..40 days; the others an hour apart,
		 * the oldest the smallest i */
		set_mtime(cache_file(name), i < 10 ? now - DAYS(31 + i) : now - (300 - i) * 3600);
	}
	const char *foreign[] = { "notes.json",	      "README",
				  "ext4-zz-8_1.json", "tmpfs.json.tmp.abcdef",
				  "Tmpfs.json",	      "ext4-000000000000ab00-8_1.json.bak" };
	for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
		write_text(cache_file(foreign[i]), "x");
		set_mtime(cache_file(foreign[i]), now - DAYS(400));
	}
	/* named as ours, but a symlink (to an old file of ours outside), a
	 * directory and a FIFO */
	char outside[160];
	snprintf(outside, sizeof outside, "%s/ext4-0000000000000001-8_1.json", home);
	write_text(outside, "{}");
	set_mtime(outside, now - DAYS(400));
	cr_assert_eq(symlink(outside, cache_file("xfs-0000000000000000-8_1.json")), 0);
	set_mtime(cache_file("xfs-0000000000000000-8_1.json"), now - DAYS(400));
	cr_assert_eq(mkdir(cache_file("xfs-0000000000000000-8_2.json"), 0700), 0);
	set_mtime(cache_file("xfs-0000000000000000-8_2.json"), now - DAYS(400));
	cr_assert_eq(mkfifo(cache_file("xfs-0000000000000000-8_3.json"), 0600), 0);
	set_mtime(cache_file("xfs-0000000000000000-8_3.json"), now - DAYS(400));

	cr_assert(profile_store(&k, &e));

	cr_expect_eq(count_ours(dir), PROFILE_MAX_FILES);
	cr_expect(exists(cache_file("xfs-00ab00cd00ef0012-7_3.json")), "the stored file removed");
	int kept = 0, wrong = 0;
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "ext4-%016x-8_%d.json", 0xab00 + i, i);
		bool should = i >= 300 - (PROFILE_MAX_FILES - 1);
		kept += exists(cache_file(name));
		wrong += exists(cache_file(name)) != should;
	}
	cr_expect_eq(kept, PROFILE_MAX_FILES - 1);
	cr_expect_eq(wrong, 0, "not the least recently used removed");
	for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
		cr_expect(exists(cache_file(foreign[i])), "%s removed", foreign[i]);
	cr_expect(exists(cache_file("xfs-0000000000000000-8_1.json")), "the symlink removed");
	cr_expect(exists(outside), "the symlink followed");
	cr_expect(exists(cache_file("xfs-0000000000000000-8_2.json")), "the directory removed");
	cr_expect(exists(cache_file("xfs-0000000000000000-8_3.json")), "the FIFO removed");
	rmdir(cache_file("xfs-0000000000000000-8_2.json"));
}

/* Only the expired go while the count is under the cap, and a FIFO where
 * a profile is expected does not block the load. */
Test(profile, expired_files_go_under_the_cap, .init = setup, .fini = teardown, .timeout = 20)
{
	struct profile_key k = key("flat");
	struct profile_entry e = { .threads = 2, .rate = 1, .runs = 1, .updated = 1 }, got;
	cr_assert(profile_store(&k, &e));
	time_t now = time(NULL);
	write_text(cache_file("ext4-0000000000000001-8_1.json"), "{}");
	set_mtime(cache_file("ext4-0000000000000001-8_1.json"), now - DAYS(29));
	write_text(cache_file("ext4-0000000000000002-8_2.json"), "{}");
	set_mtime(cache_file("ext4-0000000000000002-8_2.json"), now - DAYS(31));
	write_text(cache_file("overlay.json"), "{}");
	set_mtime(cache_file("overlay.json"), now - DAYS(31));
	cr_expect_eq(profile_prune(cache_file(""), NULL, (int64_t)now), 2);
	cr_expect(exists(cache_file("ext4-0000000000000001-8_1.json")));
	cr_expect_not(exists(cache_file("ext4-0000000000000002-8_2.json")));
	cr_expect_not(exists(cache_file("overlay.json")));
	char *path = profile_path(&k);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
	free(path);
	cr_expect_not(profile_load(&k, &got));
}

Test(profile, our_file_names)
{
	const char *ours[] = { "tmpfs.json",
			       "overlay.json",
			       "fuse.json",
			       "ramfs.json",
			       "xfs-00ab00cd00ef0012-7_3.json",
			       "0x1234abcd-0000000000000000-0_45.json",
			       "ext4-ffffffffffffffff-4294967295_4294967295.json" };
	const char *not_ours[] = { "xfs.json",
				   "notes.json",
				   ".json",
				   "tmpfs.json.tmp.abc123",
				   "xfs-00ab00cd00ef001-7_3.json",
				   "xfs-00AB00CD00EF0012-7_3.json",
				   "xfs-00ab00cd00ef0012-7_3.json~",
				   "xfs-00ab00cd00ef0012-7-3.json",
				   "Xfs-00ab00cd00ef0012-7_3.json",
				   "-00ab00cd00ef0012-7_3.json",
				   "xfs-00ab00cd00ef0012-_3.json",
				   "xfs-00ab00cd00ef0012-7_.json",
				   "xfs-00ab00cd00ef00123-7_3.json",
				   "../tmpfs.json" };
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		cr_expect(profile_file_name(ours[i]), "%s", ours[i]);
	for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++)
		cr_expect_not(profile_file_name(not_ours[i]), "%s", not_ours[i]);
}
