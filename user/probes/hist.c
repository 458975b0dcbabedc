// SPDX-License-Identifier: GPL-3.0-or-later
/* log2 histograms and DTrace's quantize() output (see hist.h). */
#include "probes/hist.h"

int hist_bucket(uint64_t v)
{
	int r = 0;

	if (v == 0)
		return 0;
	while (v >>= 1)
		r++;
	r++;
	return r < PROBE_HIST_BUCKETS ? r : PROBE_HIST_BUCKETS - 1;
}

uint64_t hist_bucket_value(int i)
{
	return i <= 0 ? 0 : (uint64_t)1 << (i - 1);
}

void hist_add_value(struct probe_hist *h, uint64_t v)
{
	h->count++;
	h->total += v;
	h->b[hist_bucket(v)]++;
}

static unsigned long long sub0(unsigned long long a, unsigned long long b)
{
	return a > b ? a - b : 0;
}

void hist_sub(struct probe_hist *dst, const struct probe_hist *a, const struct probe_hist *b)
{
	dst->count = sub0(a->count, b->count);
	dst->total = sub0(a->total, b->total);
	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		dst->b[i] = sub0(a->b[i], b->b[i]);
}

uint64_t hist_bucket_sum(const struct probe_hist *h)
{
	uint64_t s = 0;

	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		s += h->b[i];
	return s;
}

/* The estimate inside the bucket, before hist_quantile bounds it. */
static double interpolate(const struct probe_hist *h, double q)
{
	uint64_t n = hist_bucket_sum(h);

	if (n == 0)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	double want = q * (double)n, seen = 0;
	for (int i = 0; i < PROBE_HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		if (seen + (double)h->b[i] >= want) {
			if (i == 0)
				return 0;
			double lo = (double)hist_bucket_value(i), hi = lo * 2;
			double frac = (want - seen) / (double)h->b[i];
			return lo + (hi - lo) * frac;
		}
		seen += (double)h->b[i];
	}
	return (double)hist_bucket_value(PROBE_HIST_BUCKETS - 1);
}

double hist_max(const struct probe_hist *h)
{
	int top = -1;
	double floors = 0;

	for (int i = 0; i < PROBE_HIST_BUCKETS; i++)
		if (h->b[i]) {
			top = i;
			floors += (double)h->b[i] * (double)hist_bucket_value(i);
		}
	if (top <= 0)
		return 0;
	double lo = (double)hist_bucket_value(top);
	/* The last bucket also takes everything larger, so it has no upper bound. */
	double max = top == PROBE_HIST_BUCKETS - 1 ? 1e300 : lo * 2 - 1;
	/* The other samples are at least their buckets' floors. */
	double rest = (double)h->total - (floors - lo);
	if (h->total && rest >= lo && rest < max)
		max = rest;
	return max;
}

double hist_min(const struct probe_hist *h)
{
	int low = -1;
	double ceils = 0;

	for (int i = 0; i < PROBE_HIST_BUCKETS && low < 0; i++)
		if (h->b[i])
			low = i;
	if (low <= 0)
		return 0;
	double lo = (double)hist_bucket_value(low), hi = lo * 2 - 1;
	for (int i = low; i < PROBE_HIST_BUCKETS; i++) {
		/* The last bucket has no ceiling, so the total bounds nothing. */
		if (h->b[i] && i == PROBE_HIST_BUCKETS - 1)
			return lo;
		ceils += (double)h->b[i] * ((double)hist_bucket_value(i) * 2 - 1);
	}
	/* The other samples are at most their buckets' ceilings. */
	double rest = (double)h->total - (ceils - hi);
	return rest > lo && rest <= hi ? rest : lo;
}

double hist_quantile(const struct probe_hist *h, double q)
{
	double v = interpolate(h, q), max = hist_max(h), min = hist_min(h);

	if (v > max)
		v = max;
	if (v < min)
		v = min;
	return v;
}

double hist_mean(const struct probe_hist *h)
{
	return h->count ? (double)h->total / (double)h->count : 0;
}

/* dt_print_quantline: value right in 16, '|', the '@' bar and its padding
 * (40 together), a space, the count left-justified in 9. */
static void quant_row(FILE *f, uint64_t value, uint64_t count, uint64_t total)
{
	unsigned depth = total ? (unsigned)((double)count * 40 / (double)total + 0.5) : 0;

	if (depth > 40)
		depth = 40;
	fprintf(f, "%16llu |", (unsigned long long)value);
	for (unsigned i = 0; i < 40; i++)
		fputc(i < depth ? '@' : ' ', f);
	fprintf(f, " %-9llu\n", (unsigned long long)count);
}

void hist_print_quantize(FILE *f, const unsigned long long *b, int n)
{
	int first = -1, last = -1;

	fprintf(f, "\n%16s %41s %-9s\n", "value", "------------- Distribution -------------",
		"count");
	for (int i = 0; i < n; i++) {
		if (b[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (first < 0) {
		/* no data: DTrace shows the rows around zero */
		quant_row(f, 0, 0, 0);
		quant_row(f, 1, 0, 0);
		return;
	}
	int lo = first > 0 ? first - 1 : 0;
	int hi = last + 1; /* may be one past the array: a zero row */
	uint64_t total = 0;
	for (int i = lo; i <= hi && i < n; i++)
		total += b[i];
	for (int i = lo; i <= hi; i++)
		quant_row(f, hist_bucket_value(i), i < n ? b[i] : 0, total);
}
