/*
 * test_wl_transform.c - the imagenet train transform as the loader sees it:
 * augment errors become the loader's kinds (a corrupt JPEG is "corrupt",
 * every crop that reaches past a file's cut is "truncated"), the output is
 * deterministic in (bytes, seed, epoch, id) and the same in every worker
 * context, and step times are filled.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aug_testlib.h"
#include "harness.h"
#include "loader.h"
#include "workloads.h"

static struct aug_params params;

static struct ldr_transform make_transform(void)
{
	struct ldr_transform t;

	aug_params_default(&params);
	cr_assert_eq(wl_transform_train(&params, &t), 0);
	cr_assert_not_null(t.apply);
	cr_assert_not_null(t.ctx_create);
	cr_assert_not_null(t.ctx_destroy);
	return t;
}

/* apply on a fresh context; returns the result, OUT gets the sample */
static int apply_once(const struct ldr_transform *t, const void *data,
		      size_t len, uint64_t seed, uint64_t epoch, uint64_t id,
		      void *out, struct ldr_step_times *st)
{
	void *ctx = NULL;
	int err;

	cr_assert_eq(t->ctx_create(t->arg, &ctx), 0);
	err = t->apply(ctx, data, len, seed, epoch, id, out, st);
	t->ctx_destroy(ctx);
	return err;
}

FR_TEST(wl_transform, out_bytes_is_a_224_float_chw_sample)
{
	struct ldr_transform t = make_transform();

	cr_expect_eq(t.out_bytes, 3u * 224 * 224 * sizeof(float));
	cr_expect_str_eq(t.name, "imagenet-train");
}

FR_TEST(wl_transform, error_codes_map_to_the_loader_kinds)
{
	static const struct { int aug, ldr; const char *name; } map[] = {
		{ -AUG_ECORRUPT, -LDR_ECORRUPT, "corrupt" },
		{ -AUG_ETRUNCATED, -LDR_ETRUNCATED, "truncated" },
		{ -AUG_EUNSUPPORTED, -LDR_EUNSUPPORTED, "unsupported" },
		{ -AUG_ETOOLARGE, -LDR_ETOOBIG, "pixels_over_cap" },
		{ -AUG_ENOTJPEG, -LDR_ENOTFORMAT, "not_format" },
		{ -ENOMEM, -ENOMEM, "ENOMEM" },
		{ -EINVAL, -EINVAL, "EINVAL" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		int got = wl_transform_err(map[i].aug);

		cr_expect_eq(got, map[i].ldr, "%d -> %d", map[i].aug, got);
		cr_expect_str_eq(ldr_sample_err_name(got), map[i].name);
	}
}

FR_TEST(wl_transform, corrupt_truncated_and_foreign_files_fail_by_kind)
{
	static const struct { const char *file; int err; } cases[] = {
		{ "corrupt_header.jpg", -LDR_ECORRUPT },
		{ "../png/gif_named.JPEG", -LDR_ENOTFORMAT },
		{ "huge_20000.jpg", -LDR_ETOOBIG },
	};
	struct ldr_transform t = make_transform();
	float *out = malloc(t.out_bytes);

	cr_assert_not_null(out);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		uint8_t *data = tl_fixture(cases[i].file, &len);

		cr_assert_not_null(data, "fixture %s missing", cases[i].file);
		for (uint64_t id = 0; id < 4; id++) {
			int err = apply_once(&t, data, len, 1, 0, id, out, NULL);

			cr_expect_eq(err, cases[i].err, "%s id %lu: %d (%s)",
				     cases[i].file, (unsigned long)id, err,
				     ldr_sample_err_name(err));
		}
		free(data);
	}
	/* an empty file */
	{
		size_t len;
		uint8_t *data = tl_fixture("truncated.jpg", &len);

		cr_assert_not_null(data);
		cr_expect_eq(apply_once(&t, data, 0, 1, 0, 0, out, NULL),
			     -LDR_ETRUNCATED);
		free(data);
	}
	free(out);
}

/*
 * truncated.jpg is a 128x96 baseline cut after 60 % of its bytes. A crop
 * that ends above the cut may decode (ROI decode stops after the crop's
 * last row), but a crop that reaches the image's last row needs rows the
 * file no longer holds: every such crop must fail, and as truncated. The
 * crop of each id is drawn here as aug_train_sample draws it (the crop
 * first, from the RNG seeded by (seed, epoch, id)).
 */
FR_TEST(wl_transform, every_crop_reaching_the_last_row_of_a_cut_file_fails)
{
	struct ldr_transform t = make_transform();
	float *out = malloc(t.out_bytes);
	struct aug_decoder *dec = NULL;
	struct aug_image_info info;
	unsigned reach = 0, reach_failed = 0;
	size_t len;
	uint8_t *data = tl_fixture("truncated.jpg", &len);

	cr_assert_not_null(out);
	cr_assert_not_null(data);
	/* the header is whole: the size comes from it */
	cr_assert_eq(aug_decoder_create(NULL, &dec), 0);
	cr_assert_eq(aug_decoder_open(dec, data, len, &info), 0);
	aug_decoder_destroy(dec);
	cr_assert_eq(info.width, 128);
	cr_assert_eq(info.height, 96);
	for (uint64_t id = 0; id < 64; id++) {
		struct aug_rng rng;
		struct aug_rect crop;
		int err = apply_once(&t, data, len, 1, 0, id, out, NULL);

		cr_expect(err == 0 || err == -LDR_ETRUNCATED, "id %lu: %d (%s)",
			  (unsigned long)id, err, ldr_sample_err_name(err));
		aug_rng_seed(&rng, 1, 0, id);
		aug_rrc_params(&params.rrc, info.width, info.height, &rng,
			       &crop);
		if (crop.y + crop.h < info.height)
			continue;
		reach++;
		reach_failed += err == -LDR_ETRUNCATED;
		cr_expect_eq(err, -LDR_ETRUNCATED, "id %lu: crop rows %u..%u "
			     "of %u decoded past the cut (%d)",
			     (unsigned long)id, crop.y, crop.y + crop.h,
			     info.height, err);
	}
	cr_assert_gt(reach, 0, "no crop of 64 reached the last row: the "
		     "property was not exercised");
	cr_expect_eq(reach_failed, reach, "%u of %u crops reaching the last "
		     "row failed as truncated", reach_failed, reach);
	free(data);
	free(out);
}

FR_TEST(wl_transform, corrupt_entropy_data_is_corrupt_when_the_crop_reaches_it)
{
	struct ldr_transform t = make_transform();
	float *out = malloc(t.out_bytes);
	size_t len;
	uint8_t *data = tl_fixture("corrupt_data.jpg", &len);
	unsigned failed = 0;

	cr_assert_not_null(out);
	cr_assert_not_null(data);
	for (uint64_t id = 0; id < 32; id++) {
		int err = apply_once(&t, data, len, 7, 0, id, out, NULL);

		cr_expect(err == 0 || err == -LDR_ECORRUPT ||
			  err == -LDR_ETRUNCATED, "id %lu: %d (%s)",
			  (unsigned long)id, err, ldr_sample_err_name(err));
		failed += err != 0;
	}
	cr_expect_gt(failed, 0, "32 random crops never met the damage");
	free(data);
	free(out);
}

FR_TEST(wl_transform, output_is_deterministic_across_contexts_and_calls)
{
	struct ldr_transform t = make_transform();
	struct aug_membuf jpg = { 0 };
	uint8_t *a = malloc(t.out_bytes), *b = malloc(t.out_bytes);
	uint8_t *c = malloc(t.out_bytes);
	struct ldr_step_times st = { 0 };
	void *ctx1 = NULL, *ctx2 = NULL;

	cr_assert(a && b && c);
	cr_assert_eq(tl_make_jpeg(500, 375, 3, AUG_ENC_420, 90, false, &jpg), 0);
	cr_assert_eq(t.ctx_create(t.arg, &ctx1), 0);
	cr_assert_eq(t.ctx_create(t.arg, &ctx2), 0);
	for (uint64_t id = 0; id < 6; id++) {
		memset(a, 0x11, t.out_bytes);
		memset(b, 0x22, t.out_bytes);
		cr_assert_eq(t.apply(ctx1, jpg.data, jpg.len, 42, 1, id, a, &st),
			     0);
		/* another context, after it has done other samples */
		cr_assert_eq(t.apply(ctx2, jpg.data, jpg.len, 42, 0, id + 100, c,
				     NULL), 0);
		cr_assert_eq(t.apply(ctx2, jpg.data, jpg.len, 42, 1, id, b, NULL),
			     0);
		cr_expect_eq(memcmp(a, b, t.out_bytes), 0, "id %lu differs",
			     (unsigned long)id);
		/* a different epoch draws a different crop */
		cr_assert_eq(t.apply(ctx1, jpg.data, jpg.len, 42, 2, id, c, NULL),
			     0);
		cr_expect_neq(memcmp(a, c, t.out_bytes), 0,
			      "epoch 2 gave epoch 1's sample for id %lu",
			      (unsigned long)id);
	}
	cr_expect_gt(st.decode_s, 0);
	cr_expect_gt(st.resize_s, 0);
	cr_expect_geq(st.other_s, 0);
	cr_expect_lt(st.decode_s + st.resize_s + st.other_s, 10.0);
	t.ctx_destroy(ctx1);
	t.ctx_destroy(ctx2);
	aug_membuf_free(&jpg);
	free(a);
	free(b);
	free(c);
}

FR_TEST(wl_transform, bad_params_are_refused_up_front)
{
	struct aug_params p;
	struct ldr_transform t;

	aug_params_default(&p);
	p.out_w = 0;
	cr_expect_eq(wl_transform_train(&p, &t), -EINVAL);
	cr_expect_eq(wl_transform_train(NULL, &t), -EINVAL);
}

FR_TEST(wl_transform, describe_names_the_decoder_settings)
{
	struct aug_params p;
	char buf[320];

	aug_params_default(&p);
	cr_assert_gt(wl_transform_describe(&p, AUG_ISA_AUTO, buf, sizeof(buf)),
		     0);
	cr_expect_not_null(strstr(buf, "libjpeg-turbo"), "%s", buf);
	cr_expect_not_null(strstr(buf, "ISLOW"), "%s", buf);
	cr_expect_not_null(strstr(buf, "224x224"), "%s", buf);
	cr_expect_null(strstr(buf, "auto"), "ISA not resolved: %s", buf);
}
