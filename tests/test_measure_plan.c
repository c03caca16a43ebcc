/*
 * test_measure_plan.c - the sweep's plan (measure/): the budget rule
 * (confirmation runs reserved first, then equal shares, points dropped
 * from the largest vCPU count down, one point always kept) and the size
 * of a --ram point's dataset sample (fewer files, never fewer epochs).
 */
#include "harness.h"
#include "measure.h"

static void plan_grid(struct ms_plan_point *p, const unsigned *v, size_t nv,
		      unsigned ncache)
{
	size_t k = 0;

	for (size_t i = 0; i < nv; i++)
		for (unsigned c = 0; c < ncache; c++) {
			p[k].vcpus = v[i];
			p[k].cache = c;
			p[k].dropped = false;
			k++;
		}
}

FR_TEST(measure_plan, everything_fits_in_equal_shares)
{
	const unsigned v[] = { 1, 2 };
	struct ms_plan_point p[6];
	unsigned kept;
	double share;

	plan_grid(p, v, 2, 3);
	share = ms_plan_budget(p, 6, 6, 12, 300, MS_MIN_POINT_S, &kept);
	cr_assert_eq(kept, 6);
	cr_assert_float_eq(share, (300 - 6 * 12) / 6.0, 1e-9);
	for (int i = 0; i < 6; i++)
		cr_assert(!p[i].dropped);
}

FR_TEST(measure_plan, checks_go_before_any_point)
{
	const unsigned v[] = { 1, 2 };
	struct ms_plan_point p[6];
	unsigned kept;
	double share;

	plan_grid(p, v, 2, 3);
	/* 6 x 8 = 48 s of points fit in 60 s, but not with 72 s of checks */
	share = ms_plan_budget(p, 6, 6, 12, 60, MS_MIN_POINT_S, &kept);
	cr_assert_eq(kept, 0);
	cr_assert_float_eq(share, 10.0, 1e-9);
	for (int i = 0; i < 6; i++)
		cr_assert(!p[i].dropped);
}

FR_TEST(measure_plan, points_drop_from_the_largest_vcpu_count_down)
{
	const unsigned v[] = { 1, 2, 4, 8 };
	struct ms_plan_point p[12];
	unsigned kept;
	double share;

	plan_grid(p, v, 4, 3);
	/* 50 s: 6 points of 8 s */
	share = ms_plan_budget(p, 12, 6, 12, 50, MS_MIN_POINT_S, &kept);
	cr_assert_eq(kept, 0);
	cr_assert_geq(share, MS_MIN_POINT_S);
	/* 8 and 4 vCPUs are gone, 1 and 2 stay */
	for (int i = 0; i < 12; i++)
		cr_assert_eq(p[i].dropped, p[i].vcpus >= 4, "point %d (%u/%u)",
			     i, p[i].vcpus, p[i].cache);

	/* 40 s: 5 points; at 2 vCPUs the later cache state goes first */
	plan_grid(p, v, 4, 3);
	ms_plan_budget(p, 12, 6, 12, 40, MS_MIN_POINT_S, &kept);
	for (int i = 0; i < 12; i++) {
		const bool want = p[i].vcpus >= 4 ||
				  (p[i].vcpus == 2 && p[i].cache == 2);

		cr_assert_eq(p[i].dropped, want, "point %d (%u/%u)", i,
			     p[i].vcpus, p[i].cache);
	}
}

FR_TEST(measure_plan, one_point_is_always_kept)
{
	const unsigned v[] = { 1, 2 };
	struct ms_plan_point p[4];
	unsigned kept;
	double share;

	plan_grid(p, v, 2, 2);
	share = ms_plan_budget(p, 4, 4, 12, 5, MS_MIN_POINT_S, &kept);
	cr_assert_float_eq(share, 5.0, 1e-9);
	cr_assert(!p[0].dropped);
	for (int i = 1; i < 4; i++)
		cr_assert(p[i].dropped);
	/* nothing left at all */
	for (int i = 0; i < 4; i++)
		p[i].dropped = true;
	cr_assert_float_eq(ms_plan_budget(p, 4, 4, 12, 100, 8, &kept), 0,
			   1e-9);
	cr_assert_eq(kept, 0);
}

FR_TEST(measure_plan, ram_sample_shrinks_files_not_epochs)
{
	/* 600 samples/s, 30 s window, 3 epochs: 600 x 30 / 3.3 = 5454 */
	cr_assert_eq(ms_ram_sample_files(100000, 600, 30, 3, 1024), 5454);
	/* everything fits */
	cr_assert_eq(ms_ram_sample_files(1000, 600, 30, 3, 1024), 1000);
	/* never below the floor, never above the dataset */
	cr_assert_eq(ms_ram_sample_files(100000, 10, 30, 3, 1024), 1024);
	cr_assert_eq(ms_ram_sample_files(500, 10, 30, 3, 1024), 500);
	/* no rate known: all files */
	cr_assert_eq(ms_ram_sample_files(100000, 0, 30, 3, 1024), 100000);
}
