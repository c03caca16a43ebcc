/*
 * test_judge_check.c - the check-run walk (judge/check.c): confirmed,
 * lowered (walking down, stopping at a fed count, at an untested one, at
 * 0), raised (walking up an unbroken run, stopping at a gap), the AU
 * exactly at the threshold, runs ignored and why; and the sweep's next
 * step walking down and up to its end.
 */
#include "harness.h"
#include "judge.h"

#define T 0.9

static struct jdg_check_run R(unsigned gpus, double au)
{
	return (struct jdg_check_run){ .run = true, .gpus = gpus, .au = au,
				       .vcpus = 8 };
}

FR_TEST(judge_check, confirmed_when_g_fed_and_g1_not)
{
	const struct jdg_check_run runs[] = { R(3, 0.95), R(4, 0.85) };
	struct jdg_check c;

	jdg_check_walk(3, runs, 2, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_CONFIRMED);
	cr_assert_eq(c.gpus_fed, 3);
	cr_assert_eq(c.used_g, 0);
	cr_assert_eq(c.used_g1, 1);
	cr_assert_eq(c.used_mask, 3u);
	cr_assert_eq(c.ignored, 0);
}

FR_TEST(judge_check, au_exactly_at_threshold_is_fed)
{
	const struct jdg_check_run runs[] = { R(3, T), R(4, T - 1e-6) };
	struct jdg_check c;

	jdg_check_walk(3, runs, 2, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_CONFIRMED);
	cr_assert_eq(c.gpus_fed, 3);
}

FR_TEST(judge_check, walks_down_to_the_first_fed_count)
{
	const struct jdg_check_run runs[] = {
		R(4, 0.7), R(5, 0.6), R(3, 0.8), R(2, 0.92),
	};
	struct jdg_check c;

	jdg_check_walk(4, runs, 4, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_LOWERED);
	cr_assert_eq(c.gpus_fed, 2);
	cr_assert_not(c.lowered_untested);
	cr_assert_eq(c.used_mask, 0xfu);
}

FR_TEST(judge_check, walk_down_stops_untested)
{
	const struct jdg_check_run runs[] = { R(4, 0.7), R(5, 0.6) };
	struct jdg_check c;

	jdg_check_walk(4, runs, 2, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_LOWERED);
	cr_assert_eq(c.gpus_fed, 3);
	cr_assert(c.lowered_untested);
}

FR_TEST(judge_check, walk_down_to_zero)
{
	const struct jdg_check_run runs[] = { R(2, 0.4), R(3, 0.3), R(1, 0.5) };
	struct jdg_check c;

	jdg_check_walk(2, runs, 3, 8, T, &c);
	cr_assert_eq(c.gpus_fed, 0);
	cr_assert_not(c.lowered_untested, "0 is no count to test");
}

FR_TEST(judge_check, walks_up_an_unbroken_run_and_stops_at_a_gap)
{
	const struct jdg_check_run runs[] = {
		R(2, 0.99), R(3, 0.97), R(4, 0.91), R(6, 0.95),
	};
	struct jdg_check c;

	jdg_check_walk(2, runs, 4, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_RAISED);
	cr_assert_eq(c.gpus_fed, 4, "5 untested breaks the run before 6");
	cr_assert_eq(c.ignored, 1, "the 6-GPU run was not consulted");
	cr_assert_eq(c.why[3], JDG_IGN_OTHER);
	cr_assert_eq(c.used_mask, 0x7u);
}

FR_TEST(judge_check, walk_up_stops_at_first_unfed)
{
	const struct jdg_check_run runs[] = {
		R(2, 0.99), R(3, 0.97), R(4, 0.89), R(5, 0.95),
	};
	struct jdg_check c;

	jdg_check_walk(2, runs, 4, 8, T, &c);
	cr_assert_eq(c.gpus_fed, 3);
	cr_assert_eq(c.confirmation, JDG_CONF_RAISED);
	cr_assert_eq(c.why[2], JDG_IGN_USED, "4 was consulted: it ended it");
	cr_assert_eq(c.why[3], JDG_IGN_OTHER);
}

FR_TEST(judge_check, zero_computed_confirmed_by_one_unfed)
{
	const struct jdg_check_run runs[] = { R(1, 0.5) };
	struct jdg_check c;

	jdg_check_walk(0, runs, 1, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_CONFIRMED);
	cr_assert_eq(c.gpus_fed, 0);
	cr_assert_eq(c.used_g, -1);
	cr_assert_eq(c.used_g1, 0);
}

FR_TEST(judge_check, ignored_runs_and_why)
{
	struct jdg_check_run runs[] = {
		R(3, 0.95), R(4, 0.5), R(3, 0.1), R(4, 0.99), R(0, 1),
	};
	struct jdg_check c;

	runs[3].vcpus = 4;      /* another vCPU count */
	jdg_check_walk(3, runs, 5, 8, T, &c);
	cr_assert_eq(c.gpus_fed, 3);
	cr_assert_eq(c.confirmation, JDG_CONF_CONFIRMED);
	cr_assert_eq(c.ignored, 3);
	cr_assert_eq(c.why[2], JDG_IGN_SECOND);
	cr_assert_eq(c.why[3], JDG_IGN_VCPUS);
	cr_assert_eq(c.why[4], JDG_IGN_ZERO);
}

FR_TEST(judge_check, no_runs_leave_g_standing)
{
	struct jdg_check_run runs[] = { R(3, 0.2) };
	struct jdg_check c;

	runs[0].run = false;
	jdg_check_walk(3, runs, 1, 8, T, &c);
	cr_assert_eq(c.confirmation, JDG_CONF_NONE);
	cr_assert_eq(c.gpus_fed, 3);
	cr_assert_eq(c.ignored, 0);
	jdg_check_walk(3, NULL, 0, 8, T, &c);
	cr_assert_eq(c.gpus_fed, 3);
}

/* The sweep's walk: run what jdg_check_next asks until it stops, with
 * the AU each count gives from FED_UP_TO (counts above are not fed). */
static unsigned walk(unsigned g, unsigned fed_up_to, size_t max,
		     unsigned *asked, size_t *nasked)
{
	struct jdg_check_run done[16];
	unsigned next;
	size_t n = 0;

	while (jdg_check_next(done, n, g, 0, max, &next)) {
		cr_assert(n < 16);
		asked[n] = next;
		done[n] = R(next, next <= fed_up_to ? 0.95 : 0.6);
		n++;
	}
	*nasked = n;
	return n;
}

FR_TEST(judge_check, next_walks_down_to_the_fed_count)
{
	unsigned asked[16];
	size_t n;

	walk(5, 2, 6, asked, &n);
	cr_assert_eq(n, 5);
	cr_assert_eq(asked[0], 5);
	cr_assert_eq(asked[1], 6);
	cr_assert_eq(asked[2], 4);
	cr_assert_eq(asked[3], 3);
	cr_assert_eq(asked[4], 2, "stops once a count is fed");
}

FR_TEST(judge_check, next_walks_up_until_unfed_or_out_of_runs)
{
	unsigned asked[16];
	size_t n;

	walk(2, 4, 6, asked, &n);
	cr_assert_eq(n, 4);
	cr_assert_eq(asked[2], 4);
	cr_assert_eq(asked[3], 5, "5 is not fed: the walk ends");
	walk(2, 100, 6, asked, &n);
	cr_assert_eq(n, 6, "max runs ends an endless climb");
	cr_assert_eq(asked[5], 7);
}

FR_TEST(judge_check, next_stops_when_confirmed_or_at_one)
{
	unsigned asked[16];
	size_t n;

	walk(3, 3, 6, asked, &n);
	cr_assert_eq(n, 2, "G fed, G + 1 not: confirmed");
	walk(1, 0, 6, asked, &n);
	cr_assert_eq(n, 2, "nothing below 1 to try");
}
