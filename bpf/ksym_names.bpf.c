// SPDX-License-Identifier: GPL-2.0-or-later
/* Names kernel text addresses with the kernel's own symbol lookup
 * (bpf_snprintf's %pS), run on demand through BPF_PROG_TEST_RUN and never
 * attached: --trace names a few dozen contended callers this way instead of
 * reading all of /proc/kallsyms, one line per kernel symbol, which costs far
 * more system time. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "probes/ksym_names_shared.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KSYM_BATCH);
	__type(key, __u32);
	__type(value, struct ksym_slot);
} slots SEC(".maps");

SEC("raw_tp")
int ksym_names(void *ctx)
{
	for (__u32 i = 0; i < KSYM_BATCH; i++) {
		__u32 key = i;
		struct ksym_slot *s = bpf_map_lookup_elem(&slots, &key);
		if (!s || !s->addr)
			break;
		__u64 args[1] = { s->addr };
		bpf_snprintf(s->name, sizeof s->name, "%pS", args, sizeof args);
	}
	return 0;
}
