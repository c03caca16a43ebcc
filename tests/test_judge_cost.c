/*
 * test_judge_cost.c - judge/ckpt.c and cost.c: checkpoint share,
 * shortest interval in a budget and spot loss, judged with the default
 * budget and steps; cost per million samples and per epoch, the state
 * priced, the GPU cap, and the cheapest that feeds with ties. Made-up
 * figures, expected values worked by hand.
 */
#include <math.h>

#include "harness.h"
#include "judge.h"

FR_TEST(judge_ckpt, share_interval_and_spot_loss)
{
	cr_assert_float_eq(jdg_ckpt_share(5, 95), 0.05, 1e-12);
	cr_assert_float_eq(jdg_ckpt_share(5, 0), -1, 1e-15);
	cr_assert_float_eq(jdg_ckpt_min_interval(5, 0.05), 95, 1e-9);
	cr_assert_float_eq(jdg_ckpt_min_interval(5, 1), -1, 1e-15);
	cr_assert_float_eq(jdg_ckpt_min_interval(5, 0), -1, 1e-15);
	/* I = 100, S = 0: half the interval on average */
	cr_assert_float_eq(jdg_ckpt_lost(0, 100), 50, 1e-12);
	/* I = 100, S = 100: (5000 + 10000) / 200 */
	cr_assert_float_eq(jdg_ckpt_lost(100, 100), 75, 1e-12);
	cr_assert_float_eq(jdg_ckpt_lost(10, 0), -1, 1e-15);
}

FR_TEST(judge_ckpt, judged_with_default_budget_and_steps)
{
	const struct jdg_ckpt_in in = { .save_s = 5, .step_s = 0.4,
		.interval_s = 45, .demand_total = 1000,
		.epoch_samples = 1e6 };
	struct jdg_ckpt out;

	jdg_ckpt_judge(&in, &out);
	cr_assert_float_eq(out.budget, JDG_CKPT_DEFAULT_BUDGET, 1e-15);
	cr_assert_float_eq(out.min_interval_s, 95, 1e-9);
	cr_assert_float_eq(out.min_interval_steps, 238, 1e-9, "ceil(237.5)");
	cr_assert_float_eq(out.share_at_interval, 0.1, 1e-12);
	cr_assert_float_eq(out.epoch_s, 1000, 1e-9);
	cr_assert_float_eq(out.share_per_epoch, 5.0 / 1005, 1e-12);
}

FR_TEST(judge_cost, per_msample_and_epoch)
{
	/* 3.6 USD/h at 1000/s: 1e-6 USD a sample, 1 USD a million */
	cr_assert_float_eq(jdg_cost_per_msample(3.6, 1000), 1, 1e-12);
	cr_assert_float_eq(jdg_cost_per_msample(0, 1000), 0, 1e-15);
	cr_assert_float_eq(jdg_cost_per_msample(3.6, 0), -1, 1e-15);
	cr_assert_float_eq(jdg_cost_per_msample(INFINITY, 1), -1, 1e-15);
	cr_assert_float_eq(jdg_cost_per_epoch(3.6, 1000, 3.6e6), 3.6, 1e-12);
	cr_assert_float_eq(jdg_cost_per_epoch(3.6, 1000, 0), -1, 1e-15);
}

FR_TEST(judge_cost, state_priced_is_the_slowest_measured)
{
	const bool have[] = { true, true, false };
	const double sps[] = { 500, 400, 10 };
	const bool tie_have[] = { true, true, true };
	const double tie[] = { 300, 300, 900 };
	const bool none[] = { false, false, false };

	cr_assert_eq(jdg_cost_state(-1, have, sps, 3), 1);
	cr_assert_eq(jdg_cost_state(-1, tie_have, tie, 3), 0, "tie: first");
	cr_assert_eq(jdg_cost_state(0, have, sps, 3), 0);
	cr_assert_eq(jdg_cost_state(2, have, sps, 3), -1, "not measured");
	cr_assert_eq(jdg_cost_state(3, have, sps, 3), -1);
	cr_assert_eq(jdg_cost_state(-1, none, sps, 3), -1);
}

FR_TEST(judge_cost, feed_capped_by_demand)
{
	bool capped;

	cr_assert_float_eq(jdg_cost_feed(5000, 4000, &capped), 4000, 1e-12);
	cr_assert(capped);
	cr_assert_float_eq(jdg_cost_feed(4000, 4000, &capped), 4000, 1e-12);
	cr_assert_not(capped, "equal: the measured rate stands");
	cr_assert_float_eq(jdg_cost_feed(3000, 0, &capped), 3000, 1e-12);
	cr_assert_not(capped);
}

FR_TEST(judge_cost, cheapest_that_feeds_first_on_a_tie)
{
	cr_assert(jdg_cost_cheaper(true, true, 2, -1));
	cr_assert(jdg_cost_cheaper(true, true, 1.5, 2));
	cr_assert_not(jdg_cost_cheaper(true, true, 2, 2), "a tie: first stays");
	cr_assert_not(jdg_cost_cheaper(true, false, 0.1, 2), "does not feed");
	cr_assert_not(jdg_cost_cheaper(false, true, 0.1, 2), "not priced");
	cr_assert_not(jdg_cost_cheaper(true, true, -1, -1), "unknown cost");
	cr_assert(jdg_cost_cheaper(true, true, 0, 2), "free is cheapest");
}
