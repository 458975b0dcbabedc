// SPDX-License-Identifier: GPL-3.0-or-later
/* System call names come from libseccomp for the architecture of the build:
 * the numbers of this architecture's headers give their own names. */
#include <criterion/criterion.h>
#include "probes/probes_shared.h"
#include "probes/syscall_names.h"

#include <stddef.h>
#include <sys/syscall.h>

Test(syscall_names, this_architectures_numbers)
{
	cr_assert_str_eq(syscall_name(SYS_unlinkat), "unlinkat");
	cr_assert_str_eq(syscall_name(SYS_getdents64), "getdents64");
	cr_assert_str_eq(syscall_name(SYS_openat), "openat");
	cr_assert_str_eq(syscall_name(SYS_fsync), "fsync");
	cr_assert_str_eq(syscall_name(PROBE_NR_UNLINKAT), "unlinkat");
	cr_assert_str_eq(syscall_name(PROBE_NR_GETDENTS64), "getdents64");
}

Test(syscall_names, past_the_table)
{
	cr_assert_null(syscall_name(PROBE_NR_SYSCALLS));
	cr_assert_null(syscall_name(~0u));
}
