// SPDX-License-Identifier: GPL-3.0-or-later
/* Kernel symbols from /proc/kallsyms, to name contended callers. */
#ifndef ADAPTRM_KSYMS_H
#define ADAPTRM_KSYMS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Loads PATH (NULL = /proc/kallsyms). NULL when unreadable or when every
 * address reads as 0 (kptr_restrict): callers then print raw addresses. */
struct ksyms *ksyms_load(const char *path);
/* From the kernel's "%pS" renderings of ADDRS ("name+0xoff/0xsize [mod]",
 * see ksym_bpf.h): each names a function starting at addr - off. Addresses
 * the kernel could not name are left out; NULL if none was named. Lock and
 * scheduler code is then recognised by name only. */
struct ksyms *ksyms_from_pS(const uint64_t *addrs, const char *const *pS, size_t n);
void ksyms_free(struct ksyms *k);
/* "name+0xoff" of ADDR into BUF; false (and "0x...") if unknown. */
bool ksyms_name(const struct ksyms *k, uint64_t addr, char *buf, size_t len);
/* ADDR is inside locking or scheduler code (lock text, sched text, or a
 * function whose name says it is a lock primitive): skip it when looking
 * for the caller that contended. */
bool ksyms_is_lock_code(const struct ksyms *k, uint64_t addr);

#endif
