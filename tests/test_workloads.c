/*
 * test_workloads.c - the workload table: lookups, the demand rows and their
 * sources, and the statistics the ImageNet generator draws from.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "harness.h"
#include "gen_write.h"
#include "workloads.h"

#include <criterion/redirect.h>

FR_TEST(workloads, imagenet_is_found_and_unknown_names_are_not)
{
	const struct wl_workload *w = NULL;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_not_null(w);
	cr_assert_str_eq(w->name, "imagenet");
	cr_assert_eq(wl_find("imagenet2", &w), -ENOENT);
	cr_assert_eq(wl_find("", &w), -ENOENT);
	cr_assert_eq(wl_find("ImageNet", &w), -ENOENT, "names are exact");
	cr_assert_eq(wl_find(NULL, &w), -EINVAL);
	cr_assert_geq(wl_count(), 1);
	cr_assert_null(wl_at(wl_count()));
}

FR_TEST(workloads, the_name_list_for_errors_holds_every_workload)
{
	char buf[512], tiny[4];
	const size_t need = wl_names(buf, sizeof(buf));

	cr_assert_eq(need, strlen(buf));
	for (size_t i = 0; i < wl_count(); i++)
		cr_assert_not_null(strstr(buf, wl_at(i)->name));
	/* truncation is reported like snprintf and stays terminated */
	cr_assert_eq(wl_names(tiny, sizeof(tiny)), need);
	cr_assert_eq(strlen(tiny), 3);
}

FR_TEST(workloads, every_demand_row_has_a_source_and_a_sane_rate)
{
	for (size_t i = 0; i < wl_count(); i++) {
		const struct wl_workload *w = wl_at(i);

		cr_assert_gt(w->ndemand, 0, "%s has demand rows", w->name);
		cr_assert_not_null(w->stats_source);
		cr_assert_not_null(w->au_source);
		for (size_t k = 0; k < w->ndemand; k++) {
			const struct wl_demand *d = &w->demand[k];

			cr_assert_not_null(d->source, "%s/%s", w->name, d->gpu);
			cr_assert_gt(strlen(d->source), 10);
			cr_assert_gt(d->samples_per_s, 0);
			if (d->basis == WL_BASIS_ESTIMATE)
				cr_assert_not_null(strstr(d->source,
							  "estimate"),
						   "est row %s says so", d->gpu);
			if (d->basis == WL_BASIS_DERIVED)
				cr_assert_not_null(strstr(d->source, " x "),
						   "derived row %s names its "
						   "ratio", d->gpu);
			if (d->range_lo > 0)
				cr_assert(d->range_lo <= d->samples_per_s &&
					  d->samples_per_s <= d->range_hi,
					  "%s inside its range", d->gpu);
			if (d->kind == WL_DEMAND_MLPERF) {
				cr_assert_gt(d->batch, 0);
				cr_assert_gt(d->compute_s, 0);
				cr_assert_float_eq(d->samples_per_s,
						   d->batch / d->compute_s,
						   1e-9);
			}
		}
	}
}

FR_TEST(workloads, demand_rows_share_one_basis_h100_is_faster_than_a100)
{
	const struct wl_workload *w;
	const struct wl_demand *a100, *h100, *a10g;
	bool multi = true;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	a100 = wl_demand_find(w, "A100", WL_DEMAND_TRAIN);
	h100 = wl_demand_find(w, "H100", WL_DEMAND_TRAIN);
	a10g = wl_demand_find(w, "A10G", WL_DEMAND_TRAIN);
	cr_assert(a100 && h100 && a10g);
	/* the same-method ratio: H100 SXM ~1.65-1.76x A100 80GB SXM */
	cr_assert_geq(h100->samples_per_s / a100->samples_per_s, 1.6);
	cr_assert_geq(h100->range_lo / a100->samples_per_s, 1.6);
	cr_assert_eq(h100->basis, WL_BASIS_DERIVED);
	cr_assert_float_eq(a10g->samples_per_s, 2470.0 * 638 / 1582, 0.5);
	cr_assert_eq(a10g->basis, WL_BASIS_ESTIMATE, "Lambda's A10 stands "
		     "in for the A10G");
	/* 8x A100: the source's measured figure, not 8 x 2,470 */
	cr_assert_float_eq(wl_demand_total(a100, 8, &multi), 16621, 1e-9);
	cr_assert(multi);
	cr_assert_float_eq(wl_demand_total(a100, 4, &multi), 4 * 2470.0, 1e-9);
	cr_assert_not(multi);
	/* 8x H100: 8x A100 x Lambda's 8-GPU ratio, not perfect scaling */
	cr_assert_float_eq(wl_demand_total(h100, 8, &multi),
			   16621.0 * 22088 / 11439, 1e-5);
	cr_assert(multi);
	cr_assert_lt(wl_demand_total(h100, 8, NULL),
		     8 * h100->samples_per_s);
	cr_assert_float_eq(wl_demand_total(h100, 2, &multi),
			   2 * h100->samples_per_s, 1e-9);
	cr_assert_not(multi);
	cr_assert_float_eq(wl_demand_total(NULL, 8, NULL), 0, 1e-12);
	cr_assert_float_eq(wl_demand_total(a100, 0, NULL), 0, 1e-12);
}

FR_TEST(workloads, resnet50_rows_match_the_reference_figures)
{
	const struct wl_workload *w;
	const struct wl_demand *d;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	d = wl_demand_find(w, "a100", WL_DEMAND_TRAIN);
	cr_assert_not_null(d, "lookup is case-insensitive");
	cr_assert_float_eq(d->samples_per_s, 2470, 0.5);
	cr_assert_eq(d->basis, WL_BASIS_MEASURED);
	d = wl_demand_find(w, "A100", WL_DEMAND_MLPERF);
	cr_assert_not_null(d);
	cr_assert_eq((long)lround(d->samples_per_s), 920);
	d = wl_demand_find(w, "H100", WL_DEMAND_MLPERF);
	cr_assert_eq((long)lround(d->samples_per_s), 1786);
	d = wl_demand_find(w, "H200", WL_DEMAND_TRAIN);
	cr_assert(d && d->basis == WL_BASIS_DERIVED, "H200 is measured by "
		  "Lambda and MLPerf Training, not an estimate");
	cr_assert_float_eq(d->samples_per_s, 4810, 1.5);
	d = wl_demand_find(w, "V100", WL_DEMAND_TRAIN);
	cr_assert_float_eq(d->samples_per_s, 1200, 0.5);
	cr_assert_float_eq(wl_demand_total(d, 8, NULL), 8322, 1e-9);
	cr_assert_null(wl_demand_find(w, "V100", WL_DEMAND_MLPERF));
	cr_assert_null(wl_demand_find(w, "TPU", WL_DEMAND_TRAIN));
	cr_assert_float_eq(w->au_threshold, 0.90, 1e-9);
	cr_assert_eq(w->out_height, 224);
	cr_assert_str_eq(wl_demand_kind_name(WL_DEMAND_MLPERF), "mlperf");
	cr_assert_str_eq(wl_demand_kind_name(WL_DEMAND_CEILING), "ceiling");
	cr_assert_str_eq(wl_demand_kind_name(WL_DEMAND_TRAIN), "train");
}

FR_TEST(workloads, imagenet_spec_is_pure_and_has_imagenet_statistics)
{
	const unsigned n = 20000;
	unsigned n500x375 = 0, n375x500 = 0, gray = 0, cmyk = 0, prog = 0;
	unsigned s444 = 0, small = 0, large = 0;
	double px = 0;

	for (unsigned i = 0; i < n; i++) {
		struct wl_image_spec a, b;

		wl_imagenet_spec(7, i, &a);
		wl_imagenet_spec(7, i, &b);
		cr_assert_eq(memcmp(&a, &b, sizeof(a)), 0);
		cr_assert(a.width >= 16 && a.width <= 2048);
		cr_assert(a.height >= 16 && a.height <= 2048);
		cr_assert(a.quality >= 85 && a.quality <= 97, "q %d",
			  a.quality);
		n500x375 += a.width == 500 && a.height == 375;
		n375x500 += a.width == 375 && a.height == 500;
		gray += a.fmt == AUG_ENC_GRAY;
		cmyk += a.fmt == AUG_ENC_CMYK;
		prog += a.progressive;
		s444 += a.fmt == AUG_ENC_RGB && a.subsamp == AUG_ENC_444;
		small += (a.width > a.height ? a.width : a.height) < 300;
		large += (a.width > a.height ? a.width : a.height) > 1500;
		px += (double)a.width * a.height;
	}
	cr_assert(n500x375 > 0.31 * n && n500x375 < 0.37 * n);
	cr_assert(n375x500 > 0.10 * n && n375x500 < 0.14 * n);
	cr_assert_eq(gray, (n + 64 - 8) / 64);
	cr_assert(cmyk >= n / 500 - 2 && cmyk <= n / 500);
	cr_assert_eq(prog, n / 100);
	cr_assert(s444 > 0.3 * n && s444 < 0.4 * n);
	cr_assert_gt(small, 0, "a tail of small pictures");
	cr_assert_gt(large, 0, "a tail of large pictures");
	px /= n;
	cr_assert(px > 200000 && px < 320000, "mean %.0f px", px);
	{
		struct wl_image_spec a, b;

		wl_imagenet_spec(7, 5, &a);
		wl_imagenet_spec(8, 5, &b);
		cr_assert_neq(a.content_seed, b.content_seed);
	}
}

FR_TEST(workloads, class_names_look_like_wordnet_ids_and_increase)
{
	char prev[16] = "", cur[16];

	for (uint32_t i = 0; i < 1000; i++) {
		wl_class_name(i, cur);
		cr_assert_eq(strlen(cur), 9);
		cr_assert_eq(cur[0], 'n');
		cr_assert_gt(strcmp(cur, prev), 0);
		memcpy(prev, cur, sizeof(prev));
	}
	wl_class_name(0, cur);
	cr_assert_str_eq(cur, "n01440764");
	cr_assert_eq(wl_class_count(1), 1);
	cr_assert_eq(wl_class_count(1000), 10);
	cr_assert_eq(wl_class_count(1281167), 1000);
}

FR_TEST(workloads, synthetic_pictures_are_deterministic_and_not_flat)
{
	struct wl_synth *s = wl_synth_create(640, 480);
	struct wl_image_spec sp = { .width = 640, .height = 480,
				    .quality = 90, .fmt = AUG_ENC_RGB,
				    .content_seed = 99 };
	const uint8_t *px;
	size_t stride;
	uint8_t first[64];
	double sum = 0, sum2 = 0;

	cr_assert_not_null(s);
	cr_assert_eq(wl_synth_render(s, &sp, &px, &stride), 0);
	cr_assert_eq(stride, 640 * 3);
	memcpy(first, px + 100 * stride, sizeof(first));
	for (size_t i = 0; i < 640 * 480 * 3; i++) {
		sum += px[i];
		sum2 += (double)px[i] * px[i];
	}
	sum /= 640 * 480 * 3;
	sum2 = sqrt(sum2 / (640 * 480 * 3) - sum * sum);
	cr_assert(sum2 > 15, "a picture with contrast (sd %.1f)", sum2);
	cr_assert_eq(wl_synth_render(s, &sp, &px, &stride), 0);
	cr_assert_eq(memcmp(first, px + 100 * stride, sizeof(first)), 0);
	sp.width = 641;
	cr_assert_eq(wl_synth_render(s, &sp, &px, &stride), -EINVAL,
		     "larger than the renderer was made for");
	wl_synth_destroy(s);
	wl_synth_destroy(NULL);
}

FR_TEST(workloads, an_unknown_workload_error_lists_the_valid_names,
	.init = cr_redirect_stderr)
{
	char *argv[] = { "gen", "--workload", "imagenett", "--files", "1",
			 "/nonexistent/never-written", NULL };
	char names[512], want[1024];

	wl_names(names, sizeof(names));
	snprintf(want, sizeof(want), "feedrate gen: unknown workload "
		 "'imagenett' (valid: %s)\nTry 'feedrate gen --help'.\n",
		 names);
	cr_assert_eq(cmd_gen(6, argv), FR_EXIT_USAGE);
	fflush(stderr);
	cr_assert_stderr_eq_str(want);
}
