/*
 * test_lru_sim.c - the LRU estimate of the page-cache hit ratio, against
 * cases worked out by hand and the analytic ratio of shuffled epochs.
 *
 * Shuffled epochs, cache holding a fraction f of N equal files, LRU: at
 * the end of an epoch the cache holds the last fN files read. A file read
 * at position x (0..1) of the next epoch, and at position 1 - u of the
 * previous one, is still cached when fewer than fN distinct files were
 * read in between: u + x - ux < f (the two orders are independent, so a
 * share ux of the files counts twice). Over u, x uniform on [0, 1]:
 *   P(hit) = integral_0^f (f - x) / (1 - x) dx = f + (1 - f) ln(1 - f),
 * 0.1605 for f = 0.51. The spread of one epoch's ratio over N files is
 * about sqrt(p (1 - p) / N): 0.0026 for N = 20000; the tests allow 0.015
 * per epoch (more than 5 sigma, plus the O(1/N) edge effects).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "loader.h"
#include "verdict.h"    /* rpt_lru_hit_model: the model the RAM verdict uses */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle(uint32_t *order, size_t n, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(splitmix(rng) % (i + 1));
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
}

/* Byte hit ratio of one pass over ORDER. */
static double epoch(struct ldr_lru_sim *s, const uint32_t *order, size_t n,
		    const uint64_t *size)
{
	struct ldr_lru_stats st;

	ldr_lru_sim_reset_stats(s);
	for (size_t i = 0; i < n; i++)
		ldr_lru_sim_access(s, order[i], size[order[i]]);
	ldr_lru_sim_stats(s, &st);
	cr_assert_eq(st.accesses, n);
	return ldr_lru_stats_ratio(&st);
}

FR_TEST(lru_sim, cache_larger_than_dataset_misses_once_then_always_hits)
{
	enum { N = 5000 };
	static uint32_t order[N];
	static uint64_t size[N];
	uint64_t rng = 1, total = 0;
	struct ldr_lru_sim *s;
	double r;

	for (size_t i = 0; i < N; i++)
		total += size[i] = 1000 + splitmix(&rng) % 200000;
	cr_assert_eq(ldr_lru_sim_create(N, total, &s), 0);
	shuffle(order, N, &rng);
	r = epoch(s, order, N, size);
	cr_assert_float_eq(r, 0.0, 1e-12);
	for (int e = 0; e < 3; e++) {
		shuffle(order, N, &rng);
		r = epoch(s, order, N, size);
		cr_assert_float_eq(r, 1.0, 1e-12, "epoch %d", e + 1);
	}
	ldr_lru_sim_destroy(s);
}

FR_TEST(lru_sim, cyclic_scan_larger_than_cache_never_hits)
{
	enum { N = 1000 };
	static uint32_t order[N];
	static uint64_t size[N];
	struct ldr_lru_sim *s;

	for (size_t i = 0; i < N; i++) {
		order[i] = (uint32_t)i;
		size[i] = 4096;
	}
	/* 99.9 % of the dataset fits, and still nothing hits */
	cr_assert_eq(ldr_lru_sim_create(N, (N - 1) * 4096ull, &s), 0);
	for (int e = 0; e < 4; e++) {
		double r = epoch(s, order, N, size);

		/* (an assertion macro may evaluate its argument twice) */
		cr_assert_float_eq(r, 0.0, 1e-12, "epoch %d", e);
	}
	ldr_lru_sim_destroy(s);
}

FR_TEST(lru_sim, shuffled_epochs_with_51_percent_hit_about_16_percent)
{
	enum { N = 20000, SEEDS = 5 };
	static uint32_t order[N];
	static uint64_t size[N];
	const double f = 0.51, expect = f + (1 - f) * log(1 - f);
	double sum = 0;

	for (size_t i = 0; i < N; i++)
		size[i] = 110 * 1024;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct ldr_lru_sim *s;
		uint64_t rng = seed;
		double r1, r2, r3;

		cr_assert_eq(ldr_lru_sim_create(N, (uint64_t)(f * N) * size[0],
						&s), 0);
		shuffle(order, N, &rng);
		r1 = epoch(s, order, N, size);
		shuffle(order, N, &rng);
		r2 = epoch(s, order, N, size);
		shuffle(order, N, &rng);
		r3 = epoch(s, order, N, size);
		cr_assert_float_eq(r1, 0.0, 1e-12);
		cr_assert_float_eq(r2, expect, 0.015, "seed %llu: %.4f vs %.4f",
				   (unsigned long long)seed, r2, expect);
		/* the steady state: every later epoch looks the same */
		cr_assert_float_eq(r3, expect, 0.015, "seed %llu: %.4f",
				   (unsigned long long)seed, r3);
		sum += r2;
		ldr_lru_sim_destroy(s);
	}
	cr_assert_float_eq(sum / SEEDS, expect, 0.006);
	cr_assert_lt(sum / SEEDS, 0.2, "far below the 51 %% that fits");
	cr_log_info("LRU, 51 %% cache, shuffled: %.4f per epoch (analytic "
		    "%.4f)", sum / SEEDS, expect);
}

FR_TEST(lru_sim, ratio_is_by_bytes_and_evicts_least_recent_first)
{
	struct ldr_lru_sim *s;
	struct ldr_lru_stats st;

	/* cache 100 bytes; files 0:60, 1:30, 2:20 */
	cr_assert_eq(ldr_lru_sim_create(3, 100, &s), 0);
	cr_assert_not(ldr_lru_sim_access(s, 0, 60));
	cr_assert_not(ldr_lru_sim_access(s, 1, 30));
	cr_assert(ldr_lru_sim_access(s, 0, 60));        /* 0 now most recent */
	cr_assert_not(ldr_lru_sim_access(s, 2, 20));    /* evicts 1 (LRU) */
	cr_assert(ldr_lru_sim_access(s, 0, 60));
	cr_assert_not(ldr_lru_sim_access(s, 1, 30));    /* was evicted */
	ldr_lru_sim_stats(s, &st);
	cr_assert_eq(st.accesses, 6);
	cr_assert_eq(st.hits, 2);
	cr_assert_eq(st.bytes, 260);
	cr_assert_eq(st.hit_bytes, 120);
	cr_assert_float_eq(ldr_lru_stats_ratio(&st), 120.0 / 260.0, 1e-12);
	/* 1 came in, 2 (least recent) went out: 60 + 30 */
	cr_assert_eq(st.cached_bytes, 90);
	ldr_lru_sim_reset_stats(s);
	ldr_lru_sim_stats(s, &st);
	cr_assert_eq(st.accesses, 0);
	cr_assert_eq(st.cached_bytes, 90, "a reset keeps the cache");
	cr_assert_float_eq(ldr_lru_stats_ratio(&st), 0.0, 1e-12);
	ldr_lru_sim_destroy(s);
}

FR_TEST(lru_sim, file_larger_than_cache_misses_and_flushes_it)
{
	struct ldr_lru_sim *s;
	struct ldr_lru_stats st;

	cr_assert_eq(ldr_lru_sim_create(3, 100, &s), 0);
	ldr_lru_sim_access(s, 0, 40);
	ldr_lru_sim_access(s, 1, 40);
	cr_assert_not(ldr_lru_sim_access(s, 2, 150));
	cr_assert_not(ldr_lru_sim_access(s, 2, 150));
	cr_assert_not(ldr_lru_sim_access(s, 0, 40));
	ldr_lru_sim_stats(s, &st);
	cr_assert_eq(st.cached_bytes, 40);
	/* a file whose size changed is read again */
	cr_assert_not(ldr_lru_sim_access(s, 0, 41));
	cr_assert(ldr_lru_sim_access(s, 0, 41));
	/* out-of-range ids are ignored, not written */
	cr_assert_not(ldr_lru_sim_access(s, 3, 1));
	ldr_lru_sim_destroy(s);
	cr_assert_eq(ldr_lru_sim_create(0, 100, &s), -EINVAL);
	cr_assert_null(s);
	ldr_lru_sim_destroy(NULL);
}

/* A dataset listed with sizes: nothing on disk is needed. */
static struct stg_dataset *listed_dataset(char **dir, size_t n,
					  uint64_t size)
{
	char list[4096];
	struct stg_dataset *ds;
	FILE *f;

	*dir = fr_test_tmpdir();
	snprintf(list, sizeof(list), "%s/list", *dir);
	f = fopen(list, "w");
	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llu\tclass%zu/img%zu.jpg\n",
			(unsigned long long)size, i % 10, i);
	fclose(f);
	cr_assert_eq(stg_dataset_load_list(list, NULL, NULL, &ds), 0);
	cr_assert_eq(stg_dataset_count(ds), n);
	return ds;
}

FR_TEST(lru_estimate, replays_the_runs_sampler_order)
{
	static char *dir;
	const size_t n = 20000;
	const uint64_t size = 112 * 1024;       /* whole pages */
	struct stg_dataset *ds = listed_dataset(&dir, n, size);
	const double f = 0.51, expect = f + (1 - f) * log(1 - f);
	struct ldr_lru_estimate est, same, all;

	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 3,
					  (uint64_t)(f * (double)n) * size,
					  &est), 0);
	cr_assert_eq(est.epochs, 3);
	cr_assert_float_eq(est.first_epoch, 0.0, 1e-12);
	cr_assert_float_eq(est.steady, expect, 0.012, "steady %.4f vs %.4f",
			   est.steady, expect);
	cr_assert_float_eq(est.last_epoch, expect, 0.015);
	/* deterministic in the seed, like the run */
	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 3,
					  (uint64_t)(f * (double)n) * size,
					  &same), 0);
	cr_assert_float_eq(same.steady, est.steady, 0.0);
	/* a cache for everything: 1 after the first epoch */
	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 2, n * size,
					  &all), 0);
	cr_assert_float_eq(all.steady, 1.0, 1e-12);
	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 1, n * size,
					  &all), -EINVAL, "one epoch has no "
		     "steady state");
	cr_log_info("LRU estimate over the sampler: steady %.4f (analytic "
		    "%.4f)", est.steady, expect);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

/* Files smaller than a page take a whole page of the cache each: a
 * cache of 51 % of 1,400-byte files' bytes holds 17 % of the files, and
 * hits what that share hits, not what 51 % would. */
FR_TEST(lru_estimate, a_small_file_takes_a_whole_page_of_the_cache)
{
	static char *dir;
	const size_t n = 20000;
	const uint64_t size = 1400;
	struct stg_dataset *ds = listed_dataset(&dir, n, size);
	const double f = 0.51 * 1400 / 4096, expect = f + (1 - f) * log(1 - f);
	struct ldr_lru_estimate est, all;

	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 3,
					  (uint64_t)(0.51 * (double)n) * size,
					  &est), 0);
	cr_expect_float_eq(est.steady, expect, 0.012, "steady %.4f vs %.4f",
			   est.steady, expect);
	cr_expect_lt(est.steady, 0.05, "far below the 16 %% of 51 %%");
	/* every file's page fits: all hit after the first epoch */
	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 2, n * 4096,
					  &all), 0);
	cr_expect_float_eq(all.steady, 1.0, 1e-12);
	cr_assert_eq(ldr_lru_estimate_run(ds, 42, 0, 1, false, 2,
					  n * 4096 - 4096, &all), 0);
	cr_expect_lt(all.steady, 1.0, "one page short of them all");
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}

/*
 * The RAM verdict's model (rpt_lru_hit_model) against this simulator
 * over the cached fractions a RAM axis measures, the steep end included:
 * the mean of epochs 2 and 3 over 3 seeds, each epoch within 0.015.
 */
FR_TEST(lru_sim, verdict_model_matches_the_simulation_from_5_to_95_percent)
{
	enum { N = 20000, SEEDS = 3 };
	static const double fr[] = { 0.05, 0.25, 0.5, 0.75, 0.9, 0.95 };
	static uint32_t order[N];
	static uint64_t size[N];

	for (size_t i = 0; i < N; i++)
		size[i] = 64 * 1024;
	for (size_t k = 0; k < sizeof(fr) / sizeof(fr[0]); k++) {
		const double model = rpt_lru_hit_model(fr[k]);
		double sum = 0;

		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			struct ldr_lru_sim *s;
			uint64_t rng = seed * 7919;

			cr_assert_eq(ldr_lru_sim_create(N, (uint64_t)(fr[k] *
				     N) * size[0], &s), 0);
			shuffle(order, N, &rng);
			epoch(s, order, N, size);
			for (int e = 0; e < 2; e++) {
				double r;

				shuffle(order, N, &rng);
				r = epoch(s, order, N, size);
				cr_assert_float_eq(r, model, 0.015, "f %.2f "
						   "seed %llu: %.4f vs model "
						   "%.4f", fr[k],
						   (unsigned long long)seed, r,
						   model);
				sum += r;
			}
			ldr_lru_sim_destroy(s);
		}
		cr_assert_float_eq(sum / (2 * SEEDS), model, 0.006, "f %.2f",
				   fr[k]);
		cr_log_info("f %.2f: simulated %.4f, model %.4f", fr[k],
			    sum / (2 * SEEDS), model);
	}
}
