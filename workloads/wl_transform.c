/*
 * wl_transform.c - the imagenet train transform (augment/'s
 * aug_train_sample) as a loader transform.
 *
 * DESIGN: the loader calls ctx_create on each worker thread, so every
 * worker owns one aug_ctx (decoder, resize scratch, coefficient cache) and
 * nothing is shared between workers; apply runs on that worker only. The
 * parameters are read by aug_ctx_create, which copies them, so the shared
 * struct aug_params is only read, never written, once the run starts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader.h"
#include "tokens.h"
#include "volumes.h"
#include "workloads.h"

int wl_transform_err(int aug_err)
{
	switch (aug_err) {
	case -AUG_ECORRUPT: return -LDR_ECORRUPT;
	case -AUG_ETRUNCATED: return -LDR_ETRUNCATED;
	case -AUG_EUNSUPPORTED: return -LDR_EUNSUPPORTED;
	case -AUG_ETOOLARGE: return -LDR_ETOOBIG;
	case -AUG_ENOTJPEG: return -LDR_ENOTFORMAT;
	default: return aug_err;
	}
}

static int train_ctx_create(void *arg, void **ctx)
{
	struct aug_ctx *c;
	int err = aug_ctx_create(arg, &c);

	if (err)
		return err;
	*ctx = c;
	return 0;
}

static void train_ctx_destroy(void *ctx)
{
	aug_ctx_destroy(ctx);
}

static int train_apply(void *ctx, const void *data, size_t len,
		       uint64_t seed, uint64_t epoch, uint64_t id, void *out,
		       struct ldr_step_times *st)
{
	struct aug_stats s;
	int err = aug_train_sample(ctx, data, len, seed, epoch, id, out,
				   st ? &s : NULL);

	if (st && !err) {
		const uint64_t parts = s.decode_ns + s.resize_ns + s.post_ns;

		st->decode_s = (double)s.decode_ns * 1e-9;
		st->resize_s = (double)s.resize_ns * 1e-9;
		/* normalize/layout, and whatever the total holds beyond the
		 * three named steps (RNG, crop choice) */
		st->other_s = (double)(s.post_ns +
			(s.total_ns > parts ? s.total_ns - parts : 0)) * 1e-9;
	}
	return err ? wl_transform_err(err) : 0;
}

int wl_transform_train(const struct aug_params *params,
		       struct ldr_transform *out)
{
	struct aug_ctx *c;
	int err;

	if (!params || !out)
		return -EINVAL;
	err = aug_ctx_create(params, &c);
	if (err)
		return err;
	*out = (struct ldr_transform){
		.name = "imagenet-train",
		.out_bytes = aug_ctx_sample_bytes(c, false),
		.arg = (void *)params,
		.ctx_create = train_ctx_create,
		.ctx_destroy = train_ctx_destroy,
		.apply = train_apply,
	};
	aug_ctx_destroy(c);
	return 0;
}

static const char *dtype_name(enum aug_dtype dt)
{
	switch (dt) {
	case AUG_DT_F32: return "f32";
	case AUG_DT_F16: return "f16";
	case AUG_DT_BF16: return "bf16";
	case AUG_DT_U8: return "u8";
	}
	return "?";
}

size_t wl_transform_describe(const struct aug_params *params,
			     enum aug_isa isa, char *buf, size_t len)
{
	int n;

	if (len)
		buf[0] = '\0';
	if (!params)
		return 0;
	if (isa == AUG_ISA_AUTO) {
		struct aug_ctx *c;

		if (aug_ctx_create(params, &c) == 0) {
			isa = aug_ctx_isa(c);
			aug_ctx_destroy(c);
		}
	}
	n = snprintf(buf, len, "feedrate native (libjpeg-turbo, ISLOW IDCT, "
		     "fancy upsampling, %s, %s, %s kernels) -> "
		     "RandomResizedCrop %ux%u, flip p=%.2g, %s %s",
		     params->roi_decode ? "ROI decode" : "full decode",
		     params->dct_scale ? "DCT scaling" : "no DCT scaling",
		     aug_isa_name(isa), params->out_w, params->out_h,
		     params->flip_p, dtype_name(params->dtype),
		     params->layout == AUG_LAYOUT_CHW ? "CHW" : "HWC");
	return n > 0 ? (size_t)n : 0;
}

const char *wl_xform_name(enum wl_xform x)
{
	switch (x) {
	case WL_XFORM_NONE: return "none";
	case WL_XFORM_IMAGE_TRAIN: return "image-train";
	case WL_XFORM_VOLUME: return "volume-crop";
	case WL_XFORM_TOKENS: return "tokens";
	case WL_XFORM_COSMOFLOW: return "cosmoflow";
	default: return "?";
	}
}

void wl_transform_state_release(struct wl_transform_state *st)
{
	if (!st)
		return;
	free(st->priv);
	st->priv = NULL;
}

int wl_transform_make(const struct wl_workload *w,
		      struct wl_transform_state *st, struct ldr_transform *out,
		      char *desc, size_t desc_len)
{
	int err;

	if (desc_len)
		desc[0] = '\0';
	wl_transform_state_release(st);        /* a state made before */
	st->xp = w->xp;
	if (!st->xp.max_inflate)
		st->xp.max_inflate = w->max_sample_bytes;
	switch (w->xform) {
	case WL_XFORM_IMAGE_TRAIN:
		st->aug = w->xp.aug;
		if (!st->aug.out_w)     /* a table entry without params */
			aug_params_default(&st->aug);
		err = wl_transform_train(&st->aug, out);
		if (!err)
			wl_transform_describe(&st->aug, AUG_ISA_AUTO, desc,
					      desc_len);
		return err;
	case WL_XFORM_VOLUME:
		return wl_volume_transform(st, out, desc, desc_len);
	case WL_XFORM_COSMOFLOW:
		return wl_cosmoflow_transform(st, out, desc, desc_len);
	case WL_XFORM_TOKENS:
		return wl_tokens_transform(st, out, desc, desc_len);
	default:
		return -ENOTSUP;
	}
}

int wl_imagenet_transform(struct wl_transform_state *st,
			  struct ldr_transform *out, char *desc,
			  size_t desc_len)
{
	int err;

	aug_params_default(&st->aug);
	err = wl_transform_train(&st->aug, out);
	if (!err)
		wl_transform_describe(&st->aug, AUG_ISA_AUTO, desc, desc_len);
	return err;
}
