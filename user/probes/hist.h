// SPDX-License-Identifier: GPL-3.0-or-later
/* log2 histograms (struct probe_hist from probes_shared.h): arithmetic,
 * percentiles, and printing in exactly DTrace's quantize() format. */
#ifndef ADAPTRM_HIST_H
#define ADAPTRM_HIST_H
#include <stdint.h>
#include <stdio.h>
#include "probes/probes_shared.h"

/* Bucket of VALUE and the smallest value of bucket I (0, 1, 2, 4, ...). */
int hist_bucket(uint64_t value);
uint64_t hist_bucket_value(int i);

void hist_add_value(struct probe_hist *h, uint64_t value);
/* dst = a - b (per-interval histograms; counters never go backwards, but a
 * reset map would, so results clamp at 0). */
void hist_sub(struct probe_hist *dst, const struct probe_hist *a, const struct probe_hist *b);
uint64_t hist_bucket_sum(const struct probe_hist *h);
/* Q in [0,1]: the value below which a fraction Q of the samples fall,
 * interpolated linearly inside its log2 bucket and then kept between
 * hist_min and hist_max, because an estimate outside the range the samples
 * can occupy would report a latency that no call had; 0 when empty. The
 * controller and --trace both use it, so they agree on every percentile. */
double hist_quantile(const struct probe_hist *h, double q);
/* The largest sample H can hold: below its highest non-empty bucket's upper
 * bound, and at most the total less the other samples' bucket floors (exact
 * for one sample); 0 when empty. */
double hist_max(const struct probe_hist *h);
/* The smallest sample H can hold: at least its lowest non-empty bucket's
 * floor, and at least the total less the other samples' bucket ceilings;
 * 0 when empty. */
double hist_min(const struct probe_hist *h);
double hist_mean(const struct probe_hist *h);

/* DTrace quantize: header, one zero row before the first and after the last
 * non-empty bucket, 40 '@' scaled to the sum of the shown rows, rounded. */
void hist_print_quantize(FILE *f, const unsigned long long *b, int nbuckets);

#endif
