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
void hist_merge(struct probe_hist *dst, const struct probe_hist *src);
/* dst = a - b (per-interval histograms; counters never go backwards, but a
 * reset map would, so results clamp at 0). */
void hist_sub(struct probe_hist *dst, const struct probe_hist *a, const struct probe_hist *b);
uint64_t hist_bucket_sum(const struct probe_hist *h);
/* Q in [0,1]: value below which a fraction Q of the samples fall, linearly
 * interpolated inside the log2 bucket; 0 when empty. */
double hist_quantile(const struct probe_hist *h, double q);
double hist_mean(const struct probe_hist *h);

/* DTrace quantize: header, one zero row before the first and after the last
 * non-empty bucket, 40 '@' scaled to the sum of the shown rows, rounded. */
void hist_print_quantize(FILE *f, const unsigned long long *b, int nbuckets);

#endif
