// SPDX-License-Identifier: GPL-3.0-or-later
/* Layout shared by bpf/ksym_names.bpf.c and user/probes/ksym_bpf.c. */
#ifndef ADAPTRM_KSYM_NAMES_SHARED_H
#define ADAPTRM_KSYM_NAMES_SHARED_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define KSYM_BATCH 64 /* addresses named per BPF_PROG_TEST_RUN */
#define KSYM_LEN 128  /* "name+0xoff/0xsize [module]" */

struct ksym_slot {
	__u64 addr;	     /* in: kernel text address (0 ends the batch) */
	char name[KSYM_LEN]; /* out: the kernel's %pS of addr */
};

#endif
