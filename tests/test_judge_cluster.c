/*
 * test_judge_cluster.c - judge/cluster.c, ckpt.c and cost.c: a rank fed,
 * the storage ceiling at half the ranks, K nodes before storage-bound at
 * and around the exact ratio, scaling at 90 %, where a series turns
 * storage-bound; checkpoint share, interval and spot loss; cost, the
 * state priced, the GPU cap, and the cheapest that feeds with ties.
 */
#include <math.h>

#include "harness.h"
#include "judge.h"

FR_TEST(judge_cluster, rank_fed_needs_a_known_au)
{
	cr_assert(jdg_rank_fed(0.9, 0.9));
	cr_assert_not(jdg_rank_fed(-1, 0.9));
	cr_assert_not(jdg_rank_fed(0.89, 0.9));
}

FR_TEST(judge_cluster, storage_ceiling_at_half_the_ranks)
{
	cr_assert(jdg_cluster_storage_ceiling(true, 4, 2));
	cr_assert_not(jdg_cluster_storage_ceiling(true, 5, 2));
	cr_assert_not(jdg_cluster_storage_ceiling(false, 4, 4));
	cr_assert_not(jdg_cluster_storage_ceiling(true, 0, 0));
	cr_assert(jdg_storage_bound(3, 2));
	cr_assert_not(jdg_storage_bound(0, 0));
}

FR_TEST(judge_cluster, k_nodes_before_storage_bound)
{
	/* 8 GPUs per node at 1000 samples/s of 100 kB: 800 MB/s a node */
	const double need = jdg_node_needs_bytes(1, 8, 1000, 100e3);

	cr_assert_float_eq(need, 800e6, 1e-3);
	cr_assert_eq(jdg_nodes_before_storage_bound(2400e6, need), 3,
		     "exactly 3 nodes");
	cr_assert_eq(jdg_nodes_before_storage_bound(2399e6, need), 2);
	cr_assert_eq(jdg_nodes_before_storage_bound(700e6, need), 0);
	cr_assert_eq(jdg_nodes_before_storage_bound(-1, need), -1);
	cr_assert_eq(jdg_nodes_before_storage_bound(1e9, 0), -1);
	cr_assert_eq(jdg_nodes_before_storage_bound(1e30, 1), 1000000000);
	cr_assert_float_eq(jdg_node_needs_bytes(1, 8, 0, 100e3), 0, 1e-15);
}

FR_TEST(judge_cluster, scaling_at_ninety_percent)
{
	cr_assert_float_eq(jdg_efficiency(360, 4, 100), 0.9, 1e-12);
	cr_assert(jdg_scales(jdg_efficiency(360, 4, 100)));
	cr_assert_not(jdg_scales(jdg_efficiency(359, 4, 100)));
	cr_assert_float_eq(jdg_efficiency(360, 4, -1), -1, 1e-15);
	cr_assert_float_eq(jdg_efficiency(-1, 4, 100), -1, 1e-15);
	cr_assert_not(jdg_scales(-1));
}

FR_TEST(judge_cluster, storage_bound_from_the_last_unbroken_run)
{
	const unsigned ranks[] = { 1, 2, 4, 8, 16 };
	const bool b1[] = { false, true, false, true, true };
	const bool b2[] = { true, true, true, true, true };
	const bool b3[] = { true, true, true, true, false };

	cr_assert_eq(jdg_storage_bound_from(b1, ranks, 5), 8);
	cr_assert_eq(jdg_storage_bound_from(b2, ranks, 5), 1);
	cr_assert_eq(jdg_storage_bound_from(b3, ranks, 5), -1,
		     "not bound at the most ranks: never");
	cr_assert_eq(jdg_storage_bound_from(b3, ranks, 0), -1);
}

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

FR_TEST(judge_cluster, slowest_node_against_the_median)
{
	double odd[] = { 100, 80, 120 };
	double even[] = { 100, 50, 100, 150 };
	double tie[] = { 90, 90 };
	double one[] = { 42 };
	double zero[] = { 0, 0, 0 };
	double below = -7;

	cr_assert_eq(jdg_slowest(odd, 3, &below), 1);
	cr_assert_float_eq(below, 0.2, 1e-12, "median 100, slowest 80");
	cr_assert_eq(jdg_slowest(even, 4, &below), 1);
	cr_assert_float_eq(below, 0.5, 1e-12, "median (100 + 100) / 2");
	cr_assert_eq(jdg_slowest(tie, 2, &below), 0, "first on a tie");
	cr_assert_float_eq(below, 0, 1e-15);
	below = -7;
	cr_assert_eq(jdg_slowest(one, 1, &below), -1);
	cr_assert_float_eq(below, -7, 1e-15, "left alone");
	cr_assert_eq(jdg_slowest(zero, 3, &below), 0);
	cr_assert_float_eq(below, 0, 1e-15, "median 0: nothing below it");
}
