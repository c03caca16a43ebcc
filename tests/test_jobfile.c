/*
 * test_jobfile.c - job files: every built-in loads with its expected
 * values; a user's job file gets the defaults and the parameters it
 * names; each validation error names FILE:LINE and the key (loader and
 * command line, exit 2); files that cannot be read; the workload's
 * defaults and the user's options; --help lists the built-ins; and a user
 * job file run end to end, its batch and GPU rate in the JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "aug_testlib.h"
#include "cli.h"
#include "fault_testlib.h"
#include "harness.h"
#include "jobfile.h"
#include "workloads.h"

static const struct wl_workload *parse_ok(const char *text)
{
	const struct wl_workload *w = NULL;
	char why[512];
	int err = wl_job_parse("t.ini", text, strlen(text), &w, why,
			       sizeof(why));

	cr_assert_eq(err, 0, "parse failed: %s", why);
	cr_assert_not_null(w);
	cr_assert_str_eq(why, "");
	return w;
}

/* The message of TEXT's error (which must be -EINVAL). */
static void parse_bad(const char *text, char *why, size_t len)
{
	const struct wl_workload *w = (void *)1;
	int err = wl_job_parse("t.ini", text, strlen(text), &w, why, len);

	cr_assert_eq(err, -EINVAL, "'%s' parsed (%d)", text, err);
	cr_assert_null(w);
}

static const char *const minimal =
	"[workload]\n"
	"name = mine\n"
	"[transform]\n"
	"kind = image-train\n"
	"[demand train A100]\n"
	"samples_per_s = 1000\n"
	"basis = measured\n"
	"source = our own run\n";

/* ---- the built-ins ---- */

struct want_row {
	const char *gpu;
	enum wl_demand_kind kind;
	double samples_per_s, tokens_per_s;
	unsigned batch;
	double compute_s;
};

struct want {
	const char *name;
	enum wl_format format;
	enum wl_xform xform;
	const char *gen;                /* NULL: none yet */
	unsigned batch;
	double au;
	enum wl_demand_kind demand;
	uint64_t max_sample_bytes;
	uint32_t seq_len, crop, shape3;
	const char *key;
	struct want_row rows[2];        /* two measured rows of the default
	                                   kind */
};

static const struct want wants[] = {
	{ "imagenet", WL_FORMAT_AUTO, WL_XFORM_IMAGE_TRAIN, "imagefolder-jpeg",
	  256, 0.90, WL_DEMAND_TRAIN, 64ull << 20, 0, 224, 0, "",
	  { { "A100", WL_DEMAND_TRAIN, 2470, 0, 0, 0 },
	    { "V100", WL_DEMAND_TRAIN, 1200, 0, 0, 0 } } },
	{ "resnet50", WL_FORMAT_TFRECORD, WL_XFORM_IMAGE_TRAIN,
	  "tfrecord-jpeg", 400, 0.90, WL_DEMAND_MLPERF, 64ull << 20, 0, 224, 0,
	  "",
	  { { "A100", WL_DEMAND_MLPERF, 400 / 0.435, 0, 400, 0.435 },
	    { "H100", WL_DEMAND_MLPERF, 400 / 0.224, 0, 400, 0.224 } } },
	{ "tokens", WL_FORMAT_TOKENS, WL_XFORM_TOKENS,
	  "megatron-idx-bin-u16", 6, 0.90,
	  WL_DEMAND_TRAIN, 0, 2048, 0, 0, "",
	  { { "A100", WL_DEMAND_TRAIN, 4641.0 / 2048, 4641, 0, 0 },
	    { "H100", WL_DEMAND_TRAIN, 10643.0 / 2048, 10643, 0, 0 } } },
	{ "llama3-8b", WL_FORMAT_TOKENS, WL_XFORM_TOKENS,
	  "megatron-idx-bin-u16", 1, 0.90,
	  WL_DEMAND_TRAIN, 0, 8192, 0, 0, "",
	  { { "H100", WL_DEMAND_TRAIN, 14451.0 / 8192, 14451, 0, 0 } } },
	{ "volumes", WL_FORMAT_FOLDER, WL_XFORM_VOLUME, "npy-f32-volumes", 7, 0.90,
	  WL_DEMAND_MLPERF, 1ull << 30, 0, 128, 0, "",
	  { { "A100", WL_DEMAND_MLPERF, 7 / 0.636, 0, 7, 0.636 },
	    { "H100", WL_DEMAND_MLPERF, 7 / 0.323, 0, 7, 0.323 } } },
	{ "unet3d", WL_FORMAT_FOLDER, WL_XFORM_VOLUME,
	  "npz-u8-volume-and-label", 7, 0.90,
	  WL_DEMAND_MLPERF, 1ull << 30, 0, 128, 0, "x",
	  { { "A100", WL_DEMAND_MLPERF, 7 / 0.636, 0, 7, 0.636 },
	    { "H100", WL_DEMAND_MLPERF, 7 / 0.323, 0, 7, 0.323 } } },
	{ "cosmoflow", WL_FORMAT_TFRECORD, WL_XFORM_COSMOFLOW,
	  "tfrecord-cosmoflow", 1, 0.70,
	  WL_DEMAND_MLPERF, 1ull << 30, 0, 0, 4, "x",
	  { { "A100", WL_DEMAND_MLPERF, 1 / 0.00551, 0, 1, 0.00551 },
	    { "H100", WL_DEMAND_MLPERF, 1 / 0.0035, 0, 1, 0.0035 } } },
};

FR_TEST(jobfile, every_builtin_loads_with_its_expected_values)
{
	cr_assert_eq(wl_count(), sizeof(wants) / sizeof(wants[0]));
	cr_assert_str_eq(wl_at(0)->name, "imagenet", "the default heads it");
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *x = &wants[i];
		const struct wl_workload *w;
		char file[64];

		cr_assert_eq(wl_find(x->name, &w), 0, "%s", x->name);
		snprintf(file, sizeof(file), "builtin:%s.ini", x->name);
		cr_expect_str_eq(w->job_file, file);
		cr_expect_eq(w->format, (int)x->format, "%s", x->name);
		cr_expect_eq(w->xform, x->xform, "%s", x->name);
		if (x->gen)
			cr_expect(w->gen && !strcmp(w->gen->layout, x->gen),
				  "%s gen", x->name);
		else
			cr_expect_null(w->gen, "%s", x->name);
		cr_expect_eq(w->batch, x->batch, "%s", x->name);
		cr_expect_float_eq(w->au_threshold, x->au, 1e-12);
		cr_expect_eq(w->default_demand, x->demand, "%s", x->name);
		cr_expect_eq(w->max_sample_bytes, x->max_sample_bytes, "%s",
			     x->name);
		cr_expect_eq(w->xp.seq_len, x->seq_len, "%s", x->name);
		cr_expect_str_eq(w->xp.key, x->key, "%s", x->name);
		if (x->xform == WL_XFORM_IMAGE_TRAIN)
			cr_expect(w->xp.aug.out_w == x->crop &&
				  w->xp.aug.out_h == x->crop);
		if (x->xform == WL_XFORM_VOLUME)
			for (int k = 0; k < 3; k++)
				cr_expect_eq(w->xp.vol_crop[k], x->crop);
		if (x->xform == WL_XFORM_VOLUME)
			cr_expect(w->xp.vol_flip);
		if (x->xform == WL_XFORM_COSMOFLOW) {
			cr_expect_eq(w->xp.cosmo_shape[0], 70);
			cr_expect_eq(w->xp.cosmo_shape[2], 72);
			cr_expect_eq(w->xp.cosmo_shape[3], x->shape3);
		}
		if (x->xform == WL_XFORM_TOKENS)
			cr_expect_eq(w->xp.token_bytes, 8, "int64 windows");
		cr_expect_not_null(wl_demand_default(w, x->demand));
		for (int r = 0; r < 2 && x->rows[r].gpu; r++) {
			const struct want_row *y = &x->rows[r];
			const struct wl_demand *d = wl_demand_find(w, y->gpu,
								   y->kind);

			cr_assert_not_null(d, "%s %s", x->name, y->gpu);
			cr_expect_float_eq(d->samples_per_s, y->samples_per_s,
					   1e-9, "%s %s", x->name, y->gpu);
			cr_expect_float_eq(d->tokens_per_s, y->tokens_per_s,
					   1e-9);
			cr_expect_eq(d->batch, y->batch);
			cr_expect_float_eq(d->compute_s, y->compute_s, 1e-12);
			cr_expect_eq(d->basis, WL_BASIS_MEASURED);
			cr_expect_gt(strlen(d->source), 20);
		}
	}
}

/* The imagenet rows as audited against their sources: figures, kinds,
 * multi-GPU figures and bases (derived rows within a millionth of their
 * formulas). */
FR_TEST(jobfile, imagenet_rows_are_the_audited_table)
{
	const double h100 = 2470.0 * 2791 / 1582, h100_8 = 16621.0 * 22088 /
			    11439, h200 = h100 * 3079 / 2790;
	static const struct {
		const char *gpu;
		enum wl_demand_kind kind;
		double sps, lo, hi;
		unsigned multi;
		double multi_sps;
		enum wl_demand_basis basis;
	} rows[] = {
		{ "A100", WL_DEMAND_TRAIN, 2470, 0, 0, 8, 16621,
		  WL_BASIS_MEASURED },
		{ "A100-40GB", WL_DEMAND_TRAIN, 2470.0 * 1396 / 1527, 0, 0, 8,
		  16621.0 * 1396 / 1527, WL_BASIS_DERIVED },
		{ "A100-PCIe", WL_DEMAND_TRAIN, 2470.0 * 1527 / 1582, 0, 0, 8,
		  16621.0 * 1527 / 1582, WL_BASIS_DERIVED },
		{ "V100", WL_DEMAND_TRAIN, 1200, 0, 0, 8, 8322,
		  WL_BASIS_MEASURED },
		{ "H100", WL_DEMAND_TRAIN, 2470.0 * 2791 / 1582,
		  2470.0 * 2616 / 1582, 2470.0 * 2791 / 1582, 8,
		  16621.0 * 22088 / 11439, WL_BASIS_DERIVED },
		{ "H100-PCIe", WL_DEMAND_TRAIN, 2470.0 * 1866 / 1582,
		  2470.0 * 1851 / 1582, 2470.0 * 1866 / 1582, 8,
		  16621.0 * 1866 / 1582, WL_BASIS_DERIVED },
		{ "H200", WL_DEMAND_TRAIN, -1, -1, -1, 8, -1,
		  WL_BASIS_DERIVED },
		{ "A10G", WL_DEMAND_TRAIN, 2470.0 * 638 / 1582, 0, 0, 8,
		  16621.0 * 638 / 1582, WL_BASIS_ESTIMATE },
		{ "L4", WL_DEMAND_TRAIN, 500, 0, 0, 0, 0, WL_BASIS_ESTIMATE },
		{ "T4", WL_DEMAND_TRAIN, 425, 0, 0, 0, 0, WL_BASIS_ESTIMATE },
		{ "A100", WL_DEMAND_MLPERF, 400 / 0.435, 0, 0, 0, 0,
		  WL_BASIS_MEASURED },
		{ "H100", WL_DEMAND_MLPERF, 400 / 0.224, 0, 0, 0, 0,
		  WL_BASIS_MEASURED },
		{ "A100", WL_DEMAND_CEILING, 3400, 0, 0, 8, 8 * 3400,
		  WL_BASIS_MEASURED },
		{ "H100", WL_DEMAND_CEILING, 7160, 7000, 7175, 8, 8 * 7160,
		  WL_BASIS_MEASURED },
		{ "H200", WL_DEMAND_CEILING, 7960, 7900, 7987.5, 8, 8 * 7960,
		  WL_BASIS_MEASURED },
	};
	const struct wl_workload *w;
	const struct wl_demand *d;

	cr_assert_eq(wl_find("imagenet", &w), 0);
	cr_assert_eq(w->ndemand, sizeof(rows) / sizeof(rows[0]));
	for (size_t i = 0; i < w->ndemand; i++) {
		/* H200: H100's row x Lambda's v2 H200 / H100 (3,079 / 2,790);
		 * 8 GPUs: H100's x MLPerf Training v4.0's 8x H200 / 8x H100 */
		const bool h2 = rows[i].sps < 0;

		d = &w->demand[i];
		cr_expect_str_eq(d->gpu, rows[i].gpu, "row %zu", i);
		cr_expect_eq(d->kind, rows[i].kind, "row %zu", i);
		cr_expect_float_eq(d->samples_per_s, h2 ? h200 : rows[i].sps,
				   1e-6, "%s", d->gpu);
		cr_expect_float_eq(d->range_lo, h2 ? 2470.0 * 2616 / 1582 *
				   3079 / 2790 : rows[i].lo, 1e-6);
		cr_expect_float_eq(d->range_hi, h2 ? h200 : rows[i].hi, 1e-6);
		cr_expect_eq(d->multi_gpus, rows[i].multi, "%s", d->gpu);
		cr_expect_float_eq(d->multi_samples_per_s, h2 ? h100_8 * 1.11 :
				   rows[i].multi_sps, 1e-6, "%s", d->gpu);
		cr_expect_eq(d->basis, rows[i].basis, "%s", d->gpu);
	}
	d = wl_demand_find(w, "A100", WL_DEMAND_TRAIN);
	cr_expect_str_eq(d->gpu_detail, "A100 80GB SXM");
	cr_expect_str_eq(d->source, "NVIDIA DeepLearningExamples, "
			 "PyTorch/Classification/ConvNets/resnet50v1.5/"
			 "README.md (AMP, batch 256, its CPU data loader: "
			 "data_backend pytorch in configs.yml); 8x A100 80GB: "
			 "16,621 (2,078 per GPU)");
	d = wl_demand_find(w, "H200", WL_DEMAND_TRAIN);
	cr_expect_not_null(strstr(d->source, "pytorch-train-throughput-v2-"
				  "fp16.csv"), "%s", d->source);
	cr_expect_not_null(strstr(d->source, "MLPerf Training v4.0"));
	d = wl_demand_find(w, "A10G", WL_DEMAND_TRAIN);
	cr_expect_not_null(strstr(d->source, "stands in"), "%s", d->source);
	d = wl_demand_find(w, "H100", WL_DEMAND_CEILING);
	cr_expect_not_null(strstr(d->source, "eos_ngc24.04_mxnet"), "%s",
			   d->source);
	d = wl_demand_find(w, "A100", WL_DEMAND_CEILING);
	cr_expect_not_null(strstr(d->source, "MLPerf Training v2.0 closed"),
			   "%s", d->source);
	d = wl_demand_find(w, "A100", WL_DEMAND_MLPERF);
	cr_expect_str_eq(d->source, "mlcommons/storage configs/dlio/workload/"
			 "resnet50_*.yaml (same in argonne-lcf/dlio_benchmark) "
			 "(batch 400, computation_time 0.435 s: 920 "
			 "samples/s)");
	cr_expect_eq(w->image_spec, wl_imagenet_spec);
	cr_expect_str_eq(w->file_ext, ".JPEG");
	cr_expect_eq(w->dataset_files, 1281167);
	cr_expect_float_eq(w->mean_file_bytes, 114.7e3, 1e-9);
	cr_expect_str_eq(w->transform, "decode -> RandomResizedCrop 224 "
			 "(scale 0.08-1, ratio 3/4-4/3) -> flip -> normalize "
			 "-> CHW");
	{
		struct aug_params a;

		aug_params_default(&a);
		cr_expect_eq(memcmp(&a, &w->xp.aug, sizeof(a)), 0,
			     "imagenet's transform is aug_params_default");
	}
}

/* resnet50 carries imagenet's training and ceiling rows too, for
 * --demand train and --demand ceiling: the same rows, field by field. */
FR_TEST(jobfile, resnet50_has_imagenets_training_rows)
{
	const struct wl_workload *r, *i;

	cr_assert_eq(wl_find("resnet50", &r), 0);
	cr_assert_eq(wl_find("imagenet", &i), 0);
	cr_assert_eq(r->ndemand, i->ndemand);
	for (size_t k = 0; k < i->ndemand; k++) {
		const struct wl_demand *a = &i->demand[k];
		const struct wl_demand *b = wl_demand_find(r, a->gpu, a->kind);

		cr_assert_not_null(b, "%s", a->gpu);
		cr_expect_float_eq(a->samples_per_s, b->samples_per_s, 1e-12);
		cr_expect_eq(a->multi_gpus, b->multi_gpus, "%s", a->gpu);
		cr_expect_float_eq(a->multi_samples_per_s,
				   b->multi_samples_per_s, 1e-12);
		cr_expect_float_eq(a->range_lo, b->range_lo, 1e-12);
		cr_expect_float_eq(a->range_hi, b->range_hi, 1e-12);
		cr_expect_eq(a->basis, b->basis, "%s", a->gpu);
		cr_expect_str_eq(a->gpu_detail, b->gpu_detail);
		cr_expect_str_eq(a->source, b->source);
	}
}

/* ---- a user's job file ---- */

FR_TEST(jobfile, a_minimal_file_gets_torchvisions_recipe_and_the_defaults)
{
	const struct wl_workload *w = parse_ok(minimal);
	struct aug_params a;

	aug_params_default(&a);
	cr_expect_eq(memcmp(&a, &w->xp.aug, sizeof(a)), 0);
	cr_expect_str_eq(w->name, "mine");
	cr_expect_str_eq(w->job_file, "t.ini");
	cr_expect_float_eq(w->au_threshold, 0.90, 1e-12);
	cr_expect_eq(w->batch, 0, "0: the command's default");
	cr_expect_eq(w->max_sample_bytes, 0);
	cr_expect_eq(w->default_demand, WL_DEMAND_TRAIN);
	cr_expect_eq(w->format, WL_FORMAT_AUTO);
	cr_expect_null(w->gen);
	cr_expect_eq(w->out_channels, 3);
	cr_expect_eq(w->out_height, 224);
	cr_expect_eq(w->ndemand, 1);
	cr_expect_str_eq(w->demand[0].gpu_detail, "A100");
	cr_expect_not_null(strstr(w->description, "mine"));
	cr_expect_not_null(strstr(w->transform, "RandomResizedCrop 224x224"));
	wl_job_free(w);
	wl_job_free(NULL);
}

FR_TEST(jobfile, every_image_parameter_is_taken)
{
	const struct wl_workload *w = parse_ok(
		"# a comment\n"
		"[workload]\n"
		"name = small.crop_1\n"
		"description = smaller crops\n"
		"format = wds\n"
		"gen = imagefolder-jpeg\n"
		"batch = 64\n"
		"au_threshold = 85%\n"
		"default_demand = mlperf\n"
		"max_sample_bytes = 2M\n"
		"mean_file_bytes = 110K\n"
		"sd_file_bytes = 20000\n"
		"dataset_files = 1000\n"
		"mean_width = 500\n"
		"mean_height = 375\n"
		"stats_source = our bucket\n"
		"[transform]\n"
		"crop = 160x128\n"
		"scale = 0.35, 1\n"
		"ratio = 2/3 3/2\n"
		"tries = 5\n"
		"flip = 0\n"
		"mean = 0.5 0.5 0.5\n"
		"std = 0.25 0.25 0.25\n"
		"dtype = bf16\n"
		"layout = hwc\n"
		"roi_decode = no\n"
		"dct_scale = off\n"
		"kind = image-train\n"      /* the kind may come last */
		"[demand mlperf A100]\n"
		"batch = 64\n"
		"compute_s = 0.05\n"
		"basis = estimate\n"
		"source = estimate: ours\n");
	const struct aug_params *a = &w->xp.aug;

	cr_expect_str_eq(w->name, "small.crop_1");
	cr_expect_eq(w->format, WL_FORMAT_WDS);
	cr_expect_eq(w->gen, wl_gen_find("imagefolder-jpeg")->ops);
	cr_expect_eq(w->image_spec, wl_imagenet_spec);
	cr_expect_str_eq(w->file_ext, ".JPEG", "an image generator's default");
	cr_expect_eq(w->batch, 64);
	cr_expect_float_eq(w->au_threshold, 0.85, 1e-12);
	cr_expect_eq(w->default_demand, WL_DEMAND_MLPERF);
	cr_expect_eq(w->max_sample_bytes, 2u << 20);
	cr_expect_float_eq(w->mean_file_bytes, 110 * 1024, 1e-9);
	cr_expect_float_eq(w->sd_file_bytes, 20000, 1e-9);
	cr_expect_eq(w->dataset_files, 1000);
	cr_expect_eq(a->out_w, 160);
	cr_expect_eq(a->out_h, 128);
	cr_expect_float_eq(a->rrc.scale_min, 0.35, 1e-12);
	cr_expect_float_eq(a->rrc.ratio_min, 2.0 / 3.0, 1e-12);
	cr_expect_float_eq(a->rrc.ratio_max, 1.5, 1e-12);
	cr_expect_eq(a->rrc.tries, 5);
	cr_expect_float_eq(a->flip_p, 0, 1e-12);
	cr_expect_float_eq(a->mean[1], 0.5f, 1e-7);
	cr_expect_float_eq(a->std[2], 0.25f, 1e-7);
	cr_expect_eq(a->dtype, AUG_DT_BF16);
	cr_expect_eq(a->layout, AUG_LAYOUT_HWC);
	cr_expect_not(a->roi_decode);
	cr_expect_not(a->dct_scale);
	cr_expect_eq(w->out_width, 160);
	cr_expect_eq(w->out_height, 128);
	cr_expect_float_eq(w->demand[0].samples_per_s, 64 / 0.05, 1e-9);
	cr_expect_eq(w->demand[0].basis, WL_BASIS_ESTIMATE);
	wl_job_free(w);
}

FR_TEST(jobfile, volume_token_and_cosmoflow_parameters_are_taken)
{
	const struct wl_workload *v = parse_ok(
		"[workload]\nname = v\ndefault_demand = mlperf\n"
		"[transform]\nkind = volume-crop\ncrop = 64\nflip = no\n"
		"key = image\n"
		"[demand mlperf H100]\nsamples_per_s = 20\nbasis = derived\n"
		"source = 2 x 10\n");
	const struct wl_workload *t = parse_ok(
		"[workload]\nname = t\n"
		"[transform]\nkind = tokens\nseq_len = 4096\ndtype = int32\n"
		"key = tokens\n"
		"[demand train H100]\ntokens_per_s = 8192\nbasis = measured\n"
		"source = a run of ours\n");
	const struct wl_workload *c = parse_ok(
		"[workload]\nname = c\nau_threshold = 0.7\n"
		"[transform]\nkind = cosmoflow\nshape = 4x5x6x2\n"
		"[demand train A100]\nsamples_per_s = 100\nbasis = estimate\n"
		"source = estimate of ours\n");

	cr_expect_eq(v->xform, WL_XFORM_VOLUME);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(v->xp.vol_crop[i], 64, "one size: a cube");
	cr_expect_not(v->xp.vol_flip);
	cr_expect_str_eq(v->xp.key, "image");
	cr_expect_eq(t->xform, WL_XFORM_TOKENS);
	cr_expect_eq(t->xp.seq_len, 4096);
	cr_expect_eq(t->xp.token_bytes, 4);
	cr_expect_float_eq(t->demand[0].tokens_per_s, 8192, 1e-12);
	cr_expect_float_eq(t->demand[0].samples_per_s, 2, 1e-12,
			   "samples/s = tokens/s / seq_len");
	cr_expect_eq(c->xform, WL_XFORM_COSMOFLOW);
	cr_expect_eq(c->xp.cosmo_shape[0], 4);
	cr_expect_eq(c->xp.cosmo_shape[3], 2);
	cr_expect_float_eq(c->au_threshold, 0.7, 1e-12);
	wl_job_free(v);
	wl_job_free(t);
	wl_job_free(c);
}

FR_TEST(jobfile, continuation_lines_crlf_and_a_bom_are_read_like_inih)
{
	const struct wl_workload *w = parse_ok(
		"\xef\xbb\xbf[workload]\r\n"
		"name = mine\r\n"
		"description = one ; an inline comment\r\n"
		"   two\r\n"
		"\r\n"
		"\tthree\r\n"
		"[demand train A100]\r\n"
		"samples_per_s = 10\r\n"
		"basis = measured\r\n"
		"source = ours\r\n"
		"  # an indented comment is a comment\r\n"
		"  and more\r\n");

	cr_expect_str_eq(w->description, "one two three");
	cr_expect_str_eq(w->demand[0].source, "ours and more");
	cr_expect_eq(w->xform, WL_XFORM_NONE, "no [transform]: none");
	wl_job_free(w);
}

/* ---- validation: FILE:LINE: key 'K': reason, or for a bad value the
 * key engine's words, as the command line's: key 'K' wants ..., not 'V' */

struct bad {
	const char *what;
	const char *text;
	const char *want;       /* the message starts with it */
	const char *also;       /* and holds this (may be NULL) */
};

#define W0 "[workload]\nname = x\n"
#define ROW "[demand train A100]\nsamples_per_s = 9\nbasis = measured\n" \
	"source = ours\n"

static const struct bad bads[] = {
	{ "a volume crop no batch slot holds", W0 "[transform]\n"
	  "kind = volume-crop\ncrop = 1024x1024x512\n" ROW,
	  "t.ini:5: key 'crop': 536870912 voxels a sample: at most 134217728",
	  NULL },
	{ "a cosmoflow shape past its generator", W0 "gen = tfrecord-cosmoflow\n"
	  "mean_file_bytes = 3M\nstats_source = ours\n[transform]\n"
	  "kind = cosmoflow\nshape = 64x64x64x8\n" ROW,
	  "t.ini:8: key 'shape': gen tfrecord-cosmoflow writes sides up to "
	  "4096 and up to 4 channels", NULL },
	{ "a volume generator without sizes", W0 "gen = npy-f32-volumes\n"
	  "[transform]\nkind = volume-crop\n" ROW,
	  "t.ini: [workload] needs mean_file_bytes (the generator draws file "
	  "sizes around it)", NULL },
	{ "a sequence no sample slot holds", W0 "[transform]\nkind = tokens\n"
	  "seq_len = 8388608\n" ROW,
	  "t.ini:5: key 'seq_len' wants 1..4194304, not '8388608'",
	  NULL },
	{ "an unknown section", W0 "[bogus]\n" ROW,
	  "t.ini:3: [bogus]: unknown section", "[demand KIND GPU]" },
	{ "an unknown key", W0 "colour = red\n" ROW,
	  "t.ini:3: key 'colour': unknown key in [workload]", "batch" },
	{ "a bad number", W0 "batch = ten\n" ROW,
	  "t.ini:3: key 'batch' wants 1..65536, not 'ten'", NULL },
	{ "a number with junk", W0 "batch = 8x\n" ROW,
	  "t.ini:3: key 'batch' wants 1..65536, not '8x'", NULL },
	{ "an out-of-range value", W0 "au_threshold = 1.5\n" ROW,
	  "t.ini:3: key 'au_threshold' wants a share > 0, at most 1 (0.9 "
	  "or 90%), not '1.5'", NULL },
	{ "a zero batch", W0 "batch = 0\n" ROW,
	  "t.ini:3: key 'batch' wants 1..65536, not '0'", NULL },
	{ "a row without a source", W0
	  "[demand train A100]\nsamples_per_s = 9\nbasis = measured\n",
	  "t.ini: [demand train A100] needs source", NULL },
	{ "a row without a rate", W0
	  "[demand train A100]\nbasis = measured\nsource = x\n",
	  "t.ini: [demand train A100] needs samples_per_s", NULL },
	{ "two rows for one GPU and kind", W0 ROW
	  "[demand train a100]\nsamples_per_s = 9\n",
	  "t.ini:7: [demand train a100]: a second train row for GPU A100 "
	  "(the first is at line 3)", NULL },
	{ "a parameter of another transform",
	  W0 "[transform]\nkind = image-train\nseq_len = 2048\n" ROW,
	  "t.ini:5: key 'seq_len': not a parameter of transform image-train",
	  "crop" },
	{ "tokens without seq_len",
	  W0 "[transform]\nkind = image-train\n"
	  "[demand train A100]\ntokens_per_s = 9\nbasis = measured\n"
	  "source = ours\n",
	  "t.ini:6: key 'tokens_per_s': needs seq_len in [transform]", NULL },
	{ "a token transform without seq_len",
	  W0 "[transform]\nkind = tokens\n" ROW,
	  "t.ini: [transform] needs seq_len", NULL },
	{ "8 GPUs that eat more than 8 x one", W0
	  "[demand train A100]\nsamples_per_s = 9\nmulti_gpus = 8\n"
	  "multi_samples_per_s = 73\nbasis = measured\nsource = ours\n",
	  "t.ini:6: key 'multi_samples_per_s': 73 samples/s for 8 GPUs is "
	  "more than 8 x the row's 9 for one", NULL },
	{ "an unknown demand kind", W0
	  "[demand peak A100]\nsamples_per_s = 9\nbasis = measured\n"
	  "source = ours\n", "t.ini:3: [demand peak A100]: a demand row is "
	  "[demand KIND GPU], KIND train, mlperf or ceiling", NULL },
	{ "a kind in capitals", W0
	  "[demand Ceiling A100]\nsamples_per_s = 9\nbasis = measured\n"
	  "source = ours\n", "t.ini:3: [demand Ceiling A100]: a demand row "
	  "is [demand KIND GPU]", NULL },
	{ "a default kind without its row", W0 "default_demand = ceiling\n"
	  ROW, "t.ini: [workload] needs a [demand ceiling GPU] row", NULL },
	{ "a workload without a name", "[workload]\nbatch = 8\n" ROW,
	  "t.ini: [workload] needs name", NULL },
	{ "no [workload]", ROW, "t.ini: no [workload] section", NULL },
	{ "a key given twice", W0 "batch = 8\nbatch = 9\n" ROW,
	  "t.ini:4: key 'batch': given twice (first at line 3)", NULL },
	{ "a key outside a section", "batch = 8\n" W0 ROW,
	  "t.ini:1: key 'batch': outside a section", NULL },
	{ "a line that is not INI", W0 "just words\n" ROW,
	  "t.ini:3: not a [section], a key = value line or a comment",
	  NULL },
	{ "an unterminated section", W0 "[demand train A100\n",
	  "t.ini:3: not a [section]", NULL },
	{ "an unknown generator", W0 "gen = nothing\n" ROW,
	  "t.ini:3: key 'gen' wants one of ", "imagefolder-jpeg" },
	{ "an unknown transform", W0 "[transform]\ncrop = 9\n"
	  "kind = warp\n" ROW,
	  "t.ini:5: key 'kind' wants none, image-train, volume-crop, "
	  "tokens or cosmoflow, not 'warp'", NULL },
	{ "a range without the row's rate", W0
	  "[demand train A100]\nsamples_per_s = 9\nrange = 1 2\n"
	  "basis = measured\nsource = x\n",
	  "t.ini:5: key 'range': 1-2 does not hold", NULL },
	{ "two rates in a row", W0
	  "[demand train A100]\nsamples_per_s = 9\nsamples_per_s = 8\n",
	  "t.ini:5: key 'samples_per_s': given twice", NULL },
	{ "samples and tokens", W0 "[transform]\nkind = tokens\n"
	  "seq_len = 8\n[demand train A100]\nsamples_per_s = 9\n"
	  "tokens_per_s = 8\nbasis = measured\nsource = x\n",
	  "t.ini:8: key 'tokens_per_s': the row's rate is given twice",
	  NULL },
	{ "an MLPerf step in a training row", W0
	  "[demand train A100]\nbatch = 4\ncompute_s = 1\n"
	  "basis = measured\nsource = x\n",
	  "t.ini:4: key 'batch': batch and compute_s are", NULL },
	{ "batch without compute_s", W0
	  "[demand mlperf A100]\nbatch = 4\nbasis = measured\nsource = x\n"
	  ROW, "t.ini: [demand mlperf A100] needs compute_s", NULL },
	{ "no row of the default kind", W0 "default_demand = mlperf\n" ROW,
	  "t.ini: [workload] needs a [demand mlperf GPU] row", NULL },
	{ "an empty value", W0 "layout =\n" ROW,
	  "t.ini:3: key 'layout': has no value", NULL },
	{ "a bad crop", W0 "[transform]\nkind = volume-crop\n"
	  "crop = 128x\n" ROW,
	  "t.ini:5: key 'crop' wants N or DxHxW, each 1..4096, not '128x'",
	  NULL },
	{ "a bad demand section", W0 "[demand peak A100]\n",
	  "t.ini:3: [demand peak A100]: a demand row is [demand KIND GPU]",
	  NULL },
	{ "a bad name", "[workload]\nname = My Work\n" ROW,
	  "t.ini:2: key 'name' wants a workload name: a-z, 0-9, '.', '_', "
	  "'-', at most 63, not 'My Work'", NULL },
	{ "a size with a bad unit", W0 "max_sample_bytes = 64Q\n" ROW,
	  "t.ini:3: key 'max_sample_bytes' wants a size (e.g. 4K, 64M, "
	  "1.5G), 4K..16G, not '64Q'", NULL },
	{ "hex and inf are not numbers", W0 "[transform]\n"
	  "kind = image-train\nflip = 0x1\n" ROW,
	  "t.ini:5: key 'flip' wants 0..1, not '0x1'", NULL },
	{ "stats without their source", W0 "mean_width = 400\n" ROW,
	  "t.ini: [workload] needs stats_source", NULL },
	{ "an image generator without a mean size", W0
	  "gen = imagefolder-jpeg\n" ROW,
	  "t.ini: [workload] needs mean_file_bytes", NULL },
	{ "the earliest error is the one said", W0 "batch = 0\n"
	  "[bogus]\n" ROW, "t.ini:3: key 'batch'", NULL },
	{ "a NUL byte", W0 "layout = a\0b\n" ROW, "t.ini:3: a NUL byte",
	  NULL },
};

FR_TEST(jobfile, each_validation_error_names_the_file_line_and_key)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		char why[512];
		size_t len = strlen(bads[i].text);
		const struct wl_workload *w = (void *)1;
		int err;

		/* the NUL case: its text runs past the NUL */
		if (strstr(bads[i].want, "NUL"))
			len += 1 + strlen(bads[i].text + len + 1);
		err = wl_job_parse("t.ini", bads[i].text, len, &w, why,
				   sizeof(why));
		cr_expect_eq(err, -EINVAL, "%s: %d", bads[i].what, err);
		cr_expect_null(w, "%s", bads[i].what);
		cr_expect_eq(strncmp(why, bads[i].want, strlen(bads[i].want)),
			     0, "%s:\n  got  %s\n  want %s", bads[i].what, why,
			     bads[i].want);
		if (bads[i].also)
			cr_expect_not_null(strstr(why, bads[i].also),
					   "%s: %s", bads[i].what, why);
	}
}

FR_TEST(jobfile, a_line_too_long_for_inih_is_refused_not_cut)
{
	char text[1024], why[512];

	snprintf(text, sizeof(text), W0 "layout = %0300d\n" ROW, 7);
	parse_bad(text, why, sizeof(why));
	cr_expect_not_null(strstr(why, "t.ini:3: the line is longer than"),
			   "%s", why);
	/* the lines after it keep their numbers */
	snprintf(text, sizeof(text), W0 "layout = a\n    %0150d\n"
		 "    %0150d\nbatch = -1\n" ROW, 1, 2);
	parse_bad(text, why, sizeof(why));
	cr_expect_not_null(strstr(why, "t.ini:6: key 'batch'"), "%s", why);
}

FR_TEST(jobfile, an_empty_text_or_null_arguments_are_refused)
{
	const struct wl_workload *w;
	char why[256];

	cr_expect_eq(wl_job_parse("t.ini", "", 0, &w, why, sizeof(why)),
		     -EINVAL);
	cr_expect_str_eq(why, "t.ini: no [workload] section");
	cr_expect_eq(wl_job_parse("t.ini", NULL, 5, &w, NULL, 0), -EINVAL);
	cr_expect_eq(wl_job_parse("t.ini", minimal, strlen(minimal), NULL,
				  NULL, 0), -EINVAL);
}

/* ---- files ---- */

static char *write_file(const char *dir, const char *name, const char *s,
			size_t len)
{
	char *path = malloc(4096);
	FILE *f;

	snprintf(path, 4096, "%s/%s", dir, name);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(s, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	return path;
}

FR_TEST(jobfile, files_that_cannot_be_read_say_why)
{
	char *dir = fr_test_tmpdir();
	char *ok = write_file(dir, "ok.ini", minimal, strlen(minimal));
	char path[4096], why[512];
	const struct wl_workload *w;
	char *big;

	cr_assert_eq(wl_job_load(ok, &w, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(w->job_file, ok);
	wl_job_free(w);
	snprintf(path, sizeof(path), "%s/none.ini", dir);
	cr_expect_eq(wl_job_load(path, &w, why, sizeof(why)), -ENOENT);
	cr_expect_not_null(strstr(why, "none.ini: No such file"), "%s", why);
	cr_expect_eq(wl_job_load(dir, &w, why, sizeof(why)), -EISDIR);
	cr_expect_not_null(strstr(why, "a folder, not a job file"), "%s",
			   why);
	cr_expect_eq(wl_job_load("/dev/null", &w, why, sizeof(why)), -EINVAL);
	big = calloc(1, WL_JOB_MAX_BYTES + 2);
	memset(big, '#', WL_JOB_MAX_BYTES + 1);
	free(write_file(dir, "big.ini", big, WL_JOB_MAX_BYTES + 1));
	free(big);
	snprintf(path, sizeof(path), "%s/big.ini", dir);
	cr_expect_eq(wl_job_load(path, &w, why, sizeof(why)), -EFBIG);
	free(ok);
	fr_test_rmtree(dir);
}

/* As root, permissions do not apply: a child drops the capabilities that
 * bypass them. */
FR_TEST(jobfile, an_unreadable_file_is_eacces)
{
	char *dir = fr_test_tmpdir();
	char *path = write_file(dir, "secret.ini", minimal, strlen(minimal));
	int status;
	pid_t pid;

	cr_assert_eq(chmod(path, 0), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		static const cap_value_t dac[] = { CAP_DAC_OVERRIDE,
						   CAP_DAC_READ_SEARCH };
		const struct wl_workload *w;
		char why[512];
		cap_t c = cap_get_proc();

		if (!c || cap_set_flag(c, CAP_EFFECTIVE, 2, dac, CAP_CLEAR) ||
		    cap_set_proc(c))
			_exit(77);
		cap_free(c);
		_exit(wl_job_load(path, &w, why, sizeof(why)) == -EACCES &&
		      strstr(why, "Permission denied") ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	free(path);
	fr_test_rmtree(dir);
	cr_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		cr_skip_test("cannot drop CAP_DAC_OVERRIDE here");
	cr_assert_eq(WEXITSTATUS(status), 0);
}

/* ---- the command line ---- */

static void no_usage(FILE *f)
{
	(void)f;
}

FR_TEST(jobfile, the_workloads_defaults_apply_where_no_option_was_given)
{
	static const struct cli_usage usage = { no_usage, NULL };
	char *argv[] = { "run", "-b", "16", "--demand", "tuned",
			 "--max-sample-bytes", "2M", NULL };
	struct cli_bind b[CLI_COMMON_BINDS];
	const struct wl_workload *w;
	struct ms_common_opts o;
	size_t n;

	cr_assert_eq(wl_find("unet3d", &w), 0);
	ms_common_defaults(&o);
	ms_common_from_workload(&o, w);
	cr_expect_eq(o.batch, 7);
	cr_expect_eq(o.demand, WL_DEMAND_MLPERF);
	cr_expect_eq(o.max_sample_bytes, 1ull << 30);
	/* the user's options win */
	ms_common_defaults(&o);
	n = cli_common_binds(&o, b);
	cr_assert_eq(cli_opts_parse(CLI_RUN, 7, argv, b, n, &usage), 0);
	ms_common_from_workload(&o, w);
	cr_expect_eq(o.batch, 16);
	cr_expect_eq(o.demand, WL_DEMAND_TRAIN);
	cr_expect_eq(o.max_sample_bytes, 2u << 20);
	/* a workload without a cap leaves the command's */
	cr_assert_eq(wl_find("tokens", &w), 0);
	ms_common_defaults(&o);
	ms_common_from_workload(&o, w);
	cr_expect_eq(o.max_sample_bytes, 64ull << 20);
	cr_expect_eq(o.batch, 6);
}

static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	char *s;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

FR_TEST(jobfile_cli, help_of_run_sweep_and_gen_lists_the_builtins)
{
	static const char *const cmds[] = { "run", "sweep", "gen" };
	char *dir = fault_tmpdir();

	for (size_t c = 0; c < 3; c++) {
		char *argv[] = { (char *)fr_test_bin(), (char *)cmds[c],
				 "--help", NULL };
		char *out;

		cr_assert_eq(fr_test_run(dir, argv, 60), 0, "%s", cmds[c]);
		out = slurp(dir, "stdout");
		for (size_t i = 0; i < wl_count(); i++) {
			char line[256];

			snprintf(line, sizeof(line), "%-12s %s",
				 wl_at(i)->name, wl_at(i)->description);
			cr_expect_not_null(strstr(out, line), "%s --help "
					   "lacks '%s'", cmds[c], line);
		}
		free(out);
	}
	fr_test_rmtree(dir);
}

/* Each validation case through `feedrate run --workload FILE`: exit 2,
 * the message naming the file, its line and the key. */
FR_TEST(jobfile_cli, job_file_errors_are_usage_errors_naming_file_line_key)
{
	char *dir = fault_tmpdir();

	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		size_t len = strlen(bads[i].text);
		char *path, *err, want[600];

		if (strstr(bads[i].want, "NUL"))
			len += 1 + strlen(bads[i].text + len + 1);
		path = write_file(dir, "t.ini", bads[i].text, len);
		{
			char *argv[] = { (char *)fr_test_bin(), "run",
					 "--workload", path, dir, NULL };

			cr_expect_eq(fr_test_run(dir, argv, 60), 2, "%s",
				     bads[i].what);
		}
		err = slurp(dir, "stderr");
		/* the message names the path as given */
		snprintf(want, sizeof(want), "feedrate run: --workload: %s/%s",
			 dir, bads[i].want);
		cr_expect_not_null(strstr(err, want), "%s:\n  got  %s  want "
				   "%s", bads[i].what, err, want);
		free(err);
		free(path);
	}
	fr_test_rmtree(dir);
}

FR_TEST(jobfile_cli, a_missing_a_folder_and_an_unreadable_file_are_exit_2)
{
	char *dir = fault_tmpdir();
	char *secret = write_file(dir, "secret.ini", minimal,
				  strlen(minimal));
	char none[4096];
	const char *const cases[][2] = {
		{ none, "No such file or directory" },
		{ dir, "a folder, not a job file" },
	};
	struct fault_opts fo = { .as = FAULT_NO_DAC };
	struct fault_run r;
	char *err;

	snprintf(none, sizeof(none), "%s/none.ini", dir);
	for (size_t i = 0; i < 2; i++) {
		char *argv[] = { (char *)fr_test_bin(), "run", "--workload",
				 (char *)cases[i][0], "--gpus", "0", dir,
				 NULL };

		cr_expect_eq(fr_test_run(dir, argv, 60), 2, "%s",
			     cases[i][1]);
		err = slurp(dir, "stderr");
		cr_expect_not_null(strstr(err, cases[i][1]), "%s", err);
		free(err);
	}
	/* unreadable: run without the capabilities that bypass modes */
	cr_assert_eq(chmod(secret, 0), 0);
	if (geteuid() == 0) {
		const char *args[] = { "run", "--workload", secret, dir, NULL };

		fault_exec2(dir, args, NULL, &fo, &r);
		cr_expect_eq(r.status, 2);
		err = slurp(dir, "stderr");
		cr_expect_not_null(strstr(err, "secret.ini: Permission denied"),
				   "%s", err);
		free(err);
	}
	free(secret);
	fr_test_rmtree(dir);
}

FR_TEST(jobfile_cli, gen_writes_the_workloads_layout_through_its_gen)
{
	char *dir = fault_tmpdir();
	char out[4096], path[4096];
	struct stat st;

	/* resnet50 is TFRecord shards; --format folder still gives JPEGs */
	snprintf(out, sizeof(out), "%s/r50", dir);
	{
		char *argv[] = { (char *)fr_test_bin(), "gen", "-q", "-w",
				 "resnet50", "--files", "4", out, NULL };

		cr_assert_eq(fr_test_run(dir, argv, 120), 0);
	}
	cr_assert_lt(snprintf(path, sizeof(path), "%.4000s/train-00000-of-"
			      "00001.tfrecord", out), (int)sizeof(path));
	cr_expect_eq(stat(path, &st), 0, "no %s", path);
	snprintf(out, sizeof(out), "%s/r50f", dir);
	{
		char *argv[] = { (char *)fr_test_bin(), "gen", "-q", "-w",
				 "resnet50", "--format", "folder", "--files",
				 "2", out, NULL };

		cr_assert_eq(fr_test_run(dir, argv, 120), 0);
	}
	cr_assert_lt(snprintf(path, sizeof(path), "%.4000s/train", out),
		     (int)sizeof(path));
	cr_expect_eq(stat(path, &st), 0, "no %s", path);
	/* a job file's TFRecord generator: its shards, with gen's summary */
	{
		static const char job[] =
			"[workload]\nname = t\ngen = tfrecord-jpeg\n"
			"mean_file_bytes = 100K\nstats_source = a guess\n"
			"[transform]\nkind = image-train\n" ROW;
		char *jf = write_file(dir, "t.ini", job, strlen(job));
		char *argv[] = { (char *)fr_test_bin(), "gen", "-w", jf,
				 "--files", "3", out, NULL };
		char *so;

		snprintf(out, sizeof(out), "%s/tf", dir);
		cr_assert_eq(fr_test_run(dir, argv, 120), 0);
		so = slurp(dir, "stdout");
		cr_expect_not_null(strstr(so, "as tfrecord: 1 shards"), "%s",
				   so);
		free(so);
		free(jf);
	}
	/* a workload whose job file names no generator says so */
	snprintf(out, sizeof(out), "%s/tok", dir);
	{
		static const char nogen[] = "[workload]\nname = nogen\n"
			"format = tokens\n[transform]\nkind = tokens\n"
			"seq_len = 16\n[demand train A100]\nsamples_per_s = 1\n"
			"basis = estimate\nsource = a test\n";
		char *jf = write_file(dir, "nogen.ini", nogen,
				      sizeof(nogen) - 1);
		char *argv[] = { (char *)fr_test_bin(), "gen", "-q", "-w",
				 jf, "--files", "2", out, NULL };
		char *err;

		cr_expect_eq(fr_test_run(dir, argv, 60), 2);
		err = slurp(dir, "stderr");
		cr_expect_not_null(strstr(err, "has no generator"), "%s", err);
		free(err);
		free(jf);
	}
	fr_test_rmtree(dir);
}

/* A user's job file end to end: gen writes its layout, run measures with
 * its batch and its GPU's rate, and the JSON names the file. */
FR_TEST(jobfile_cli_slow, a_user_job_file_runs_end_to_end)
{
	static const char job[] =
		"# a smaller crop, a small batch and our own GPU figure\n"
		"[workload]\n"
		"name = mine\n"
		"description = our classifier\n"
		"gen = imagefolder-jpeg\n"
		"mean_file_bytes = 110K\n"
		"stats_source = ImageNet's, roughly\n"
		"batch = 8\n"
		"[transform]\n"
		"kind = image-train\n"
		"crop = 160\n"
		"[demand train A100]\n"
		"samples_per_s = 1234\n"
		"basis = measured\n"
		"source = our own training run\n";
	char *dir = fault_tmpdir();
	char *path = write_file(dir, "mine.ini", job, strlen(job));
	char data[4096];
	const json_t *g;
	json_error_t je;
	json_t *j;
	char *out;

	snprintf(data, sizeof(data), "%s/data", dir);
	{
		char *argv[] = { (char *)fr_test_bin(), "gen", "-q",
				 "--workload", path, "--files", "48", data,
				 NULL };

		cr_assert_eq(fr_test_run(dir, argv, 300), 0);
	}
	{
		char *argv[] = { (char *)fr_test_bin(), "run", "--workload",
				 path, "--gpus", "2xA100", "--epochs", "2",
				 "--warmup", "0", "--vcpus", "1", "--json",
				 "-", data, NULL };
		int rc = fr_test_run(dir, argv, 300);

		out = slurp(dir, "stdout");
		cr_assert_eq(rc, 0, "exit %d", rc);
	}
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "stdout is not JSON: %s", je.text);
	cr_expect_str_eq(json_string_value(json_object_get(j, "workload")),
			 "mine");
	cr_expect_str_eq(json_string_value(json_object_get(j,
			 "workload_file")), path);
	cr_expect_eq(json_integer_value(json_object_get(j, "batch")), 8,
		     "the job file's batch");
	g = json_object_get(j, "gpus");
	cr_expect_float_eq(json_number_value(json_object_get(g,
			   "demand_per_gpu")), 1234, 1e-9);
	cr_expect_str_eq(json_string_value(json_object_get(g,
			 "demand_source")), "our own training run");
	cr_expect_not_null(strstr(json_string_value(json_object_get(
		json_object_get(j, "pipeline"), "description")),
		"RandomResizedCrop 160x160"));
	json_decref(j);
	free(out);
	free(path);
	fr_test_rmtree(dir);
}

/* The example of docs/job-files.md is a job file that loads. */
FR_TEST(jobfile, the_documented_example_loads)
{
	size_t len;
	char *doc = (char *)tl_read_file("docs/job-files.md", &len);
	const struct wl_workload *w;
	char *a, *b, why[512];

	cr_assert_not_null(doc, "docs/job-files.md unreadable");
	doc[len] = '\0';
	a = strstr(doc, "```ini\n");
	cr_assert_not_null(a);
	a += 7;
	b = strstr(a, "```");
	cr_assert_not_null(b);
	cr_assert_eq(wl_job_parse("my.ini", a, (size_t)(b - a), &w, why,
				  sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(w->name, "mine");
	cr_expect_eq(w->batch, 128);
	cr_expect_eq(w->xp.aug.out_w, 160);
	cr_expect_eq(w->ndemand, 2);
	cr_expect_str_eq(w->demand[0].source, "our training logs, job 4711 "
			 "(8x A100, AMP, batch 128 per GPU), mean over epochs "
			 "2-10");
	wl_job_free(w);
	free(doc);
}

/* resnet50 without a DATASET: its generator writes TFRecord shards and
 * the run reads them as such, with its MLPerf batch and demand. */
FR_TEST(jobfile_cli_slow, resnet50_runs_on_its_own_tfrecord_layout)
{
	char *dir = fault_tmpdir();
	char *argv[] = { (char *)fr_test_bin(), "run", "--workload",
			 "resnet50", "--gen-size", "4M", "--tmpdir", dir,
			 "--batch", "8", "--epochs", "1", "--warmup", "0",
			 "--vcpus", "1", "--json", "-", NULL };
	const json_t *ds, *g;
	json_error_t je;
	json_t *j;
	char *out;
	int rc = fr_test_run(dir, argv, 300);

	out = slurp(dir, "stdout");
	cr_assert_eq(rc, 0, "exit %d", rc);
	j = json_loads(out, 0, &je);
	cr_assert_not_null(j, "stdout is not JSON: %s", je.text);
	ds = json_object_get(j, "dataset");
	cr_expect(json_is_true(json_object_get(ds, "generated")));
	cr_expect_str_eq(json_string_value(json_object_get(ds, "format")),
			 "tfrecord");
	cr_expect_str_eq(json_string_value(json_object_get(j,
			 "workload_file")), "builtin:resnet50.ini");
	cr_expect_eq(json_integer_value(json_object_get(j, "batch")), 8,
		     "--batch wins over the workload's 400");
	g = json_object_get(j, "gpus");
	cr_expect_str_eq(json_string_value(json_object_get(g, "demand_kind")),
			 "mlperf", "the workload's default demand");
	cr_expect_float_eq(json_number_value(json_object_get(g,
			   "demand_per_gpu")), 400 / 0.435, 1e-6);
	json_decref(j);
	free(out);
	fr_test_rmtree(dir);
}

FR_TEST(jobfile_cli, a_report_never_overwrites_the_job_file)
{
	char *dir = fault_tmpdir();
	char *path = write_file(dir, "mine.ini", minimal, strlen(minimal));
	char *argv[] = { (char *)fr_test_bin(), "run", "--workload", path,
			 "--json", path, dir, NULL };
	char *err;

	cr_expect_eq(fr_test_run(dir, argv, 60), 2);
	err = slurp(dir, "stderr");
	cr_expect_not_null(strstr(err, "mine.ini"), "%s", err);
	free(err);
	err = slurp(dir, "mine.ini");
	cr_expect_str_eq(err, minimal, "the job file is untouched");
	free(err);
	free(path);
	fr_test_rmtree(dir);
}
