// SPDX-License-Identifier: GPL-3.0-or-later
/* Byte counts and rates as people write and read them: "256M", "1.5 GiB". */
#ifndef ADAPTRM_UNITS_H
#define ADAPTRM_UNITS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most --free-rate accepts: 1 TiB/s. No device frees faster, and a
 * bigger figure is a typo (a unit too many). */
#define UNITS_RATE_MAX (1ull << 40)

/* A rate in bytes per second: digits, an optional K, M, G or T (powers of
 * 1024, either case), optionally followed by "iB" or "B", optionally by
 * "/s". False for anything else, for zero, and above UNITS_RATE_MAX. */
bool units_parse_rate(const char *s, uint64_t *bytes_per_s);
/* BYTES in binary units with one decimal ("3.2 GiB", "512 B") in BUF. */
const char *units_format_bytes(uint64_t bytes, char *buf, size_t size);

#endif
