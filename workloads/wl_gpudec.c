/*
 * wl_gpudec.c - the gpu-decode pipeline (the host's share of DALI's
 * "mixed" JPEG decoder, augment/'s aug_gd_stage) as a loader transform,
 * and the GPUs' JPEG decoders: which have a hardware one (NVJPG) and how
 * much they decode, with the source of each figure.
 *
 * Where the payload goes follows nvJPEG: its hardware backend decodes a
 * batch at once, its bitstreams in one pinned buffer (hw: the batch's
 * staging area, ldr_stage_alloc; the engine's readers read the files
 * straight into it, ldr_transform.stage_reads, so nothing is copied);
 * its hybrid backend decodes
 * image by image, the Huffman decoder's output landing in the decode
 * state's own pinned buffer, sent to the GPU before the next image
 * (hybrid: a page-locked buffer of the worker's, reused per sample).
 *
 * DESIGN: the loader calls ctx_create on each worker thread, so every
 * worker owns one aug_decoder and its pinned buffer (hybrid, and hw
 * where no staging area is given: a transform called outside the
 * engine); apply runs on that worker only. The shared arg (struct gd_arg in the
 * transform state) is written before the run and only read during it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "loader.h"
#include "workloads.h"

/* ---- the GPUs' JPEG decoders ---- */

/*
 * Which GPUs have NVJPG: nvJPEG's documentation (docs.nvidia.com/cuda/
 * nvjpeg, "Hardware acceleration for baseline JPEG decode";
 * developer.nvidia.com/nvjpeg, "on A100 GPUs") and NVIDIA's H100
 * (NVJPG engines of GH100) material. No source found gives NVJPG's
 * images/s at ImageNet sizes directly; what the sources do give is the
 * training throughput NVIDIA reached with DALI decoding on the GPU
 * (MLPerf Training closed division, ResNet-50, MXNet + DALI, 8 GPUs,
 * per GPU): the GPU decoded at least that fast, so it is kept as a lower
 * bound, said so (../shared/reference/gpu-demand.md, corrections).
 */
static const struct wl_gpu_decoder gpu_decoders[] = {
	{ "A100", true, 3400, 3400, 3410, "lower bound",
	  "MLPerf Training v2.0 closed, NVIDIA dgxa100_ngc22.04_mxnet "
	  "(ResNet-50, MXNet + DALI GPU decoding): ~3,400 img/s per A100 "
	  "80GB; DLE MXNet RN50 README: 3,410 (1 GPU). NVJPG: nvJPEG docs, "
	  "\"hardware acceleration for baseline JPEG decode on A100\"" },
	{ "A100-40GB", true, 3400, 3400, 3410, "lower bound (derived)",
	  "the A100 80GB figure: the same GA100 chip and NVJPG engine "
	  "(MLPerf Training v2.0, NVIDIA dgxa100_ngc22.04_mxnet)" },
	{ "A100-PCIe", true, 0, 0, 0, "not stated",
	  "GA100 has the NVJPG engine (nvJPEG's hardware backend, A100); "
	  "no figure found for the PCIe card, whose clocks and power differ "
	  "from the SXM module's" },
	{ "H100", true, 7000, 7000, 7160, "lower bound",
	  "MLPerf Training v3.0 dgxh100_ngc23.04_mxnet and v4.0 "
	  "eos_ngc24.04_mxnet (ResNet-50, MXNet + DALI GPU decoding): "
	  "~7,000-7,160 img/s per H100 SXM" },
	{ "H100-PCIe", true, 0, 0, 0, "not stated",
	  "GH100 has NVJPG engines (nvJPEG hardware backend); no figure "
	  "found for the PCIe card" },
	{ "H200", true, 7960, 7960, 7960, "lower bound",
	  "MLPerf Training v4.0 h200_ngc24.04_mxnet (ResNet-50, MXNet + "
	  "DALI GPU decoding): ~7,960 img/s per H200" },
	{ "V100", false, 0, 0, 0, "not stated",
	  "no NVJPG (nvJPEG's hardware backend starts with A100): the "
	  "hybrid path, whose GPU share (dequantize, IDCT, colour) comes "
	  "out of the training's own GPU time; no source states it" },
	{ "A10G", false, 0, 0, 0, "not stated",
	  "no NVJPG listed for it by nvJPEG's documentation: the hybrid "
	  "path; its GPU share is not stated by any source found" },
	{ "L4", false, 0, 0, 0, "not stated",
	  "no nvJPEG hardware-backend source found for it: the hybrid "
	  "path is assumed; its GPU share is not stated" },
	{ "T4", false, 0, 0, 0, "not stated",
	  "no NVJPG (nvJPEG's hardware backend starts with A100): the "
	  "hybrid path; its GPU share is not stated by any source found" },
};

const struct wl_gpu_decoder *wl_gpu_decoder_find(const char *gpu)
{
	if (!gpu)
		return NULL;
	for (size_t i = 0; i < sizeof(gpu_decoders) / sizeof(gpu_decoders[0]);
	     i++)
		if (!strcasecmp(gpu_decoders[i].gpu, gpu))
			return &gpu_decoders[i];
	return NULL;
}

size_t wl_gpu_decoders(const struct wl_gpu_decoder **rows)
{
	*rows = gpu_decoders;
	return sizeof(gpu_decoders) / sizeof(gpu_decoders[0]);
}

/* ---- the transform ---- */

struct gd_arg {
	struct aug_params aug;          /* the crop and flip drawn */
	enum aug_gd_mode mode;
};

/* A worker's page-locked buffer: one payload at a time. */
struct gd_pinned {
	uint8_t *p;
	size_t cap;
};

struct gd_ctx {
	const struct gd_arg *a;
	struct aug_decoder *dec;
	struct gd_pinned pin;
};

static int gd_ctx_create(void *arg, void **out)
{
	const struct gd_arg *a = arg;
	struct gd_ctx *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->a = a;
	err = aug_decoder_create(&a->aug.dec, &c->dec);
	if (err) {
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

static void gd_ctx_destroy(void *ctx)
{
	struct gd_ctx *c = ctx;

	if (!c)
		return;
	aug_decoder_destroy(c->dec);
	ldr_pinned_unmap(c->pin.p, c->pin.cap);
	free(c);
}

/* The batch's staging area. */
static void *gd_stage_alloc(void *arg, size_t n)
{
	return ldr_stage_alloc(arg, n);
}

/* The worker's pinned buffer, grown (page-locked where the memlock
 * limit allows) to the largest payload seen. */
static void *gd_pinned_alloc(void *arg, size_t n)
{
	struct gd_pinned *b = arg;

	if (n > b->cap) {
		size_t cap = (n + n / 4 + 4095) & ~(size_t)4095;
		bool locked;
		void *p = ldr_pinned_map(cap, &locked);

		if (!p)
			return NULL;
		ldr_pinned_unmap(b->p, b->cap);
		b->p = p;
		b->cap = cap;
	}
	return b->p;
}

static int gd_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		    uint64_t epoch, uint64_t id, void *out,
		    struct ldr_step_times *st)
{
	struct gd_ctx *c = ctx;
	struct aug_gd_stats s;
	bool png;
	int err;

	/* hw: the batch's staging area; hybrid (and hw outside the engine):
	 * the worker's pinned buffer */
	if (st && st->stage && c->a->mode == AUG_GD_MODE_HW)
		err = aug_gd_stage(c->dec, data, len, st->in_stage, c->a->mode,
				   &c->a->aug.rrc, c->a->aug.flip_p, seed,
				   epoch, id, gd_stage_alloc, st->stage, out,
				   &png, &s);
	else
		err = aug_gd_stage(c->dec, data, len, false, c->a->mode,
				   &c->a->aug.rrc, c->a->aug.flip_p, seed,
				   epoch, id, gd_pinned_alloc, &c->pin, out,
				   &png, &s);
	if (!st)
		return err ? wl_transform_err(err) : 0;
	st->decode_s = (double)(s.parse_ns + s.entropy_ns) * 1e-9;
	st->other_s = (double)s.stage_ns * 1e-9;
	if (err) {
		if (png)
			st->err_kind = "png_not_gpu_decoded";
		else if (err == -ENOBUFS)
			st->err_kind = "staging_full";
		return wl_transform_err(err);
	}
	st->path = ((const struct aug_gd_desc *)out)->path;
	st->staged_bytes = ((const struct aug_gd_desc *)out)->payload_bytes;
	return 0;
}

const char *wl_gpu_decode_mode_name(enum aug_gd_mode m)
{
	return m == AUG_GD_MODE_HYBRID ? "hybrid" : "hw";
}

int wl_transform_gpu_decode(const struct wl_workload *w,
			    enum aug_gd_mode mode, size_t stage_bytes,
			    struct wl_transform_state *st,
			    struct ldr_transform *out, char *desc,
			    size_t desc_len)
{
	struct gd_arg *a;

	if (desc_len)
		desc[0] = '\0';
	if (!w || !st || !out)
		return -EINVAL;
	if (w->xform != WL_XFORM_IMAGE_TRAIN)
		return -ENOTSUP;
	wl_transform_state_release(st);
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->aug = w->xp.aug;
	if (!a->aug.out_w)
		aug_params_default(&a->aug);
	a->mode = mode;
	st->aug = a->aug;
	st->xp = w->xp;
	st->priv = a;
	*out = (struct ldr_transform){
		.name = "gpu-decode",
		.out_bytes = sizeof(struct aug_gd_desc),
		.arg = a,
		.ctx_create = gd_ctx_create,
		.ctx_destroy = gd_ctx_destroy,
		.apply = gd_apply,
		.stage_bytes = mode == AUG_GD_MODE_HYBRID ? 0 : stage_bytes ?
			       stage_bytes : (1u << 20),
		/* hw: the readers read into the staging area, as DALI's
		 * readers fill the decoder's pinned input: no copy */
		.stage_reads = mode == AUG_GD_MODE_HW,
		.paths = { "hw", "hybrid", "hybrid_progressive",
			   "hybrid_cmyk" },
	};
	_Static_assert(AUG_GD_PATHS == LDR_PATHS_MAX, "one name per path");
	snprintf(desc, desc_len, "gpu-decode:%s (modelled DALI mixed decoder: "
		 "the host %s and stages %s into a pinned batch buffer; "
		 "RandomResizedCrop %ux%u window and flip p=%.2g drawn per "
		 "sample for the GPU to apply)", wl_gpu_decode_mode_name(mode),
		 mode == AUG_GD_MODE_HW ? "parses JPEG headers" :
		 "parses and entropy-decodes every scan (libjpeg-turbo "
		 "jpeg_read_coefficients)", mode == AUG_GD_MODE_HW ?
		 "the compressed bytes (progressive and CMYK files: the "
		 "hybrid path)" : "the coefficients and quantization tables",
		 a->aug.out_w, a->aug.out_h, a->aug.flip_p);
	return 0;
}
