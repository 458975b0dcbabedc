// SPDX-License-Identifier: GPL-3.0-or-later
/* ksyms: /proc/kallsyms parsing and address lookup, on a small fake file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "probes/ksyms.h"

static char path[] = "/tmp/adaptrm-ksyms.XXXXXX";

static struct ksyms *load(const char *text)
{
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct ksyms *k = ksyms_load(path);
	unlink(path);
	return k;
}

static void expect_name(const struct ksyms *k, uint64_t addr, const char *want)
{
	char buf[128];
	cr_assert(ksyms_name(k, addr, buf, sizeof buf), "no name for %s", want);
	cr_assert_str_eq(buf, want);
}

Test(ksyms, names_offsets_and_lock_code)
{
	/* out of order on purpose, with data symbols and a module symbol */
	struct ksyms *k = load("ffffffff81200000 T do_unlinkat\n"
			       "ffffffff81000000 T _stext\n"
			       "ffffffff81900000 T __lock_text_start\n"
			       "ffffffff81900100 t _raw_spin_lock\n"
			       "ffffffff81900400 T __lock_text_end\n"
			       "ffffffff81300000 T down_write\n"
			       "ffffffff82000000 D some_data\n"
			       "ffffffffc0001000 t ext4_unlink\t[ext4]\n"
			       "garbage line\n");
	cr_assert_not_null(k);
	char buf[128];
	expect_name(k, 0xffffffff81200010ull, "do_unlinkat+0x10");
	expect_name(k, 0xffffffffc0001004ull, "ext4_unlink+0x4");
	cr_assert_not(ksyms_name(k, 0x1000, buf, sizeof buf));
	cr_assert_str_eq(buf, "0x1000");
	cr_assert(ksyms_is_lock_code(k, 0xffffffff81900200ull), "inside the lock text");
	cr_assert(ksyms_is_lock_code(k, 0xffffffff81300008ull), "down_write is a lock primitive");
	cr_assert_not(ksyms_is_lock_code(k, 0xffffffff81200008ull), "do_unlinkat is the caller");
	ksyms_free(k);
}

Test(ksyms, restricted_addresses_give_null)
{
	/* kptr_restrict: every address reads as zero */
	cr_assert_null(load("0000000000000000 T _stext\n0000000000000000 T do_unlinkat\n"));
	cr_assert_null(ksyms_load("/nonexistent/kallsyms"));
}

/* The kernel's own %pS renderings (ksym_bpf.c): each names the function that
 * contains the address; unnamed addresses and duplicates drop out, and lock
 * code is recognised by name. */
Test(ksyms, from_kernel_pS_renderings)
{
	const uint64_t addrs[] = {
		0xffffffff81200134ull, 0xffffffff81300010ull, 0xffffffffc0001004ull,
		0xffffffff81200010ull, 0xffffffff89999999ull, 0xffffffff81400020ull,
	};
	const char *const pS[] = {
		"do_unlinkat+0x134/0x2b0",
		"down_write+0x10/0x60",
		"ext4_unlink+0x4/0x180 [ext4]",
		"do_unlinkat+0x10/0x2b0", /* the same function again */
		"0xffffffff89999999",	  /* the kernel could not name it */
		"rwsem_down_write_slowpath+0x20/0x500",
	};
	struct ksyms *k = ksyms_from_pS(addrs, pS, 6);
	cr_assert_not_null(k);
	char buf[128];
	expect_name(k, 0xffffffff81200134ull, "do_unlinkat+0x134");
	expect_name(k, 0xffffffff81200010ull, "do_unlinkat+0x10");
	expect_name(k, 0xffffffffc0001004ull, "ext4_unlink+0x4");
	/* past a known function's end: not attributed to it */
	cr_assert_not(ksyms_name(k, 0xffffffff81200000ull + 0x2b0, buf, sizeof buf));
	cr_assert_not(ksyms_name(k, 0xffffffff89999999ull, buf, sizeof buf));
	cr_assert_str_eq(buf, "0xffffffff89999999");
	cr_assert(ksyms_is_lock_code(k, 0xffffffff81300010ull));
	cr_assert(ksyms_is_lock_code(k, 0xffffffff81400020ull));
	cr_assert_not(ksyms_is_lock_code(k, 0xffffffff81200134ull));
	ksyms_free(k);

	const char *const none[] = { "0xffffffff81200134" };
	cr_assert_null(ksyms_from_pS(addrs, none, 1));
}
