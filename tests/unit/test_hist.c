// SPDX-License-Identifier: GPL-3.0-or-later
/* Golden tests of the DTrace quantize() formatter and the log2 buckets,
 * and the bounds of the one quantile that the controller and --trace share. */
#include <criterion/criterion.h>
#include "probes/hist.h"

#include <stdlib.h>
#include <string.h>

static char *render(const unsigned long long *b, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	hist_print_quantize(f, b, n);
	fclose(f);
	return buf;
}

#define HDR "\n           value  ------------- Distribution ------------- count    \n"

/* 3, 10, 40, 25 in buckets 1, 2, 4, 8: zero rows frame the data, 40 '@'
 * scaled to the sum (78) and rounded: 40*40/78 = 20.51 gives 21. */
Test(quantize, dtrace_example)
{
	unsigned long long b[PROBE_HIST_BUCKETS] = { 0 };
	b[1] = 3;
	b[2] = 10;
	b[3] = 40;
	b[4] = 25;
	char *s = render(b, PROBE_HIST_BUCKETS);
	cr_assert_str_eq(s, HDR
			 "               0 |                                         0        \n"
			 "               1 |@@                                       3        \n"
			 "               2 |@@@@@                                    10       \n"
			 "               4 |@@@@@@@@@@@@@@@@@@@@@                    40       \n"
			 "               8 |@@@@@@@@@@@@@                            25       \n"
			 "              16 |                                         0        \n");
	free(s);
}

Test(quantize, single_bucket_is_full_bar)
{
	unsigned long long b[PROBE_HIST_BUCKETS] = { 0 };
	b[14] = 7; /* 8192 */
	char *s = render(b, PROBE_HIST_BUCKETS);
	cr_assert_str_eq(s, HDR
			 "            4096 |                                         0        \n"
			 "            8192 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 7        \n"
			 "           16384 |                                         0        \n");
	free(s);
}

/* Rounding: 1 of 3 is 13.3 -> 13 '@', 2 of 3 is 26.7 -> 27; a gap shows as a
 * zero row; the zero bucket has no row before it. */
Test(quantize, rounding_gap_and_zero_bucket)
{
	unsigned long long b[PROBE_HIST_BUCKETS] = { 0 };
	b[0] = 1;
	b[2] = 2;
	char *s = render(b, PROBE_HIST_BUCKETS);
	cr_assert_str_eq(s, HDR
			 "               0 |@@@@@@@@@@@@@                            1        \n"
			 "               1 |                                         0        \n"
			 "               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              2        \n"
			 "               4 |                                         0        \n");
	free(s);
}

Test(quantize, empty)
{
	unsigned long long b[PROBE_HIST_BUCKETS] = { 0 };
	char *s = render(b, PROBE_HIST_BUCKETS);
	cr_assert_str_eq(s, HDR
			 "               0 |                                         0        \n"
			 "               1 |                                         0        \n");
	free(s);
}

/* The last bucket gets its zero row after it too. */
Test(quantize, last_bucket)
{
	unsigned long long b[PROBE_HIST_BUCKETS] = { 0 };
	b[PROBE_HIST_BUCKETS - 1] = 1;
	char *s = render(b, PROBE_HIST_BUCKETS);
	cr_assert_str_eq(s, HDR
			 "    137438953472 |                                         0        \n"
			 "    274877906944 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n"
			 "    549755813888 |                                         0        \n");
	free(s);
}

Test(hist, buckets_match_dtrace_values)
{
	cr_assert_eq(hist_bucket(0), 0);
	cr_assert_eq(hist_bucket(1), 1);
	cr_assert_eq(hist_bucket(2), 2);
	cr_assert_eq(hist_bucket(3), 2);
	cr_assert_eq(hist_bucket(4), 3);
	cr_assert_eq(hist_bucket(8191), 13);
	cr_assert_eq(hist_bucket(8192), 14);
	cr_assert_eq(hist_bucket(~0ull), PROBE_HIST_BUCKETS - 1);
	for (int i = 1; i < PROBE_HIST_BUCKETS; i++)
		cr_assert_eq(hist_bucket(hist_bucket_value(i)), i);
}

Test(hist, quantiles_sub_and_mean)
{
	struct probe_hist a = { 0 }, b = { 0 }, d;
	for (int i = 0; i < 100; i++)
		hist_add_value(&a, 1000); /* bucket [512, 1024) */
	cr_assert_eq(hist_bucket_sum(&a), 100);
	double p50 = hist_quantile(&a, 0.5);
	cr_assert(p50 >= 512 && p50 <= 1024, "p50 %f", p50);
	cr_assert_float_eq(hist_mean(&a), 1000.0, 1e-9);
	b = a;
	hist_add_value(&a, 5000000);
	hist_sub(&d, &a, &b);
	cr_assert_eq(d.count, 1);
	cr_assert_eq(d.total, 5000000);
	cr_assert_eq(hist_bucket_sum(&d), 1);
	cr_assert(hist_quantile(&d, 0.99) >= 4194304);
	hist_sub(&d, &b, &a); /* backwards clamps at zero */
	cr_assert_eq(d.count, 0);
	cr_assert_eq(hist_quantile(&d, 0.5), 0);
}

/* One execve of 222 us: interpolation inside [131072, 262144) alone gives
 * 260.8 us for p99, more than the one call took; the bounded quantile is the
 * call itself, at every Q. */
Test(hist, quantile_of_one_sample_is_the_sample)
{
	struct probe_hist h = { 0 };
	hist_add_value(&h, 222000);
	cr_assert_float_eq(hist_max(&h), 222000.0, 0.5);
	cr_assert_float_eq(hist_min(&h), 222000.0, 0.5);
	cr_assert_float_eq(hist_quantile(&h, 0.99), 222000.0, 0.5);
	cr_assert_float_eq(hist_quantile(&h, 0.5), 222000.0, 0.5);
	cr_assert_float_eq(hist_quantile(&h, 0), 222000.0, 0.5);
}

/* A full bucket of equal samples: interpolation spreads p50 to the middle
 * of [512, 1024), but a hundred samples summing to 100000 cannot exceed
 * 1000 + 99 * 488 nor fall below 1000 - 99 * 511; the bucket bounds win. */
Test(hist, quantile_stays_inside_the_bucket)
{
	struct probe_hist h = { 0 };
	for (int i = 0; i < 100; i++)
		hist_add_value(&h, 1000);
	cr_assert_float_eq(hist_quantile(&h, 0.5), 768.0, 0.5);
	cr_assert_float_eq(hist_quantile(&h, 1), 1023.0, 0.5, "the upper bound is 1023, not 1024");
	cr_assert_float_eq(hist_max(&h), 1023.0, 0.5);
	cr_assert_float_eq(hist_min(&h), 512.0, 0.5);
}

/* Several samples: the largest is at most the total less the others'
 * floors, and below its bucket's upper bound. */
Test(hist, quantile_never_exceeds_the_largest_possible_sample)
{
	struct probe_hist h = { 0 };
	hist_add_value(&h, 1100); /* bucket [1024, 2048) */
	hist_add_value(&h, 1100);
	hist_add_value(&h, 140000); /* bucket [131072, 262144) */
	double max = hist_max(&h);
	cr_assert_leq(max, 140000 + 2 * (1100 - 1024) + 0.5);
	cr_assert_geq(max, 140000.0);
	cr_assert_leq(hist_quantile(&h, 0.99), max);
	cr_assert_leq(hist_quantile(&h, 0.5), 2047.0);
	/* a full bucket whose total allows anything: the bucket's bound */
	struct probe_hist g = { 0 };
	g.count = 2;
	g.total = 1000000;
	g.b[hist_bucket(3000)] = 2; /* [2048, 4096), inconsistent total */
	cr_assert_float_eq(hist_max(&g), 4095.0, 0.5);
	cr_assert_float_eq(hist_quantile(&g, 1), 4095.0, 0.5);
	struct probe_hist e = { 0 };
	cr_assert_float_eq(hist_quantile(&e, 0.99), 0.0, 0.0);
	cr_assert_float_eq(hist_max(&e), 0.0, 0.0);
	cr_assert_float_eq(hist_min(&e), 0.0, 0.0);
}

/* The smallest of two samples: one of 600 and one of 1000 in the same
 * bucket sum to 1600, so neither is below 1600 - 1023 = 577. */
Test(hist, quantile_never_falls_below_the_smallest_possible_sample)
{
	struct probe_hist h = { 0 };
	hist_add_value(&h, 600);
	hist_add_value(&h, 1000);
	cr_assert_float_eq(hist_min(&h), 577.0, 0.5);
	cr_assert_float_eq(hist_quantile(&h, 0), 577.0, 0.5);
	cr_assert_float_eq(hist_quantile(&h, 0.1), 577.0, 0.5, "interpolation alone gives 563.2");
}

/* A sample in the last bucket, which has no upper bound, says nothing about
 * the smallest: the quantiles of the low samples stay in their bucket. */
Test(hist, unbounded_last_bucket_does_not_lift_the_low_quantiles)
{
	struct probe_hist h = { 0 };
	for (int i = 0; i < 99; i++)
		hist_add_value(&h, 3);
	hist_add_value(&h, ~0ull >> 4);
	cr_assert_float_eq(hist_min(&h), 2.0, 0.0);
	cr_assert_leq(hist_quantile(&h, 0.5), 4.0, "the old bound lifted it to 2^38");
	cr_assert_geq(hist_quantile(&h, 1), (double)hist_bucket_value(PROBE_HIST_BUCKETS - 1));
}
