/*
 * test_measure_plan.c - the sweep's plan (measure/): the budget rule (the
 * points with all of the VM's vCPUs and their check runs first, the
 * preparation of each point's page cache reserved outside the shares,
 * intermediate vCPU counts dropped before the 1-vCPU points, the top
 * points dropped as too short rather than traded for fewer vCPUs), which
 * check run comes next (ms_check_next, on made-up AUs), the size of a
 * --ram point's dataset sample (fewer files, never fewer epochs; never so
 * few that its page cache cannot be held beside the run's own memory),
 * and the warm point's first estimate from a timed sample (real files).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "harness.h"
#include "measure.h"
#include "storage.h"

static void plan_grid(struct ms_plan_point *p, const unsigned *v, size_t nv,
		      unsigned ncache, double prep_s)
{
	size_t k = 0;

	for (size_t i = 0; i < nv; i++)
		for (unsigned c = 0; c < ncache; c++) {
			p[k] = (struct ms_plan_point){ .vcpus = v[i],
				.cache = c, .prep_s = prep_s };
			k++;
		}
}

static struct ms_budget budget(double left_s, unsigned nconfirm)
{
	return (struct ms_budget){ .left_s = left_s, .nconfirm = nconfirm,
		.confirm_s = MS_CONFIRM_S, .min_point_s = MS_MIN_POINT_S };
}

FR_TEST(measure_plan, everything_fits_in_equal_shares)
{
	const unsigned v[] = { 1, 2 };
	struct ms_plan_point p[6];
	struct ms_budget b = budget(300, 6);
	double share;

	plan_grid(p, v, 2, 3, 0);
	share = ms_plan_budget(p, 6, &b);
	cr_assert_eq(b.confirm_kept, 6);
	cr_assert_float_eq(share, (300 - 6 * MS_CONFIRM_S) / 6.0, 1e-9);
	cr_assert_float_eq(b.share, share, 1e-12);
	for (int i = 0; i < 6; i++)
		cr_assert(!p[i].dropped && p[i].kept);
}

FR_TEST(measure_plan, preparation_is_reserved_outside_the_shares)
{
	const unsigned v[] = { 1, 2 };
	struct ms_plan_point p[6];
	struct ms_budget b = budget(300, 6);
	double without;

	plan_grid(p, v, 2, 3, 0);
	without = ms_plan_budget(p, 6, &b);
	plan_grid(p, v, 2, 3, 5);
	b = budget(300, 6);
	ms_plan_budget(p, 6, &b);
	cr_assert_float_eq(b.prep_s, 30, 1e-9);
	cr_assert_float_eq(b.share, without - 5, 1e-9);
	/* a point's preparation counts when it is admitted: 6 x (8 + 5) +
	 * 72 = 150 s; at 140 s the last one admitted (1/warm) no longer
	 * fits */
	plan_grid(p, v, 2, 3, 5);
	b = budget(140, 6);
	ms_plan_budget(p, 6, &b);
	cr_assert_eq(b.confirm_kept, 6);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(p[i].dropped, i == 2, "point %d", i);
	cr_assert_not(p[2].too_short);
	cr_assert_float_eq(b.prep_s, 25, 1e-9);
	cr_assert_float_eq(b.share, (140 - 25 - 72) / 5.0, 1e-9);
}

/* 1, 2, 4, ..., 64, 96 vCPUs x cold, ram, warm: 24 points */
static const unsigned v96[] = { 1, 2, 4, 8, 16, 32, 64, 96 };
#define N96 (sizeof(v96) / sizeof(v96[0]) * 3)

/*
 * Is the kept set what the rule promises: every 96-vCPU point, and the
 * other points kept form a prefix of 1, 2, 4, ... (cold, ram, warm)?
 */
static void assert_kept_prefix(const struct ms_plan_point *p, double left)
{
	bool gap = false;

	for (size_t i = 0; i < N96; i++) {
		if (p[i].vcpus == 96) {
			cr_assert(p[i].kept && !p[i].dropped,
				  "%.0f s: 96/%u dropped", left, p[i].cache);
			continue;
		}
		if (!p[i].kept)
			gap = true;
		else
			cr_assert_not(gap, "%.0f s: %u/%u kept after a dropped "
				      "point of fewer vCPUs", left, p[i].vcpus,
				      p[i].cache);
	}
}

FR_TEST(measure_plan, all_vcpu_points_are_kept_at_every_budget)
{
	for (int keep_two = 0; keep_two < 2; keep_two++)
		for (double left = 60; left <= 600; left += 30) {
			struct ms_plan_point p[N96];
			struct ms_budget b = budget(left, 6);
			/* the three 96-vCPU points and 6 check runs, as
			 * short as they may be */
			const double top_and_checks = 3 * (MS_MIN_POINT_S + 1) +
						      6 * MS_CONFIRM_MIN_S;

			b.keep_two = keep_two;
			b.confirm_min_s = MS_CONFIRM_MIN_S;
			plan_grid(p, v96, N96 / 3, 3, 1);
			ms_plan_budget(p, N96, &b);
			assert_kept_prefix(p, left);
			cr_assert_geq(b.share, MS_MIN_POINT_S, "%.0f s", left);
			/* the checks stay, shortened where they must be:
			 * every budget from 60 s holds them */
			cr_assert_leq(top_and_checks, 60);
			cr_assert_eq(b.confirm_kept, 6u, "%.0f s", left);
			cr_assert_geq(b.confirm_len_s, MS_CONFIRM_MIN_S);
			cr_assert_leq(b.confirm_len_s, MS_CONFIRM_S);
			cr_assert_leq(3 * (MS_MIN_POINT_S + 1) +
				      6 * b.confirm_len_s, left + 1e-9);
			cr_assert_float_eq(b.top_need_s,
					   3 * (MS_MIN_POINT_S + 1), 1e-9);
		}
}

FR_TEST(measure_plan, the_walks_check_runs_go_before_g_and_g_plus_one)
{
	for (double left = 60; left <= 600; left += 30) {
		struct ms_plan_point p[N96];
		struct ms_budget b = budget(left, 9);

		b.nconfirm_min = 6;
		b.confirm_min_s = MS_CONFIRM_MIN_S;
		plan_grid(p, v96, N96 / 3, 3, 1);
		ms_plan_budget(p, N96, &b);
		/* 3 x (8 + 1) + 9 x 5 = 72 s: below it only G and G + 1 */
		cr_assert_eq(b.confirm_kept, left >= 72 ? 9u : 6u, "%.0f s",
			     left);
		for (size_t i = 0; i < N96; i++)
			if (p[i].vcpus == 96)
				cr_assert(p[i].kept, "%.0f s", left);
	}
}

FR_TEST(measure_plan, intermediate_counts_drop_before_one_and_two_vcpus)
{
	struct ms_plan_point p[N96];
	/* the 96-vCPU points, the checks, then room for 5 more points */
	const double left = 3 * MS_MIN_POINT_S + 6 * MS_CONFIRM_S +
			    5 * MS_MIN_POINT_S;
	struct ms_budget b = budget(left, 6);

	b.keep_two = true;
	plan_grid(p, v96, N96 / 3, 3, 0);
	ms_plan_budget(p, N96, &b);
	cr_assert_eq(b.confirm_kept, 6);
	for (size_t i = 0; i < N96; i++) {
		const bool want = p[i].vcpus == 96 || p[i].vcpus == 1 ||
				  (p[i].vcpus == 2 && p[i].cache < 2);

		cr_assert_eq(p[i].kept, want, "%u/%u", p[i].vcpus, p[i].cache);
		cr_assert_not(p[i].too_short);
	}
	/* the 1-vCPU points outlast the 2-vCPU ones: room for 3 */
	b = budget(left - 2 * MS_MIN_POINT_S, 6);
	plan_grid(p, v96, N96 / 3, 3, 0);
	ms_plan_budget(p, N96, &b);
	for (size_t i = 0; i < N96; i++)
		cr_assert_eq(p[i].kept, p[i].vcpus == 96 || p[i].vcpus == 1,
			     "%u/%u", p[i].vcpus, p[i].cache);
}

FR_TEST(measure_plan, smallest_count_is_kept_even_when_listed_last)
{
	/* --vcpus 8,4,1: the 1-vCPU points come right after the 8 */
	const unsigned v[] = { 8, 4, 1 };
	struct ms_plan_point p[9];
	struct ms_budget b = budget(6 * MS_MIN_POINT_S, 0);

	plan_grid(p, v, 3, 3, 0);
	ms_plan_budget(p, 9, &b);
	for (int i = 0; i < 9; i++)
		cr_assert_eq(p[i].kept, p[i].vcpus != 4, "%u/%u", p[i].vcpus,
			     p[i].cache);
}

FR_TEST(measure_plan, checks_are_skipped_when_they_cannot_fit_beside_the_top)
{
	/* 60 s: 3 x 8 s of top points; 72 s of checks cannot fit, the
	 * 1-vCPU points and 2/cold (8 s each) still do */
	struct ms_plan_point p[N96];
	struct ms_budget b = budget(60, 6);

	plan_grid(p, v96, N96 / 3, 3, 0);
	ms_plan_budget(p, N96, &b);
	cr_assert_eq(b.confirm_kept, 0);
	for (size_t i = 0; i < N96; i++) {
		const bool want = p[i].vcpus == 96 || p[i].vcpus == 1 ||
				  (p[i].vcpus == 2 && p[i].cache == 0);

		cr_assert_eq(p[i].kept, want, "%u/%u", p[i].vcpus, p[i].cache);
	}
	cr_assert_float_eq(b.share, 60 / 7.0, 1e-9);
}

FR_TEST(measure_plan, top_points_that_do_not_fit_are_too_short_not_replaced)
{
	struct ms_plan_point p[N96];
	/* 20 s: the 96/cold and 96/ram points (8 + 1 s each) fit, 96/warm
	 * does not; nothing of fewer vCPUs takes its place */
	struct ms_budget b = budget(20, 6);

	plan_grid(p, v96, N96 / 3, 3, 1);
	ms_plan_budget(p, N96, &b);
	cr_assert_eq(b.confirm_kept, 0);
	for (size_t i = 0; i < N96; i++) {
		const bool top = p[i].vcpus == 96;

		cr_assert_eq(p[i].kept, top && p[i].cache < 2, "%u/%u",
			     p[i].vcpus, p[i].cache);
		cr_assert_eq(p[i].too_short, top && p[i].cache == 2, "%u/%u",
			     p[i].vcpus, p[i].cache);
	}
	cr_assert_float_eq(b.top_need_s, 27, 1e-9);
	cr_assert_float_eq(b.share, (20 - 2) / 2.0, 1e-9);

	/* nothing fits: every point dropped, the top ones too short */
	b = budget(5, 6);
	plan_grid(p, v96, N96 / 3, 3, 1);
	cr_assert_float_eq(ms_plan_budget(p, N96, &b), 0, 1e-12);
	for (size_t i = 0; i < N96; i++) {
		cr_assert(p[i].dropped && !p[i].kept);
		cr_assert_eq(p[i].too_short, p[i].vcpus == 96);
	}
	cr_assert_eq(b.confirm_kept, 0);
}

FR_TEST(measure_plan, dropped_points_stay_dropped)
{
	const unsigned v[] = { 1, 2 };
	struct ms_plan_point p[4];
	struct ms_budget b = budget(1000, 0);

	plan_grid(p, v, 2, 2, 0);
	p[1].dropped = true;
	ms_plan_budget(p, 4, &b);
	cr_assert(p[1].dropped && !p[1].kept);
	cr_assert_float_eq(b.share, 1000 / 3.0, 1e-9);
}

/* ---- which check run comes next ---- */

static struct ms_check_done ran(unsigned gpus, double au)
{
	return (struct ms_check_done){ .gpus = gpus, .run = true, .au = au };
}

/* The counts ms_check_next asks for when AU(gpus) answers each run. */
static size_t walk(unsigned computed, double (*au)(unsigned), unsigned *seq)
{
	struct ms_check_done d[MS_CHECKS_MAX];
	unsigned next;
	size_t n = 0;

	while (ms_check_next(d, n, computed, 0.9, MS_CHECKS_MAX, &next)) {
		cr_assert_lt(n, MS_CHECKS_MAX);
		seq[n] = next;
		d[n] = ran(next, au(next));
		n++;
	}
	return n;
}

/* A pipeline that feeds K GPUs: AU 1 up to K, then falls. */
static unsigned feeds;
static double au_feeds(unsigned gpus)
{
	return gpus <= feeds ? 0.97 : 0.97 * feeds / gpus;
}

FR_TEST(measure_plan, check_runs_confirm_g_with_two_runs)
{
	unsigned seq[MS_CHECKS_MAX];

	feeds = 4;
	cr_assert_eq(walk(4, au_feeds, seq), 2);
	cr_assert_eq(seq[0], 4);
	cr_assert_eq(seq[1], 5);
}

FR_TEST(measure_plan, check_runs_walk_down_to_a_fed_count)
{
	unsigned seq[MS_CHECKS_MAX];

	/* computed 6, but 3 are fed: 6, 7, 5, 4, 3 */
	feeds = 3;
	cr_assert_eq(walk(6, au_feeds, seq), 5);
	cr_assert_eq(seq[2], 5);
	cr_assert_eq(seq[3], 4);
	cr_assert_eq(seq[4], 3);
	/* computed 2, nothing fed: 2, 3, 1, and never 0 */
	feeds = 0;
	cr_assert_eq(walk(2, au_feeds, seq), 3);
	cr_assert_eq(seq[2], 1);
}

FR_TEST(measure_plan, check_runs_raise_while_fed)
{
	unsigned seq[MS_CHECKS_MAX];

	/* computed 2, 4 fed: 2, 3, 4, 5 */
	feeds = 4;
	cr_assert_eq(walk(2, au_feeds, seq), 4);
	cr_assert_eq(seq[2], 4);
	cr_assert_eq(seq[3], 5);
	/* computed 0, 2 fed: 0, 1, 2, 3 */
	feeds = 2;
	cr_assert_eq(walk(0, au_feeds, seq), 4);
	cr_assert_eq(seq[3], 3);
}

FR_TEST(measure_plan, check_runs_stop_at_the_most_runs)
{
	unsigned seq[MS_CHECKS_MAX];

	/* 40 fed, computed 1: 1..6, then the cap */
	feeds = 40;
	cr_assert_eq(walk(1, au_feeds, seq), MS_CHECKS_MAX);
	cr_assert_eq(seq[MS_CHECKS_MAX - 1], MS_CHECKS_MAX);
	/* computed 30, 1 fed: 30, 31, 29, 28, 27, 26 */
	feeds = 1;
	cr_assert_eq(walk(30, au_feeds, seq), MS_CHECKS_MAX);
	cr_assert_eq(seq[MS_CHECKS_MAX - 1], 26);
}

FR_TEST(measure_plan, check_runs_stop_on_a_run_that_did_not_measure)
{
	struct ms_check_done d[4] = { ran(5, 0.8), ran(6, 0.5),
				      { .gpus = 4, .run = false } };
	unsigned next = 99;

	cr_assert_not(ms_check_next(d, 3, 5, 0.9, MS_CHECKS_MAX, &next));
	/* G did not run: G + 1 fed does not raise it */
	d[0] = (struct ms_check_done){ .gpus = 5, .run = false };
	d[1] = ran(6, 0.95);
	cr_assert(ms_check_next(d, 2, 5, 0.9, MS_CHECKS_MAX, &next));
	cr_assert_eq(next, 7);
	/* G not fed but G + 1 fed: the runs disagree, no more */
	d[0] = ran(5, 0.5);
	cr_assert_not(ms_check_next(d, 2, 5, 0.9, MS_CHECKS_MAX, &next));
	/* the default threshold (0.90) where none is given */
	d[0] = ran(5, 0.91);
	d[1] = ran(6, 0.89);
	cr_assert_not(ms_check_next(d, 2, 5, 0, MS_CHECKS_MAX, &next));
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

FR_TEST(measure_plan, ram_sample_is_large_enough_for_its_cache_to_be_held)
{
	/* the 1.28 M-file sweep's figures: 645 MB of the run's own
	 * memory, a page cache of half of 1.74 GB */
	const uint64_t own = 645500000, ram = 870000000;
	const size_t n = 1281167;
	const uint64_t least = ms_ram_holdable_min(own);
	size_t k;

	/* the least holdable cache is ms_ram_holdable's edge */
	cr_assert(ms_ram_holdable(least, own));
	cr_assert_not(ms_ram_holdable(least - 1, own));
	/* 5 % of 645.5 MB and 8 MiB, within a 25 % slack: ~162.7 MB */
	cr_assert(least > 162000000 && least < 163500000, "%llu",
		  (unsigned long long)least);
	/* the sample's scaled cache holds; one file fewer would not */
	k = ms_ram_hold_files(n, ram, own);
	cr_assert(k > 200000 && k < 300000, "%zu", k);
	cr_assert(ms_ram_holdable((uint64_t)((double)ram * k / n), own));
	cr_assert_not(ms_ram_holdable((uint64_t)((double)ram * (k - 1) / n),
				      own));
	/* a whole page cache under the least: no sample helps */
	cr_assert_eq(ms_ram_hold_files(n, least - 1, own), 0);
	/* barely over it: all of the files, never more */
	cr_assert_eq(ms_ram_hold_files(1000, least + least / 2000, own), 1000);
	cr_assert_eq(ms_ram_hold_files(0, ram, own), 0);
	/* a small run's own memory asks for a small sample */
	cr_assert_lt(ms_ram_hold_files(n, ram, 100u << 20), k / 2);
}

/* ---- the RAM axis ---- */

FR_TEST(ram_axis_plan, ram_sizes_default_to_half_then_a_quarter_and_three_quarters)
{
	uint64_t out[MS_RAM_SIZES_MAX];
	const unsigned n = ms_ram_sizes_resolve(NULL, 0, 400ull << 20, out);

	cr_assert_eq(n, 3);
	cr_assert_eq(out[0], 200ull << 20, "the ram state's size: half");
	cr_assert_eq(out[1], 100ull << 20);
	cr_assert_eq(out[2], 300ull << 20);
}

FR_TEST(ram_axis_plan, ram_sizes_resolve_shares_and_sizes_in_order)
{
	const struct ms_ram_size in[] = {
		{ .fraction = 0.25 }, { .bytes = 8ull << 30 },
		{ .fraction = 0.001 },  /* under 1 MiB: raised to it */
		{ .bytes = 100ull << 20 },      /* = 25 % of 400 MiB: again */
		{ .bytes = 4096 },              /* 1 MiB again: left out */
	};
	uint64_t out[MS_RAM_SIZES_MAX];
	const unsigned n = ms_ram_sizes_resolve(in, 5, 400ull << 20, out);

	cr_assert_eq(n, 3);
	cr_assert_eq(out[0], 100ull << 20);
	cr_assert_eq(out[1], 8ull << 30);
	cr_assert_eq(out[2], MS_RAM_MIN_BYTES);
}

FR_TEST(ram_axis_plan, ram_sizes_stop_at_the_most_a_sweep_holds)
{
	struct ms_ram_size in[MS_RAM_SIZES_MAX + 2];
	uint64_t out[MS_RAM_SIZES_MAX];

	for (unsigned i = 0; i < MS_RAM_SIZES_MAX + 2; i++)
		in[i] = (struct ms_ram_size){ .bytes = (i + 1ull) << 30 };
	cr_assert_eq(ms_ram_sizes_resolve(in, MS_RAM_SIZES_MAX + 2, 1ull << 40,
					  out), MS_RAM_SIZES_MAX);
	cr_assert_eq(out[MS_RAM_SIZES_MAX - 1], (uint64_t)MS_RAM_SIZES_MAX << 30);
}

/* 1 and 2 vCPUs x cold, ram, warm, then two more ram sizes at 2 vCPUs. */
static void plan_with_axis(struct ms_plan_point *p)
{
	const unsigned v[] = { 1, 2 };

	plan_grid(p, v, 2, 3, 0);
	for (int k = 6; k < 8; k++)
		p[k] = (struct ms_plan_point){ .vcpus = 2, .cache = 1,
					       .ram_axis = true };
}

FR_TEST(ram_axis_plan, ram_axis_comes_after_the_top_points_and_checks)
{
	struct ms_plan_point p[8];
	/* the 3 top points, 6 checks and 2 more: the axis, not 1 vCPU */
	struct ms_budget b = budget(5 * MS_MIN_POINT_S + 6 * MS_CONFIRM_S, 6);

	plan_with_axis(p);
	ms_plan_budget(p, 8, &b);
	cr_assert_eq(b.confirm_kept, 6);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(p[i].kept, p[i].vcpus == 2, "%d: %u/%u%s", i,
			     p[i].vcpus, p[i].cache, p[i].ram_axis ? " axis" :
			     "");
	/* everything fits: all kept, in equal shares */
	b = budget(8 * MS_MIN_POINT_S + 6 * MS_CONFIRM_S + 40, 6);
	plan_with_axis(p);
	ms_plan_budget(p, 8, &b);
	for (int i = 0; i < 8; i++)
		cr_assert(p[i].kept);
	cr_assert_float_eq(b.share, MS_MIN_POINT_S + 5, 1e-9);
}

FR_TEST(ram_axis_plan, ram_axis_dropped_is_not_too_short_and_keeps_the_checks)
{
	struct ms_plan_point p[8];
	/* the top points and the checks only */
	struct ms_budget b = budget(3 * MS_MIN_POINT_S + 6 * MS_CONFIRM_S, 6);

	plan_with_axis(p);
	ms_plan_budget(p, 8, &b);
	cr_assert_eq(b.confirm_kept, 6, "the axis is no top point: the "
		     "checks still come before it");
	cr_assert_float_eq(b.top_need_s, 3 * MS_MIN_POINT_S, 1e-9);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(p[i].kept, p[i].vcpus == 2 && !p[i].ram_axis,
			     "%d", i);
		cr_assert_not(p[i].too_short, "%d", i);
	}
}

FR_TEST(measure_plan, once_the_top_points_have_run_the_checks_come_before_the_rest)
{
	/* re-planned after the 96-vCPU points ran: two RAM-axis sizes
	 * (96 vCPUs, later in the plan) and 6 reserved check runs in 40 s */
	struct ms_plan_point p[2] = {
		{ .vcpus = 96, .cache = 1, .prep_s = 4, .ram_axis = true },
		{ .vcpus = 96, .cache = 1, .prep_s = 4, .ram_axis = true },
	};
	struct ms_budget b = budget(40, 6);

	b.top_vcpus = 96;
	b.confirm_min_s = MS_CONFIRM_MIN_S;
	ms_plan_budget(p, 2, &b);
	cr_assert_eq(b.confirm_kept, 6u, "the checks keep their time");
	cr_assert_geq(b.confirm_len_s, MS_CONFIRM_MIN_S);
	cr_assert(p[0].dropped && p[1].dropped,
		  "the RAM-axis sizes go, 6 x 5 s + 12 s > 40 s");
}

/* ---- the warm point's first estimate ---- */

#define WP_FILES 300

/* WP_FILES files of 4 KiB on a disk-backed folder, scanned into *DS. */
static char *wp_tree(struct stg_dataset **ds)
{
	char *dir = fr_test_tmpdir(), path[PATH_MAX], buf[4096];
	struct statfs sf;

	cr_assert_eq(statfs(dir, &sf), 0);
	if (sf.f_type == 0x01021994) {          /* tmpfs: nothing to evict */
		fr_test_rmtree(dir);
		cr_skip_test("no disk-backed folder: everything is on tmpfs");
	}
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < WP_FILES; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%03d.bin", dir, i);
		f = fopen(path, "we");
		cr_assert_not_null(f);
		cr_assert_eq(fwrite(buf, 1, sizeof(buf), f), sizeof(buf));
		fclose(f);
	}
	cr_assert_eq(stg_dataset_scan(dir, NULL, ds), 0);
	cr_assert_eq(stg_dataset_count(*ds), WP_FILES);
	return dir;
}

/* Files of DS wholly in the page cache. */
static size_t wp_resident(const struct stg_dataset *ds)
{
	const int dfd = open(stg_dataset_root(ds), O_RDONLY | O_DIRECTORY);
	size_t n = 0;

	cr_assert_geq(dfd, 0);
	for (size_t i = 0; i < stg_dataset_count(ds); i++) {
		uint64_t res, tot;

		cr_assert_eq(stg_cache_residency(dfd, stg_dataset_relpath(ds,
			     i, NULL), &res, &tot), 0);
		n += tot && res == tot;
	}
	close(dfd);
	return n;
}

FR_TEST(warm_estimate, a_timed_sample_scales_to_the_dataset)
{
	struct ms_prep_phases ph = { 0 };
	struct stg_dataset *ds;
	char *dir = wp_tree(&ds);
	size_t before, after;
	double est;

	cr_assert_eq(stg_cache_dataset_evict(ds, NULL), 0);
	before = wp_resident(ds);
	/* 64 of 300 files warmed and timed, scaled by 300 / 64 */
	est = ms_warm_estimate(ds, 64, 1e12, &ph);
	cr_assert_gt(est, 0);
	cr_assert_gt(ph.warm_s, 0, "the probe's time is warming's");
	cr_expect_leq(est, ph.warm_s * WP_FILES / 64 + 1e-9,
		      "%.6f s from a probe of %.6f s", est, ph.warm_s);
	after = wp_resident(ds);
	cr_expect_geq(after, 64, "%zu files resident after, %zu before",
		      after, before);
	cr_expect_leq(after, before + 64, "only the sample was warmed");
	/* the byte cap sizes the sample: 64 files of 4 KiB */
	cr_expect_gt(ms_warm_estimate(ds, 1000, 64 * 4096, &ph), 0);
	/* a sample over a quarter of the dataset, or under 64 files: none */
	cr_expect_eq(ms_warm_estimate(ds, 100, 1e12, &ph), 0);
	cr_expect_eq(ms_warm_estimate(ds, 1000, 63 * 4096, &ph), 0);
	stg_dataset_destroy(ds);
	fr_test_rmtree(dir);
}
