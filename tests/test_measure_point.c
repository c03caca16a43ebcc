/*
 * test_measure_point.c - what a finished point's figures may claim: a
 * --ram point whose page cache grew past MS_RAM_SLACK x the asked size was
 * not limited by its cgroup (ms_ram_limited), and a hit ratio from fewer
 * than MS_MIN_PROBES probed reads is unknown, not measured (ms_hit_ratio).
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "loader.h"
#include "measure.h"

FR_TEST(measure_point, ram_point_over_the_slack_counts_as_not_limited)
{
	/* a review's point: 2.8 MB held against 1.4 MB asked */
	cr_assert_not(ms_ram_limited(1377513, 2805760));
	cr_assert(ms_ram_limited(1377513, 1377513));
	cr_assert(ms_ram_limited(1000000, 1250000));
	cr_assert_not(ms_ram_limited(1000000, 1250001));
	/* unknown: nothing to say it was not */
	cr_assert(ms_ram_limited(1000000, 0));
}

FR_TEST(measure_point, hit_ratio_from_too_few_probes_is_unknown)
{
	struct ldr_result *res = calloc(1, sizeof(*res));
	char src[256];

	cr_assert_not_null(res);
	res->probed_reads = 1;
	res->probed_bytes = 100000;
	res->probed_hit_bytes = 100000;
	snprintf(res->probe_method, sizeof(res->probe_method), "cachestat");
	cr_assert_lt(ms_hit_ratio(NULL, 1, 0, false, res, src, sizeof(src)),
		     0);
	cr_assert_not_null(strstr(src, "too few probes"), "%s", src);
	res->probed_reads = MS_MIN_PROBES - 1;
	cr_assert_lt(ms_hit_ratio(NULL, 1, 0, false, res, src, sizeof(src)),
		     0);
	res->probed_reads = MS_MIN_PROBES;
	cr_assert_float_eq(ms_hit_ratio(NULL, 1, 0, false, res, src,
					sizeof(src)), 1.0, 1e-9);
	cr_assert_not_null(strstr(src, "measured"), "%s", src);
	free(res);
}
