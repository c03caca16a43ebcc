/*
 * histo.c - log-bucketed latency histogram.
 *
 * Values below 2^SUB_BITS have one bucket each. Above, every power of two
 * [2^e, 2^(e+1)) is split into SUB equal steps, so a bucket is never wider
 * than 1/SUB of its lower bound: the relative error of a percentile stays
 * under 1/SUB (3.1 % with SUB_BITS = 5), whatever the range, with a fixed
 * array and no allocation on record.
 */
#include <string.h>

#include "storage.h"

static unsigned histo_index(uint64_t v)
{
	unsigned e;

	if (v < STG_HISTO_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);    /* e >= SUB_BITS */
	/* group g = e - SUB_BITS + 1 starts at g * SUB */
	return (e - STG_HISTO_SUB_BITS + 1) * STG_HISTO_SUB +
	       (unsigned)((v >> (e - STG_HISTO_SUB_BITS)) & (STG_HISTO_SUB - 1));
}

/* Lowest value and width of bucket I. */
static void histo_bucket_range(unsigned i, uint64_t *lo, uint64_t *width)
{
	unsigned g = i / STG_HISTO_SUB, s = i % STG_HISTO_SUB, e;

	if (g == 0) {
		*lo = s;
		*width = 1;
		return;
	}
	e = g + STG_HISTO_SUB_BITS - 1;
	*width = 1ull << (e - STG_HISTO_SUB_BITS);
	*lo = (1ull << e) + (uint64_t)s * *width;
}

void stg_histo_init(struct stg_histo *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void stg_histo_record(struct stg_histo *h, uint64_t v)
{
	h->bucket[histo_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void stg_histo_merge(struct stg_histo *dst, const struct stg_histo *src)
{
	for (unsigned i = 0; i < STG_HISTO_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t stg_histo_percentile(const struct stg_histo *h, double pct)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (pct <= 0)
		return h->min;
	if (pct >= 100)
		return h->max;
	/* the smallest value with at least pct % of the values at or below */
	rank = (uint64_t)(pct / 100.0 * (double)h->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < STG_HISTO_BUCKETS; i++) {
		uint64_t lo, width, mid;

		seen += h->bucket[i];
		if (seen < rank)
			continue;
		histo_bucket_range(i, &lo, &width);
		mid = lo + (width - 1) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}

double stg_histo_mean(const struct stg_histo *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}
