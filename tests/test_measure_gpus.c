/*
 * test_measure_gpus.c - the GPUs a measurement is judged against
 * (ms_gpus_resolve, shared by run and sweep): --gpu-rate names a GPU the
 * table lacks only with a name of [A-Za-z0-9._-], the same way for both
 * commands, and a refused name is printed escaped with exit 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measure.h"
#include "workloads.h"

/* DIR/NAME as a NUL-terminated malloc'd string. */
static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	cr_assert_geq(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

FR_TEST(measure_gpus, gpu_rate_names_outside_the_safe_set_are_usage_errors)
{
	static const char *const bad[] = {
		"2x\xff\xfe", "x", "2xA100x", "2xa100X", "4xMY GPU",
		"4x<b>", "4xcaf\xc3\xa9", "4xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	};
	const struct wl_workload *w;
	struct ms_gpus g;
	char gwhy[768];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(ms_gpus_resolve(w, bad[i], WL_DEMAND_TRAIN,
					     300, &g, gwhy, sizeof(gwhy)), -EINVAL,
			     "run accepted '%s'", bad[i]);
		cr_assert_eq(ms_gpus_resolve(w, bad[i],
					     WL_DEMAND_TRAIN, 300, &g, gwhy, sizeof(gwhy)),
			     -EINVAL, "sweep accepted '%s'", bad[i]);
	}
}

FR_TEST(measure_gpus, gpu_rate_fallback_is_the_same_for_run_and_sweep)
{
	const struct wl_workload *w;
	struct ms_gpus a, b;
	char gwhy[768];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(ms_gpus_resolve(w, "4xMY-GPU_2.0", WL_DEMAND_TRAIN,
				     300, &a, gwhy, sizeof(gwhy)), 0);
	cr_assert_eq(ms_gpus_resolve(w, "4xMY-GPU_2.0",
				     WL_DEMAND_TRAIN, 300, &b, gwhy, sizeof(gwhy)), 0);
	cr_assert_eq(a.count, 4);
	cr_assert_str_eq(a.type, "MY-GPU_2.0");
	cr_assert(a.type_given, "the type was named");
	cr_assert_null(a.row);
	cr_assert_float_eq(a.demand, 300, 1e-9);
	cr_assert_str_eq(a.demand_kind, "gpu-rate");
	cr_assert_not(a.default_type);
	cr_assert_eq(b.count, a.count);
	cr_assert_str_eq(b.type, a.type);
	cr_assert_eq(b.type_given, a.type_given);

	/* a bare count: the count as given (0 included), "GPU" */
	cr_assert_eq(ms_gpus_resolve(w, "0", WL_DEMAND_TRAIN, 300, &a, gwhy, sizeof(gwhy)),
		     0);
	cr_assert_eq(a.count, 0);
	cr_assert_eq(ms_gpus_resolve(w, "3", WL_DEMAND_TRAIN, 300, &a, gwhy, sizeof(gwhy)),
		     0);
	cr_assert_eq(a.count, 3);
	cr_assert_str_eq(a.type, "GPU");
	cr_assert_not(a.type_given);
	/* a table GPU with a rate keeps its name, takes the rate */
	cr_assert_eq(ms_gpus_resolve(w, "2xh100", WL_DEMAND_TRAIN, 300, &a, gwhy, sizeof(gwhy)), 0);
	cr_assert_str_eq(a.type, "H100");
	cr_assert_float_eq(a.demand, 300, 1e-9);
	/* without a rate: the table */
	cr_assert_eq(ms_gpus_resolve(w, NULL, WL_DEMAND_TRAIN, 0, &a, gwhy, sizeof(gwhy)),
		     0);
	cr_assert_eq(a.count, 1);
	cr_assert(a.default_type);
	cr_assert_str_eq(a.type, "A100");
	cr_assert_float_eq(a.demand, 2470, 1e-9);
	cr_assert_eq(ms_gpus_resolve(w, "4xMYGPU", WL_DEMAND_TRAIN, 0, &a, gwhy, sizeof(gwhy)), -EINVAL);
}

FR_TEST(measure_gpus, bad_gpu_names_exit_2_with_the_name_escaped)
{
	char *dir = fr_test_tmpdir();
	static const char *const specs[] = { "2x\xff\xfe", "x", "2xA100x" };
	static const char *const cmds[] = { "run", "sweep" };

	for (size_t c = 0; c < 2; c++)
		for (size_t k = 0; k < 3; k++) {
			char *argv[] = { (char *)fr_test_bin(), (char *)cmds[c],
					 "--gpus", (char *)specs[k],
					 "--gpu-rate", "300", "/nonexistent",
					 NULL };
			char *err;

			cr_assert_eq(fr_test_run(dir, argv, 30), 2, "%s %s",
				     cmds[c], specs[k]);
			err = slurp(dir, "stderr");
			cr_assert_null(strchr(err, '\xff'), "raw byte: %s",
				       err);
			if (k == 0)
				cr_assert_not_null(strstr(err, "2x\\xff\\xfe"),
						   "%s", err);
			free(err);
		}
	fr_test_rmtree(dir);
}

FR_TEST(measure_gpus, demand_per_gpu_is_the_sources_multi_gpu_figure_at_its_count)
{
	const struct wl_workload *w;
	const struct wl_demand *h100;
	struct ms_gpus g;
	char gwhy[768];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	/* 8x A100: the source measured 16,621 together, not 8 x 2,470 */
	cr_assert_eq(ms_gpus_resolve(w, "8xA100", WL_DEMAND_TRAIN, 0, &g, gwhy,
				     sizeof(gwhy)), 0);
	cr_assert_float_eq(g.demand_single, 2470, 1e-9);
	cr_assert_float_eq(g.demand_total, 16621, 1e-9);
	cr_assert_float_eq(g.demand, 2077.625, 1e-9);
	cr_assert(g.demand_multi_measured);
	cr_assert_str_eq(g.demand_basis, "measured");
	cr_assert_not(g.demand_est);
	cr_assert_float_eq(g.demand_range_lo, 0, 1e-12);

	/* 4x A100: no 4-GPU figure, count x per-GPU */
	cr_assert_eq(ms_gpus_resolve(w, "4xA100", WL_DEMAND_TRAIN, 0, &g, gwhy,
				     sizeof(gwhy)), 0);
	cr_assert_float_eq(g.demand_total, 9880, 1e-9);
	cr_assert_float_eq(g.demand, 2470, 1e-9);
	cr_assert_not(g.demand_multi_measured);

	/* 8x H100: derived from 8x A100 by Lambda's 8-GPU ratio */
	h100 = wl_demand_find(w, "H100", WL_DEMAND_TRAIN);
	cr_assert_not_null(h100);
	cr_assert_eq(ms_gpus_resolve(w, "8xH100", WL_DEMAND_TRAIN, 0, &g, gwhy,
				     sizeof(gwhy)), 0);
	cr_assert_float_eq(g.demand_total, h100->multi_samples_per_s, 1e-9);
	cr_assert_float_eq(g.demand, h100->multi_samples_per_s / 8, 1e-9);
	cr_assert(g.demand_multi_measured);
	cr_assert_str_eq(g.demand_basis, "derived");
	cr_assert_str_eq(g.demand_kind, "train");
	cr_assert_float_eq(g.demand_range_lo, h100->range_lo, 1e-9);
	cr_assert_float_eq(g.demand_range_hi, h100->range_hi, 1e-9);
	cr_assert_lt(g.demand_range_lo, g.demand_range_hi);

	/* an estimate row says so on both fields */
	cr_assert_eq(ms_gpus_resolve(w, "L4", WL_DEMAND_TRAIN, 0, &g, gwhy,
				     sizeof(gwhy)), 0);
	cr_assert_str_eq(g.demand_basis, "estimate");
	cr_assert(g.demand_est);

	/* the GPU's ceiling: MLPerf Training's per-GPU rate at 8 */
	cr_assert_eq(ms_gpus_resolve(w, "8xH200", WL_DEMAND_CEILING, 0, &g,
				     gwhy, sizeof(gwhy)), 0);
	cr_assert_float_eq(g.demand, 7960, 1e-9);
	cr_assert_float_eq(g.demand_total, 8 * 7960, 1e-9);
	cr_assert_str_eq(g.demand_kind, "ceiling");
	cr_assert_str_eq(g.demand_basis, "measured");

	/* no GPU emulated: the 1-GPU figure, no total */
	cr_assert_eq(ms_gpus_resolve(w, "0xA100", WL_DEMAND_TRAIN, 0, &g, gwhy,
				     sizeof(gwhy)), 0);
	cr_assert_eq(g.count, 0);
	cr_assert_float_eq(g.demand, 2470, 1e-9);
	cr_assert_float_eq(g.demand_total, 0, 1e-12);
}

FR_TEST(measure_gpus, gpu_rate_demand_is_count_times_the_rate)
{
	const struct wl_workload *w;
	struct ms_gpus g;
	char gwhy[768];

	cr_assert_eq(wl_find("imagenet", &w), 0);
	/* the rate replaces the table's figure, even at its measured count */
	cr_assert_eq(ms_gpus_resolve(w, "8xA100", WL_DEMAND_TRAIN, 1000, &g,
				     gwhy, sizeof(gwhy)), 0);
	cr_assert_float_eq(g.demand, 1000, 1e-9);
	cr_assert_float_eq(g.demand_single, 1000, 1e-9);
	cr_assert_float_eq(g.demand_total, 8000, 1e-9);
	cr_assert_not(g.demand_multi_measured);
	cr_assert_str_eq(g.demand_basis, "gpu-rate");
	cr_assert_not(g.demand_est);
	cr_assert_eq(ms_gpus_resolve(w, "3xMYGPU", WL_DEMAND_TRAIN, 250, &g,
				     gwhy, sizeof(gwhy)), 0);
	cr_assert_float_eq(g.demand_total, 750, 1e-9);
	cr_assert_str_eq(g.demand_basis, "gpu-rate");
}
