// SPDX-License-Identifier: GPL-3.0-or-later
/* The monotonic clock, in the two units the code uses: nanoseconds for
 * syscall timing, seconds for the controller's and the faces' clocks. */
#ifndef ADAPTRM_CLOCK_H
#define ADAPTRM_CLOCK_H
#include <stdint.h>
#include <time.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
#endif
