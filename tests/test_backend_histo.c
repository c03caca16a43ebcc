/*
 * test_backend_histo.c - the latency histogram: percentiles within its
 * stated 1/32 relative error, merging equals recording into one, empty and
 * extreme values.
 */
#include <stdlib.h>

#include "harness.h"
#include "storage.h"

static void expect_close(uint64_t got, uint64_t want, const char *what)
{
	double err = want ? ((double)got - (double)want) / (double)want : 0;

	cr_expect(err <= 1.0 / 32 && err >= -1.0 / 32,
		  "%s: got %llu, want %llu (%.2f%%)", what,
		  (unsigned long long)got, (unsigned long long)want, err * 100);
}

FR_TEST(backend_histo, percentiles_are_within_bucket_error)
{
	struct stg_histo *h = malloc(sizeof(*h));

	stg_histo_init(h);
	/* 1..100000 ns: pXX is XX000 */
	for (uint64_t v = 1; v <= 100000; v++)
		stg_histo_record(h, v);
	cr_expect_eq(h->count, 100000);
	cr_expect_eq(h->min, 1);
	cr_expect_eq(h->max, 100000);
	expect_close(stg_histo_percentile(h, 50), 50000, "p50");
	expect_close(stg_histo_percentile(h, 90), 90000, "p90");
	expect_close(stg_histo_percentile(h, 99), 99000, "p99");
	expect_close(stg_histo_percentile(h, 99.9), 99900, "p99.9");
	cr_expect_eq(stg_histo_percentile(h, 0), 1);
	cr_expect_eq(stg_histo_percentile(h, 100), 100000);
	cr_expect_float_eq(stg_histo_mean(h), 50000.5, 1e-6);
	free(h);
}

FR_TEST(backend_histo, small_values_are_exact_and_tail_is_seen)
{
	struct stg_histo *h = malloc(sizeof(*h));

	stg_histo_init(h);
	for (int i = 0; i < 999; i++)
		stg_histo_record(h, 7);
	stg_histo_record(h, 5000000000ull);   /* one 5 s outlier */
	cr_expect_eq(stg_histo_percentile(h, 50), 7);
	cr_expect_eq(stg_histo_percentile(h, 99.9), 7);
	expect_close(stg_histo_percentile(h, 99.95), 5000000000ull, "tail");
	stg_histo_record(h, UINT64_MAX);      /* the last bucket holds it */
	cr_expect_eq(stg_histo_percentile(h, 100), UINT64_MAX);
	free(h);
}

FR_TEST(backend_histo, merge_equals_one_histogram)
{
	struct stg_histo *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct stg_histo *all = malloc(sizeof(*all));

	stg_histo_init(a);
	stg_histo_init(b);
	stg_histo_init(all);
	for (uint64_t v = 1000; v < 2000000; v += 997) {
		stg_histo_record((v / 997) % 2 ? a : b, v);
		stg_histo_record(all, v);
	}
	stg_histo_merge(a, b);
	cr_expect_eq(a->count, all->count);
	cr_expect_eq(a->sum, all->sum);
	cr_expect_eq(a->min, all->min);
	cr_expect_eq(a->max, all->max);
	cr_expect_arr_eq(a->bucket, all->bucket, sizeof(a->bucket));
	cr_expect_eq(stg_histo_percentile(a, 99), stg_histo_percentile(all, 99));
	free(a);
	free(b);
	free(all);
}

FR_TEST(backend_histo, empty_histogram_reports_zero)
{
	struct stg_histo *h = malloc(sizeof(*h));

	stg_histo_init(h);
	cr_expect_eq(stg_histo_percentile(h, 50), 0);
	cr_expect_eq(stg_histo_percentile(h, 100), 0);
	cr_expect_float_eq(stg_histo_mean(h), 0.0, 1e-12);
	free(h);
}
