// SPDX-License-Identifier: GPL-3.0-or-later
/* Kernel symbol names for a set of addresses, looked up by the kernel
 * through a BPF program (bpf/ksym_names.bpf.c), without /proc/kallsyms. */
#ifndef ADAPTRM_KSYM_BPF_H
#define ADAPTRM_KSYM_BPF_H
#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* A symbol table covering ADDRS (the function of each one), or NULL when
 * the program cannot load or run here (then read /proc/kallsyms). */
struct ksyms *ksym_bpf_resolve(const uint64_t *addrs, size_t n);

#endif
