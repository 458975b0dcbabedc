// SPDX-License-Identifier: GPL-3.0-or-later
/* System call number -> name for the architecture adaptrm is built for, from
 * libseccomp's per-architecture tables: a list kept up to date by others
 * rather than one more hand table of one architecture's numbers. */
#include "probes/syscall_names.h"
#include "probes/probes_shared.h"

#include <pthread.h>
#include <seccomp.h>
#include <stddef.h>

static const char *names[PROBE_NR_SYSCALLS];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

/* Every number the probes count, resolved once: the report asks for names
 * in loops, and libseccomp searches its table on each call. The strings are
 * kept for the life of the process. */
static void resolve_all(void)
{
	for (int nr = 0; nr < PROBE_NR_SYSCALLS; nr++)
		names[nr] = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
}

const char *syscall_name(unsigned nr)
{
	if (nr >= PROBE_NR_SYSCALLS)
		return NULL;
	pthread_once(&names_once, resolve_all);
	return names[nr];
}
