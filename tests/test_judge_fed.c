/*
 * test_judge_fed.c - judge/'s fed rule (one tolerance, exactly at the
 * threshold and either side of it), the threshold default, GPUs fed at
 * and around T x demand, and the judgement of one run (too short by the
 * warm-up or by batches, the batch floor), a point's window and a cold
 * point's hit ratio at their edges. Made-up figures throughout.
 */
#include <math.h>

#include "harness.h"
#include "judge.h"

FR_TEST(judge_fed, threshold_defaults_when_not_positive)
{
	cr_assert_float_eq(jdg_threshold(0), LDR_DEFAULT_AU_THRESHOLD, 1e-15);
	cr_assert_float_eq(jdg_threshold(-0.5), LDR_DEFAULT_AU_THRESHOLD,
			   1e-15);
	cr_assert_float_eq(jdg_threshold(0.7), 0.7, 1e-15);
}

FR_TEST(judge_fed, fed_exactly_at_threshold_and_within_tolerance)
{
	cr_assert(jdg_fed(0.9, 0.9));
	cr_assert(jdg_fed(0.9 - 0.5e-12, 0.9), "within the 1e-12 slack");
	cr_assert(jdg_fed(0.95, 0.9));
	cr_assert(jdg_fed(1.0, 0.9));
}

FR_TEST(judge_fed, not_fed_just_below_the_tolerance)
{
	cr_assert_not(jdg_fed(0.9 - 2e-12, 0.9));
	cr_assert_not(jdg_fed(0.899, 0.9));
	cr_assert_not(jdg_fed(NAN, 0.9));
	cr_assert_not(jdg_fed(0, 0.7));
}

FR_TEST(judge_fed, engine_and_judge_share_the_rule)
{
	/* the engine's header-only rule is the one judge exports */
	const double au[] = { 0.9, 0.9 - 0.5e-12, 0.9 - 2e-12, 0.5, 1 };

	for (size_t i = 0; i < sizeof(au) / sizeof(au[0]); i++)
		cr_assert_eq(ldr_au_fed(au[i], 0.9), jdg_fed(au[i], 0.9),
			     "au %.15f", au[i]);
}

FR_TEST(judge_fed, gpus_fed_at_and_around_t_times_demand)
{
	/* 1000 samples/s per GPU at 90 %: 900 each */
	cr_assert_eq(jdg_gpus_fed(900, 1000, 0.9), 1);
	cr_assert_eq(jdg_gpus_fed(899.999, 1000, 0.9), 0);
	cr_assert_eq(jdg_gpus_fed(1800, 1000, 0.9), 2);
	cr_assert_eq(jdg_gpus_fed(2699.9, 1000, 0.9), 2);
	cr_assert_eq(jdg_gpus_fed(2700, 1000, 0.9), 3);
	/* 7 x 0.7 x 100 = 490, not exact in binary: the slack counts it */
	cr_assert_eq(jdg_gpus_fed(490, 100, 0.7), 7);
}

FR_TEST(judge_fed, gpus_fed_zero_or_capped_for_odd_figures)
{
	cr_assert_eq(jdg_gpus_fed(1000, 0, 0.9), 0);
	cr_assert_eq(jdg_gpus_fed(1000, -5, 0.9), 0);
	cr_assert_eq(jdg_gpus_fed(1000, 100, 0), 0);
	cr_assert_eq(jdg_gpus_fed(0, 100, 0.9), 0);
	cr_assert_eq(jdg_gpus_fed(NAN, 100, 0.9), 0);
	cr_assert_eq(jdg_gpus_fed(1000, NAN, 0.9), 0);
	cr_assert_eq(jdg_gpus_fed(1e15, 1, 0.9), JDG_GPUS_MAX);
	cr_assert_eq(jdg_gpus_fed(INFINITY, 1, 0.9), JDG_GPUS_MAX);
}

static struct jdg_run_in run_in(uint64_t batches, unsigned gpus)
{
	return (struct jdg_run_in){ .measured = true, .samples_per_s = 1800,
		.au = 0.95, .batches = batches, .batch = 32,
		.measured_s = 10, .gpu_count = gpus, .demand_per_gpu = 1000,
		.au_threshold = 0 };
}

FR_TEST(judge_fed, run_batch_floor_per_gpu)
{
	struct jdg_run_in in = run_in(8, 4);   /* 4 GPUs need 8 batches */
	struct jdg_run out;

	jdg_run_judge(&in, &out);
	cr_assert_eq(out.too_short, JDG_SHORT_NO);
	cr_assert_eq(out.need_batches, 8);
	cr_assert_eq(out.gpus_fed, 2);
	cr_assert(out.asked_fed);
	cr_assert_float_eq(out.au_threshold, LDR_DEFAULT_AU_THRESHOLD, 1e-15);
	in.batches = 7;
	jdg_run_judge(&in, &out);
	cr_assert_eq(out.too_short, JDG_SHORT_BATCHES);
	cr_assert_eq(out.gpus_fed, 0, "too short: no GPU count");
	cr_assert(out.asked_fed, "the measured AU is still reported");
}

FR_TEST(judge_fed, run_floor_of_two_without_gpus)
{
	struct jdg_run_in in = run_in(1, 0);
	struct jdg_run out;

	jdg_run_judge(&in, &out);
	cr_assert_eq(out.need_batches, JDG_RUN_MIN_BATCHES);
	cr_assert_eq(out.too_short, JDG_SHORT_BATCHES);
	cr_assert_not(out.asked_fed, "no GPUs asked");
	in.batches = 2;
	jdg_run_judge(&in, &out);
	cr_assert_eq(out.too_short, JDG_SHORT_NO);
	cr_assert_eq(out.gpus_fed, 2);
}

FR_TEST(judge_fed, run_warmup_and_nothing_measured)
{
	struct jdg_run_in in = run_in(100, 1);
	struct jdg_run out;

	in.warmup_incomplete = true;
	jdg_run_judge(&in, &out);
	cr_assert_eq(out.too_short, JDG_SHORT_WARMUP);
	cr_assert_eq(out.gpus_fed, 0);
	in = run_in(0, 1);
	jdg_run_judge(&in, &out);
	cr_assert_eq(out.too_short, JDG_SHORT_NO, "no batch: nothing to judge");
	cr_assert_eq(out.gpus_fed, 0);
	cr_assert_not(out.asked_fed);
}

FR_TEST(judge_fed, point_window_and_batches_at_their_edges)
{
	cr_assert_not(jdg_window_too_short(JDG_POINT_MIN_WINDOW_S,
					   JDG_POINT_MIN_BATCHES));
	cr_assert(jdg_window_too_short(0.999, 100));
	cr_assert(jdg_window_too_short(60, JDG_POINT_MIN_BATCHES - 1));
	cr_assert(jdg_window_too_short(NAN, 100) == false,
		  "an unknown window does not say too short by itself");
}

FR_TEST(judge_fed, cold_point_hit_ratio_edge)
{
	cr_assert_not(jdg_not_cold(JDG_COLD_HIT_MAX), "5 % exactly: cold");
	cr_assert(jdg_not_cold(0.0501));
	cr_assert_not(jdg_not_cold(-1), "unknown hit ratio: cold");
	cr_assert_not(jdg_not_cold(0));
}
