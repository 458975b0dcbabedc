// SPDX-License-Identifier: GPL-3.0-or-later
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "lib/mountinfo.h"

Test(mountinfo, fields_past_the_optional_ones)
{
	char line[] = "36 35 98:0 /mnt1 /mnt/my\\040disk rw,noatime master:1 shared:7 - ext3 "
		      "/dev/root rw,errors=continue\n";
	struct mount_entry e;
	cr_assert(mountinfo_parse(line, &e));
	cr_assert_eq(e.major, 98);
	cr_assert_eq(e.minor, 0);
	cr_assert_str_eq(e.target, "/mnt/my disk");
	cr_assert_str_eq(e.fstype, "ext3");
	cr_assert_str_eq(e.source, "/dev/root");
}

Test(mountinfo, no_optional_fields)
{
	char line[] = "22 1 0:21 / /tmp rw - tmpfs tmpfs rw\n";
	struct mount_entry e;
	cr_assert(mountinfo_parse(line, &e));
	cr_assert_eq(e.minor, 21);
	cr_assert_str_eq(e.target, "/tmp");
	cr_assert_str_eq(e.source, "tmpfs");
}

Test(mountinfo, not_a_mountinfo_line)
{
	struct mount_entry e;
	char no_dash[] = "22 1 0:21 / /tmp rw tmpfs tmpfs rw\n";
	char short_line[] = "22 1 0:21 /\n";
	char bad_dev[] = "22 1 x / /tmp rw - tmpfs tmpfs rw\n";
	cr_assert_not(mountinfo_parse(no_dash, &e));
	cr_assert_not(mountinfo_parse(short_line, &e));
	cr_assert_not(mountinfo_parse(bad_dev, &e));
}

Test(mountinfo, finds_the_root)
{
	/* every system has a mount at "/"; find it by the device it lists */
	FILE *fp = fopen("/proc/self/mountinfo", "r");
	cr_assert_not_null(fp);
	char line[4096];
	unsigned maj = 0, min = 0;
	bool have = false;
	while (!have && fgets(line, sizeof line, fp)) {
		struct mount_entry e;
		if (mountinfo_parse(line, &e) && !strcmp(e.target, "/"))
			maj = e.major, min = e.minor, have = true;
	}
	fclose(fp);
	cr_assert(have);
	struct mount_entry out;
	cr_assert(mountinfo_find(maj, min, &out));
	cr_assert_eq(out.major, maj);
	cr_assert_not_null(out.target);
	mountinfo_entry_free(&out);
	cr_assert_not(mountinfo_find(4095, 1048575, &out), "no such device");
}
