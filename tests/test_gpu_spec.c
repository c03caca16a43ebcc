/*
 * test_gpu_spec.c - the --gpus spec ("8xA100", "A100", "0") against the
 * imagenet demand table: counts, case, default type, demand kinds, and the
 * error messages that list the known GPUs.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "workloads.h"

static const struct wl_workload *imagenet(void)
{
	const struct wl_workload *w = NULL;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	return w;
}

struct spec_case {
	const char *spec;
	enum wl_demand_kind kind;
	int err;                /* expected return */
	unsigned count;         /* when err == 0 */
	const char *gpu;        /* row's name when err == 0 */
	double rate;            /* row's samples/s when err == 0 */
	bool type_given;
};

static const struct spec_case cases[] = {
	{ "8xA100", WL_DEMAND_TRAIN, 0, 8, "A100", 2470, true },
	{ "8XA100", WL_DEMAND_TRAIN, 0, 8, "A100", 2470, true },
	{ "8*a100", WL_DEMAND_TRAIN, 0, 8, "A100", 2470, true },
	{ "A100", WL_DEMAND_TRAIN, 0, 1, "A100", 2470, true },
	{ "a100", WL_DEMAND_TRAIN, 0, 1, "A100", 2470, true },
	{ "2xH100", WL_DEMAND_TRAIN, 0, 2, "H100", 2470.0 * 2791 / 1582, true },
	{ "2xh100", WL_DEMAND_TRAIN, 0, 2, "H100", 2470.0 * 2791 / 1582, true },
	{ "4xv100", WL_DEMAND_TRAIN, 0, 4, "V100", 1200, true },
	{ "1xA100-40GB", WL_DEMAND_TRAIN, 0, 1, "A100-40GB",
	  2470.0 * 1396 / 1527, true },
	{ "a100-pcie", WL_DEMAND_TRAIN, 0, 1, "A100-PCIe",
	  2470.0 * 1527 / 1582, true },
	{ "8xH100", WL_DEMAND_CEILING, 0, 8, "H100", 7160, true },
	{ "A100", WL_DEMAND_CEILING, 0, 1, "A100", 3400, true },
	{ "2xh200", WL_DEMAND_CEILING, 0, 2, "H200", 7960, true },
	{ "16", WL_DEMAND_TRAIN, 0, 16, "A100", 2470, false },
	{ "0", WL_DEMAND_TRAIN, 0, 0, "A100", 2470, false },
	{ "0xH100", WL_DEMAND_TRAIN, 0, 0, "H100", 2470.0 * 2791 / 1582, true },
	{ "8xA100", WL_DEMAND_MLPERF, 0, 8, "A100", 400.0 / 0.435, true },
	{ "h100", WL_DEMAND_MLPERF, 0, 1, "H100", 400.0 / 0.224, true },
	{ "1024xA100", WL_DEMAND_TRAIN, 0, 1024, "A100", 2470, true },
	/* errors */
	{ "8xB999", WL_DEMAND_TRAIN, -ENOENT, 0, NULL, 0, false },
	{ "TPU", WL_DEMAND_TRAIN, -ENOENT, 0, NULL, 0, false },
	{ "4xV100", WL_DEMAND_MLPERF, -ENODATA, 0, NULL, 0, false },
	{ "8xV100", WL_DEMAND_CEILING, -ENODATA, 0, NULL, 0, false },
	{ "", WL_DEMAND_TRAIN, -EINVAL, 0, NULL, 0, false },
	{ "8x", WL_DEMAND_TRAIN, -EINVAL, 0, NULL, 0, false },
	{ "8-A100", WL_DEMAND_TRAIN, -EINVAL, 0, NULL, 0, false },
	{ "8x A100", WL_DEMAND_TRAIN, -EINVAL, 0, NULL, 0, false },
	{ "1025xA100", WL_DEMAND_TRAIN, -EINVAL, 0, NULL, 0, false },
	{ "99999999999999999999xA100", WL_DEMAND_TRAIN, -EINVAL, 0, NULL, 0,
	  false },
};

FR_TEST(gpu_spec, parses_the_table_of_specs)
{
	const struct wl_workload *w = imagenet();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct spec_case *c = &cases[i];
		struct wl_gpu_spec gs;
		char why[512];
		int err = wl_gpu_spec_parse(w, c->spec, c->kind, &gs, why,
					    sizeof(why));

		cr_expect_eq(err, c->err, "'%s' (%s): got %d, want %d (%s)",
			     c->spec, wl_demand_kind_name(c->kind), err, c->err,
			     why);
		if (err || c->err)
			continue;
		cr_expect_eq(gs.count, c->count, "'%s': count %u", c->spec,
			     gs.count);
		cr_assert_not_null(gs.row, "'%s'", c->spec);
		cr_expect_str_eq(gs.row->gpu, c->gpu, "'%s'", c->spec);
		cr_expect_eq(gs.row->kind, c->kind, "'%s'", c->spec);
		cr_expect_float_eq(gs.row->samples_per_s, c->rate, 1e-6,
				   "'%s': %f", c->spec, gs.row->samples_per_s);
		cr_expect_eq(gs.type_given, c->type_given, "'%s'", c->spec);
		cr_expect_str_eq(why, "", "'%s': no message on success",
				 c->spec);
	}
}

FR_TEST(gpu_spec, unknown_gpu_message_lists_the_known_names)
{
	struct wl_gpu_spec gs;
	char why[512];

	cr_assert_eq(wl_gpu_spec_parse(imagenet(), "8xB999", WL_DEMAND_TRAIN,
				       &gs, why, sizeof(why)), -ENOENT);
	cr_expect_not_null(strstr(why, "B999"), "%s", why);
	cr_expect_not_null(strstr(why, "A100"), "%s", why);
	cr_expect_not_null(strstr(why, "H100"), "%s", why);
	cr_expect_not_null(strstr(why, "T4"), "%s", why);
	cr_expect_not_null(strstr(why, "--gpu-rate"), "%s", why);
}

FR_TEST(gpu_spec, gpu_without_an_mlperf_row_names_the_ones_with_one)
{
	struct wl_gpu_spec gs;
	char why[512];

	cr_assert_eq(wl_gpu_spec_parse(imagenet(), "V100", WL_DEMAND_MLPERF,
				       &gs, why, sizeof(why)), -ENODATA);
	cr_expect_not_null(strstr(why, "mlperf"), "%s", why);
	cr_expect_not_null(strstr(why, "A100, H100"), "%s", why);
}

FR_TEST(gpu_spec, malformed_spec_explains_the_syntax)
{
	struct wl_gpu_spec gs;
	char why[512];

	cr_assert_eq(wl_gpu_spec_parse(imagenet(), "8x", WL_DEMAND_TRAIN, &gs,
				       why, sizeof(why)), -EINVAL);
	cr_expect_not_null(strstr(why, "8xA100"), "%s", why);
}

FR_TEST(gpu_spec, names_are_distinct_and_per_kind)
{
	char buf[256];
	size_t need = wl_gpu_names(imagenet(), WL_DEMAND_MLPERF, buf,
				   sizeof(buf));

	cr_expect_str_eq(buf, "A100, H100");
	cr_expect_eq(need, strlen("A100, H100"));
	wl_gpu_names(imagenet(), WL_DEMAND_TRAIN, buf, sizeof(buf));
	cr_expect_str_eq(buf, "A100, A100-40GB, A100-PCIe, V100, H100, "
			 "H100-PCIe, H200, A10G, L4, T4");
	wl_gpu_names(imagenet(), WL_DEMAND_CEILING, buf, sizeof(buf));
	cr_expect_str_eq(buf, "A100, H100, H200");
	/* a short buffer is cut but stays a string, and the length says
	 * what the whole list needs */
	need = wl_gpu_names(imagenet(), WL_DEMAND_TRAIN, buf, 6);
	cr_expect_eq(strlen(buf), 5);
	cr_expect_gt(need, 6);
}

FR_TEST(gpu_spec, default_row_is_the_first_of_its_kind)
{
	const struct wl_demand *d = wl_demand_default(imagenet(),
						      WL_DEMAND_TRAIN);

	cr_assert_not_null(d);
	cr_expect_str_eq(d->gpu, "A100");
	cr_expect_eq(d->kind, WL_DEMAND_TRAIN);
	d = wl_demand_default(imagenet(), WL_DEMAND_MLPERF);
	cr_assert_not_null(d);
	cr_expect_eq(d->kind, WL_DEMAND_MLPERF);
	cr_expect_null(wl_demand_default(NULL, WL_DEMAND_TRAIN));
}
