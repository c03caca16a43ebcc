/*
 * test_engine_cluster.c - what the engine gives a rank of a multi-node
 * run over one-file samples: a window that opens at a wall-clock time
 * (start_realtime), and per-epoch digests of the sample ids read that
 * add up, over the ranks of a world, to ldr_digest_expected (every
 * sample once per epoch, plus DistributedSampler's padding). The ranks
 * run one after another here; shards split by rank: test_engine_shards.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "loader.h"

/* A listing of N files for the null backend (nothing on disk). */
struct listing {
	char *dir;
	struct stg_dataset *ds;
};

static void listing_make(struct listing *l, uint64_t n)
{
	char path[4096];
	FILE *fp;

	l->dir = fr_test_tmpdir();
	snprintf(path, sizeof(path), "%s/list.txt", l->dir);
	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	for (uint64_t i = 0; i < n; i++)
		fprintf(fp, "%lu\tf%07lu\n", (unsigned long)(100 + i % 900),
			(unsigned long)i);
	cr_assert_eq(fclose(fp), 0);
	cr_assert_eq(stg_dataset_load_list(path, l->dir, NULL, &l->ds), 0);
	cr_assert_eq(stg_dataset_count(l->ds), n);
}

static void listing_free(struct listing *l)
{
	stg_dataset_destroy(l->ds);
	fr_test_rmtree(l->dir);
}

static void config(struct ldr_config *cfg, const struct listing *l)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ds = l->ds;
	cfg->reader.backend = STG_BACKEND_NULL;
	cfg->reader.depth = 8;
	cfg->reader.max_sample_bytes = 1 << 20;
	cfg->transform = ldr_transform_noop_sized(64);
	cfg->readers = 2;       /* two readers' digests to merge */
	cfg->workers = 2;
	cfg->batch = 8;
	cfg->seed = 77;
	cfg->world = 1;
	cfg->warmup_s = -1;
}

static double realtime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the digest itself ---- */

FR_TEST(digest, merge_is_order_free_and_equal_sees_every_field)
{
	struct ldr_digest a = { 0 }, b = { 0 }, ab = { 0 }, ba = { 0 };

	ldr_digest_add(&a, 1);
	ldr_digest_add(&a, 2);
	ldr_digest_add(&b, 3);
	ldr_digest_merge(&ab, &a);
	ldr_digest_merge(&ab, &b);
	ldr_digest_merge(&ba, &b);
	ldr_digest_merge(&ba, &a);
	cr_assert(ldr_digest_equal(&ab, &ba));
	cr_assert_eq(ab.count, 3);
	/* the same count, other ids */
	{
		struct ldr_digest c = { 0 };

		ldr_digest_add(&c, 1);
		ldr_digest_add(&c, 2);
		ldr_digest_add(&c, 4);
		cr_assert_not(ldr_digest_equal(&ab, &c));
	}
	/* id 0 still moves the sum and the xor */
	{
		struct ldr_digest z = { 0 };

		ldr_digest_add(&z, 0);
		cr_assert_neq(z.sum, 0);
		cr_assert_neq(z.xor_, 0);
	}
}

FR_TEST(digest, expected_of_one_rank_is_every_id_once)
{
	struct ldr_digest files, shards, padded, kept;

	/* one rank: a permutation of 0..n-1, like n records */
	cr_assert_eq(ldr_digest_expected(101, 5, 3, 1, false, false, &files),
		     0);
	cr_assert_eq(ldr_digest_expected(101, 0, 0, 1, false, true, &shards),
		     0);
	cr_assert(ldr_digest_equal(&files, &shards));
	/* world 4 pads 101 to 104, drop_last keeps 100 */
	cr_assert_eq(ldr_digest_expected(101, 5, 3, 4, false, false, &padded),
		     0);
	cr_assert_eq(padded.count, 104);
	cr_assert_eq(ldr_digest_expected(101, 5, 3, 4, true, false, &kept), 0);
	cr_assert_eq(kept.count, 100);
	cr_assert_eq(ldr_digest_expected(101, 5, 3, 0, false, false, &kept),
		     -EINVAL);
}

/* ---- digests of runs ---- */

FR_TEST(engine_digest, a_rank_digests_each_complete_epoch)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_config cfg;
	struct listing l;

	cr_assert_not_null(res);
	listing_make(&l, 53);
	config(&cfg, &l);
	cfg.epochs = 2;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_eq(res->epochs_done, 2);
	cr_assert_eq(res->digest_epochs, 2);
	for (unsigned e = 0; e < 2; e++) {
		struct ldr_digest want;

		cr_assert_eq(ldr_digest_expected(53, cfg.seed, e, 1, false,
						 false, &want), 0);
		cr_assert(ldr_digest_equal(&res->epoch_digest[e], &want),
			  "epoch %u: count %lu, want %lu", e,
			  (unsigned long)res->epoch_digest[e].count,
			  (unsigned long)want.count);
	}
	/* no third epoch was read */
	cr_assert_eq(res->epoch_digest[2].count, 0);
	listing_free(&l);
	free(res);
}

/* Ranks 0..WORLD-1 of N files, one after another: their digests of each
 * of 3 epochs merge to the expected one. */
static void ranks_add_up(uint64_t n, unsigned world, bool drop_last)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_digest sum[3] = { { 0 } };
	uint64_t samples = 0;
	struct ldr_config cfg;
	struct listing l;

	cr_assert_not_null(res);
	listing_make(&l, n);
	for (unsigned r = 0; r < world; r++) {
		config(&cfg, &l);
		cfg.rank = r;
		cfg.world = world;
		cfg.drop_last = drop_last;
		cfg.epochs = 3;
		cr_assert_eq(ldr_run(&cfg, res), 0, "rank %u", r);
		cr_assert_eq(res->digest_epochs, 3, "rank %u", r);
		samples += res->samples + res->samples_failed;
		for (unsigned e = 0; e < 3; e++)
			ldr_digest_merge(&sum[e], &res->epoch_digest[e]);
	}
	for (unsigned e = 0; e < 3; e++) {
		struct ldr_digest want;

		cr_assert_eq(ldr_digest_expected(n, cfg.seed, e, world,
						 drop_last, false, &want), 0);
		cr_assert(ldr_digest_equal(&sum[e], &want), "world %u, epoch "
			  "%u: %lu ids, want %lu", world, e,
			  (unsigned long)sum[e].count,
			  (unsigned long)want.count);
	}
	cr_assert_eq(samples, 3 * sum[0].count);
	listing_free(&l);
	free(res);
}

FR_TEST(engine_digest, two_ranks_add_up_to_every_sample_plus_the_padding)
{
	struct ldr_digest plain;

	ranks_add_up(101, 2, false);
	/* the padding shows: the cluster read one id twice */
	cr_assert_eq(ldr_digest_expected(101, 77, 0, 2, false, false, &plain),
		     0);
	cr_assert_eq(plain.count, 102);
}

FR_TEST(engine_digest, three_ranks_with_drop_last_add_up_to_the_kept_ones)
{
	ranks_add_up(101, 3, true);
}

FR_TEST(engine_digest, more_ranks_than_files_is_no_data_with_a_reason)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_config cfg;
	struct listing l;

	cr_assert_not_null(res);
	listing_make(&l, 3);
	config(&cfg, &l);
	cfg.rank = 3;
	cfg.world = 4;
	cfg.drop_last = true;
	cfg.epochs = 1;
	cr_assert_eq(ldr_run(&cfg, res), -ENODATA);
	cr_assert(strstr(res->bottleneck_why, "rank 3 of 4") != NULL, "%s",
		  res->bottleneck_why);
	listing_free(&l);
	free(res);
}

/* ---- window alignment ---- */

FR_TEST(engine_align, the_window_opens_at_the_asked_wall_clock_time)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_config cfg;
	struct listing l;
	double t;

	cr_assert_not_null(res);
	listing_make(&l, 64);
	config(&cfg, &l);
	cfg.warmup_s = 0.1;     /* ignored: the start time rules */
	cfg.duration_s = 0.3;
	t = realtime_now() + 1.0;
	cfg.start_realtime = t;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	/* not before it (the gate), and not far after (a generous bound:
	 * not a timing assertion) */
	cr_assert_geq(res->window_start_realtime, t - 0.01, "window opened "
		      "%.3f s before the start", t - res->window_start_realtime);
	cr_assert_lt(res->window_start_realtime - t, 0.5);
	cr_assert_lt(res->start_late_s, 0.5);
	cr_assert_geq(res->start_late_s, 0);
	cr_assert_gt(res->window_end_realtime, res->window_start_realtime);
	/* the pipeline ran before it, as its warm-up */
	cr_assert_gt(res->warmup_s, 0.5);
	cr_assert_not(res->warmup_incomplete);
	listing_free(&l);
	free(res);
}

FR_TEST(engine_align, a_start_already_past_opens_at_once_and_says_how_late)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_config cfg;
	struct listing l;
	double t;

	cr_assert_not_null(res);
	listing_make(&l, 64);
	config(&cfg, &l);
	cfg.warmup_s = 0;       /* the default warm-up is not waited for */
	cfg.duration_s = 0.2;
	t = realtime_now() - 2.0;
	cfg.start_realtime = t;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	cr_assert_gt(res->start_late_s, 0);
	cr_assert_geq(res->start_late_s, 2.0);
	cr_assert_eq(res->warmup_s, 0);
	cr_assert_geq(res->window_start_realtime, t);
	listing_free(&l);
	free(res);
}

FR_TEST(engine_align, an_unaligned_run_still_says_its_window_in_wall_time)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	struct ldr_config cfg;
	struct listing l;
	double before = realtime_now(), after;

	cr_assert_not_null(res);
	listing_make(&l, 64);
	config(&cfg, &l);
	cfg.epochs = 1;
	cr_assert_eq(ldr_run(&cfg, res), 0);
	after = realtime_now();
	cr_assert_geq(res->window_start_realtime, before);
	cr_assert_leq(res->window_end_realtime, after);
	cr_assert_geq(res->window_end_realtime, res->window_start_realtime);
	cr_assert_eq(res->start_late_s, 0);
	listing_free(&l);
	free(res);
}
