// SPDX-License-Identifier: GPL-3.0-or-later
#include "lib/units.h"

#include <stdio.h>
#include <string.h>

/* The power of 1024 that suffix letter C stands for, or -1. */
static int suffix_power(char c)
{
	static const char letters[] = "KMGT";
	const char *p = c ? strchr(letters, c & ~0x20) : NULL;
	return p ? (int)(p - letters) + 1 : -1;
}

bool units_parse_rate(const char *s, uint64_t *bytes_per_s)
{
	uint64_t v = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return false; /* empty, a sign, a space */
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > UNITS_RATE_MAX)
			return false; /* too big already: no overflow below */
		v = v * 10 + (uint64_t)(*p - '0');
	}
	int power = suffix_power(*p);
	if (power > 0) {
		p++;
		if (p[0] == 'i' && p[1] == 'B')
			p += 2;
		else if (p[0] == 'B')
			p++;
	} else if (*p == 'B') {
		p++; /* "512B" */
	}
	if (!strcmp(p, "/s"))
		p += 2;
	if (*p)
		return false;
	for (int i = 0; i < power; i++) {
		if (v > UNITS_RATE_MAX)
			return false;
		v <<= 10;
	}
	if (v == 0 || v > UNITS_RATE_MAX)
		return false;
	*bytes_per_s = v;
	return true;
}

const char *units_format_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	if (bytes < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 6) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}
