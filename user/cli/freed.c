// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/freed.h"
#include "engine/fsinfo.h"
#include "lib/mountinfo.h"
#include "lib/units.h"
#include "lib/xalloc.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Distinct filesystems counted; operands beyond them are not (the table,
 * and its fds, stay small whatever the command line). */
#define FREED_MAX 8

struct fs_entry {
	dev_t dev;
	int fd;		      /* O_PATH of its mount point (or a directory on it) */
	uint64_t free_before; /* bytes */
	uint64_t type;
	char *mount; /* its mount point, or NULL */
	bool known;  /* its free space is its own (others' writes still count) */
};

struct freed {
	struct fs_entry fs[FREED_MAX];
	int n;
};

struct freed *freed_new(void)
{
	return xcalloc(1, sizeof(struct freed));
}

void freed_free(struct freed *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++) {
		close(f->fs[i].fd);
		free(f->fs[i].mount);
	}
	free(f);
}

static uint64_t free_bytes(const struct statfs *s)
{
	uint64_t unit = s->f_frsize ? (uint64_t)s->f_frsize : (uint64_t)s->f_bsize;
	return (uint64_t)s->f_bfree * unit;
}

/* Filesystems whose statfs counts their own blocks. Elsewhere (FUSE,
 * NFS, SMB, overlay, ...) statfs reports a store behind it, which other
 * processes and other clients fill and free meanwhile: a delta there is not
 * the delete's, so it is not shown. */
static bool own_free_space(uint64_t type)
{
	static const uint64_t own[] = {
		0xEF53,	    /* ext2, ext3, ext4 */
		0x58465342, /* xfs */
		0x9123683E, /* btrfs */
		0x01021994, /* tmpfs */
		0xF2F52010, /* f2fs */
		0x52654973, /* reiserfs */
		0x2fc12fc1, /* zfs */
		0xca451a4e, /* bcachefs */
		0x3153464a, /* jfs */
		0x4d44,	    /* vfat */
		0x2011BAB0, /* exfat */
	};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (own[i] == type)
			return true;
	return false;
}

/* The mount point of device DEV (the last mount of it listed), or NULL. */
static char *mount_point(dev_t dev)
{
	struct mount_entry e;
	if (!mountinfo_find(major(dev), minor(dev), &e))
		return NULL;
	char *target = e.target;
	e.target = NULL;
	mountinfo_entry_free(&e);
	return target;
}

/* The directory holding PATH ("." for a bare name), opened O_PATH. */
static int open_parent_dir(const char *path)
{
	char *p = xstrdup(path);
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	char *slash = strrchr(p, '/');
	const char *dir = !slash ? "." : slash == p ? "/" : (*slash = '\0', p);
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(p);
	return fd;
}

/* An fd on filesystem DEV for fstatfs that holds no file of the delete
 * open (an fd on a deleted file would keep its blocks): its mount point,
 * else the directory holding PATH; -1 if neither is on DEV. */
static int fs_fd(dev_t dev, const char *mount, const char *path)
{
	for (int i = 0; i < 2; i++) {
		int fd = i == 0 ? (mount ? open(mount, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1) :
				  open_parent_dir(path);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == dev)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

void freed_note(struct freed *f, const char *path)
{
	struct stat st;
	if (!f || f->n == FREED_MAX || lstat(path, &st) != 0)
		return;
	for (int i = 0; i < f->n; i++)
		if (f->fs[i].dev == st.st_dev)
			return;
	char *mount = mount_point(st.st_dev);
	int fd = fs_fd(st.st_dev, mount, path);
	struct statfs sf;
	if (fd < 0 || fstatfs(fd, &sf) != 0) {
		if (fd >= 0)
			close(fd);
		free(mount);
		return;
	}
	struct fs_entry *e = &f->fs[f->n++];
	e->dev = st.st_dev;
	e->fd = fd;
	e->free_before = free_bytes(&sf);
	e->type = (uint64_t)sf.f_type;
	e->mount = mount;
	e->known = own_free_space(e->type);
}

/* Bytes by which E's free space grew since it was noted (0 if it did not:
 * others may have filled it meanwhile). */
static uint64_t freed_on(const struct fs_entry *e)
{
	struct statfs sf;
	if (fstatfs(e->fd, &sf) != 0)
		return 0;
	uint64_t now = free_bytes(&sf);
	return now > e->free_before ? now - e->free_before : 0;
}

uint64_t freed_now(struct freed *f)
{
	uint64_t sum = 0;
	for (int i = 0; f && i < f->n; i++)
		if (f->fs[i].known)
			sum += freed_on(&f->fs[i]);
	return sum;
}

bool freed_known(struct freed *f)
{
	for (int i = 0; f && i < f->n; i++)
		if (f->fs[i].known)
			return true;
	return false;
}

void freed_print(struct freed *f, FILE *out)
{
	if (!f || f->n == 0)
		return;
	/* The figure is the filesystem's, not the delete's: a writer elsewhere
	 * on it fills what the delete frees, so it is named as what it is. */
	fputs("free space:", out);
	for (int i = 0; i < f->n; i++) {
		const struct fs_entry *e = &f->fs[i];
		char size[32], type[24], grew[48] = "not known";
		uint64_t by = e->known ? freed_on(e) : 0;
		if (e->known && by)
			snprintf(grew, sizeof grew, "grew by %s",
				 units_format_bytes(by, size, sizeof size));
		else if (e->known)
			snprintf(grew, sizeof grew, "did not grow");
		fprintf(out, "%s %s on %s (%s)", i ? "," : "", grew, e->mount ? e->mount : "?",
			fsinfo_name(e->type, type));
	}
	fputc('\n', out);
}
