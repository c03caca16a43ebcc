/*
 * test_judge_cluster.c - judge/cluster.c: a rank fed, the storage ceiling
 * at half the ranks, K nodes before storage-bound at and around the exact
 * ratio, scaling at 90 %, where a series turns storage-bound, the slowest
 * node against the median, every sample once per epoch.
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

FR_TEST(judge_cluster, every_sample_once_per_epoch)
{
	const struct ldr_digest want[] = { { 10, 45, 1 }, { 10, 45, 1 } };
	struct ldr_digest sums[] = { { 10, 45, 1 }, { 10, 45, 1 } };
	bool ok[] = { true, true };

	cr_assert_eq(jdg_once_bad_epochs(sums, want, ok, 2), 0);
	sums[1].sum = 46;       /* a sample read twice, another never */
	cr_assert_eq(jdg_once_bad_epochs(sums, want, ok, 2), 1);
	cr_assert_eq(jdg_once_bad_epochs(sums, want, ok, 1), 0,
		     "only the epochs checked count");
	sums[1].sum = 45;
	ok[0] = false;          /* the sampler's digest could not be made */
	cr_assert_eq(jdg_once_bad_epochs(sums, want, ok, 2), 1);
}
