// SPDX-License-Identifier: GPL-3.0-or-later
/* Noise for the simulated filesystems of the controller tests: xorshift64,
 * the sum of 4 uniforms scaled to mean 0 and sd 1 (near enough Gaussian),
 * deterministic from the state's seed. */
#ifndef ADAPTRM_SIM_NOISE_H
#define ADAPTRM_SIM_NOISE_H
#include <stdint.h>

static inline double sim_noise(uint64_t *state)
{
	double s = 0;
	for (int i = 0; i < 4; i++) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		s += (double)(*state >> 11) / (double)(1ull << 53) - 0.5;
	}
	return s * 1.732; /* a uniform's sd is 0.289, 4 of them 0.577 */
}

#endif
