/*
 * aug_transform.c - the per-worker context and the one-call train and
 * eval transforms: header, crop draw, ROI / DCT-scaled decode, resize
 * (flip folded into the horizontal pass), normalize/dtype/layout.
 *
 * DESIGN: an aug_ctx is owned by one worker thread; it holds a decoder,
 * a resizer (coefficient cache, scratch) and the resized image. Results
 * depend only on (params, bytes, seed, epoch, id), never on the thread.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aug_internal.h"

/* Largest output side accepted (a sanity bound on the parameters). */
#define AUG_MAX_OUT 16384u

struct aug_ctx {
	struct aug_params p;
	const struct aug_kernels *k;
	struct aug_decoder *dec;
	struct aug_resizer *rs;
	uint8_t *img;               /* resized RGBX */
	size_t img_cap;
	float scale[3], bias[3];    /* normalize: px * scale + bias */
};

void aug_params_default(struct aug_params *p)
{
	static const float mean[3] = { 0.485f, 0.456f, 0.406f };
	static const float std[3] = { 0.229f, 0.224f, 0.225f };

	memset(p, 0, sizeof(*p));
	p->out_w = 224;
	p->out_h = 224;
	aug_rrc_opts_default(&p->rrc);
	p->flip_p = 0.5;
	memcpy(p->mean, mean, sizeof(mean));
	memcpy(p->std, std, sizeof(std));
	p->dtype = AUG_DT_F32;
	p->layout = AUG_LAYOUT_CHW;
	p->eval_resize = 256;
	p->eval_crop = 224;
	p->roi_decode = true;
	p->dct_scale = true;
	p->isa = AUG_ISA_AUTO;
	aug_decoder_opts_default(&p->dec);
}

static int params_check(const struct aug_params *p)
{
	if (p->out_w == 0 || p->out_h == 0 || p->out_w > AUG_MAX_OUT ||
	    p->out_h > AUG_MAX_OUT || p->eval_crop == 0 ||
	    p->eval_crop > p->eval_resize || p->eval_resize > AUG_MAX_OUT)
		return -EINVAL;
	if (!(p->rrc.scale_min > 0) || !(p->rrc.scale_min <= p->rrc.scale_max) ||
	    !(p->rrc.ratio_min > 0) || !(p->rrc.ratio_min <= p->rrc.ratio_max) ||
	    !(p->flip_p >= 0 && p->flip_p <= 1))
		return -EINVAL;
	for (int c = 0; c < 3; c++)
		if (!(p->std[c] > 0) || !isfinite(p->mean[c]))
			return -EINVAL;
	if ((unsigned)p->dtype > AUG_DT_U8 ||
	    (unsigned)p->layout > AUG_LAYOUT_HWC ||
	    (unsigned)p->isa > AUG_ISA_AVX2)
		return -EINVAL;
	return 0;
}

int aug_ctx_create(const struct aug_params *p, struct aug_ctx **out)
{
	struct aug_ctx *c;
	int err;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (p)
		c->p = *p;
	else
		aug_params_default(&c->p);
	err = params_check(&c->p);
	if (err)
		goto err;
	c->k = aug_kernels_get(c->p.isa);
	if (!c->k) {
		err = -ENOTSUP;
		goto err;
	}
	for (int i = 0; i < 3; i++) {
		c->scale[i] = 1.0f / (255.0f * c->p.std[i]);
		c->bias[i] = -c->p.mean[i] / c->p.std[i];
	}
	err = aug_decoder_create(&c->p.dec, &c->dec);
	if (err)
		goto err;
	err = aug_resizer_create(c->k, &c->rs);
	if (err)
		goto err;
	*out = c;
	return 0;
err:
	aug_ctx_destroy(c);
	return err;
}

void aug_ctx_destroy(struct aug_ctx *c)
{
	if (!c)
		return;
	aug_decoder_destroy(c->dec);
	aug_resizer_destroy(c->rs);
	free(c->img);
	free(c);
}

enum aug_isa aug_ctx_isa(const struct aug_ctx *c)
{
	return c->k->isa;
}

struct aug_decoder *aug_ctx_decoder(struct aug_ctx *c)
{
	return c->dec;
}

size_t aug_ctx_sample_bytes(const struct aug_ctx *c, bool eval)
{
	size_t n = eval ? (size_t)c->p.eval_crop * c->p.eval_crop :
			  (size_t)c->p.out_w * c->p.out_h;

	return n * 3 * aug_dtype_size(c->p.dtype);
}

void aug_convert(struct aug_ctx *c, const struct aug_view *src, void *out)
{
	aug_convert_with(c->k, c->p.dtype, c->p.layout, c->scale, c->bias,
			 src, out);
}

/* The resized-image scratch as a w x h view; 0 or -ENOMEM. */
static int ctx_image(struct aug_ctx *c, uint32_t w, uint32_t h,
		     struct aug_view *v)
{
	size_t stride = ((size_t)w * 4 + 63) & ~(size_t)63;
	int err = aug_scratch_reserve((void **)&c->img, &c->img_cap,
				      stride * h);

	if (err)
		return err;
	v->data = c->img;
	v->width = w;
	v->height = h;
	v->stride = stride;
	return 0;
}

int aug_resize(struct aug_ctx *c, const struct aug_view *src, double box_x,
	       double box_y, double box_w, double box_h,
	       const struct aug_view *dst, bool flip)
{
	struct aug_axis_key kx, ky;
	const struct aug_axis *ax, *ay;
	int err = 0;

	if (!(box_x >= 0) || !(box_y >= 0) || !(box_w > 0) || !(box_h > 0) ||
	    box_x + box_w > src->width || box_y + box_h > src->height ||
	    dst->width == 0 || dst->height == 0)
		return -EINVAL;
	kx = (struct aug_axis_key){
		.box0 = box_x, .boxw = box_w,
		.clamp_lo = (int32_t)floor(box_x),
		.clamp_hi = (int32_t)ceil(box_x + box_w),
		.out_total = dst->width, .out_first = 0, .out_n = dst->width,
		.tap_mult = AUG_HTAP_MULT,
	};
	ky = (struct aug_axis_key){
		.box0 = box_y, .boxw = box_h,
		.clamp_lo = (int32_t)floor(box_y),
		.clamp_hi = (int32_t)ceil(box_y + box_h),
		.out_total = dst->height, .out_first = 0, .out_n = dst->height,
		.tap_mult = AUG_VTAP_MULT,
	};
	ax = aug_resizer_axis(c->rs, &kx, &err);
	if (!ax)
		return err;
	ay = aug_resizer_axis(c->rs, &ky, &err);
	if (!ay)
		return err;
	return aug_resizer_run(c->rs, src, 0, 0, ax, ay, dst, flip);
}

/*
 * Largest DCT scale 1/d (d in 8, 4, 2) that leaves the box >= the output;
 * 1 for a PNG, which has no scaled decode.
 */
static unsigned pick_denom(const struct aug_ctx *c,
			   const struct aug_image_info *info, double bw,
			   double bh, uint32_t ow, uint32_t oh)
{
	if (!c->p.dct_scale || info->format != AUG_FMT_JPEG)
		return 1;
	for (unsigned d = 8; d >= 2; d /= 2)
		if (bw >= (double)d * ow && bh >= (double)d * oh)
			return d;
	return 1;
}

/*
 * One axis of a resize whose box spans full-resolution pixels
 * [b0, b0 + bw) of a `full`-pixel dimension, decoded at 1/d: box and clamp
 * in the coordinates of the scaled image (ceil(full / d) pixels).
 */
static struct aug_axis_key axis_key(double b0, double bw, uint32_t full,
				    unsigned d, uint32_t out_total,
				    uint32_t out_first, uint32_t out_n,
				    uint32_t mult)
{
	const uint32_t sdim = aug_scaled_dim(full, d);
	int32_t hi = (int32_t)ceil((b0 + bw) / d);

	return (struct aug_axis_key){
		.box0 = b0 / d, .boxw = bw / d,
		.clamp_lo = (int32_t)floor(b0 / d),
		.clamp_hi = hi > (int32_t)sdim ? (int32_t)sdim : hi,
		.out_total = out_total, .out_first = out_first,
		.out_n = out_n, .tap_mult = mult,
	};
}

/*
 * Shared tail of both transforms, after the header: decode the window the
 * axis tables read (or the whole image), resize, convert.
 */
static int run_sample(struct aug_ctx *c, const struct aug_axis_key *kx,
		      const struct aug_axis_key *ky, unsigned d,
		      const struct aug_image_info *info, bool flip, void *out,
		      struct aug_stats *s, uint64_t t0)
{
	const uint32_t sw = aug_scaled_dim(info->width, d);
	const uint32_t sh = aug_scaled_dim(info->height, d);
	const struct aug_axis *ax, *ay;
	struct aug_rect win;
	struct aug_view view, img;
	uint64_t t1, t2, t3, t4;
	int err = 0;

	t1 = aug_now_ns();
	ax = aug_resizer_axis(c->rs, kx, &err);
	ay = ax ? aug_resizer_axis(c->rs, ky, &err) : NULL;
	if (!ay) {
		aug_decoder_close(c->dec);
		return err;
	}
	if (c->p.roi_decode) {
		win.x = (uint32_t)ax->lo;
		win.y = (uint32_t)ay->lo;
		win.w = (uint32_t)(ax->read_hi < (int32_t)sw ? ax->read_hi :
				   (int32_t)sw) - win.x;
		win.h = (uint32_t)(ay->read_hi < (int32_t)sh ? ay->read_hi :
				   (int32_t)sh) - win.y;
	} else {
		win = (struct aug_rect){ 0, 0, sw, sh };
	}
	t2 = aug_now_ns();
	err = aug_decoder_read(c->dec, &win, d, &view);
	t3 = aug_now_ns();
	s->decode_ns += t3 - t2;
	s->resize_ns += t2 - t1;
	s->decoded = win;
	s->scale_denom = d;
	if (err)
		return err;
	err = ctx_image(c, ax->out_n, ay->out_n, &img);
	if (!err)
		err = aug_resizer_run(c->rs, &view, (int32_t)win.x,
				      (int32_t)win.y, ax, ay, &img, flip);
	t4 = aug_now_ns();
	s->resize_ns += t4 - t3;
	if (err)
		return err;
	aug_convert(c, &img, out);
	s->post_ns = aug_now_ns() - t4;
	s->total_ns = aug_now_ns() - t0;
	return 0;
}

int aug_train_sample(struct aug_ctx *c, const void *bytes, size_t len,
		     uint64_t seed, uint64_t epoch, uint64_t id, void *out,
		     struct aug_stats *stats)
{
	struct aug_stats s = { 0 };
	struct aug_image_info info;
	struct aug_axis_key kx, ky;
	struct aug_rng rng;
	struct aug_rect crop;
	uint64_t t0 = aug_now_ns(), t1;
	unsigned d;
	bool flip;
	int err;

	err = aug_decoder_open(c->dec, bytes, len, &info);
	t1 = aug_now_ns();
	s.decode_ns = t1 - t0;
	if (err)
		goto out;
	s.src_w = info.width;
	s.src_h = info.height;
	aug_rng_seed(&rng, seed, epoch, id);
	s.fallback = aug_rrc_params(&c->p.rrc, info.width, info.height, &rng,
				    &crop) == 1;
	flip = aug_rng_uniform(&rng) < c->p.flip_p;
	s.crop = crop;
	s.flipped = flip;
	d = pick_denom(c, &info, crop.w, crop.h, c->p.out_w, c->p.out_h);
	kx = axis_key(crop.x, crop.w, info.width, d, c->p.out_w, 0,
		      c->p.out_w, AUG_HTAP_MULT);
	ky = axis_key(crop.y, crop.h, info.height, d, c->p.out_h, 0,
		      c->p.out_h, AUG_VTAP_MULT);
	err = run_sample(c, &kx, &ky, d, &info, flip, out, &s, t0);
out:
	if (err)
		s.total_ns = aug_now_ns() - t0;
	if (stats)
		*stats = s;
	return err;
}

/* Python's round() on a half-integer-or-integer value: ties to even. */
static uint32_t round_half_even(double x)
{
	return (uint32_t)nearbyint(x);
}

int aug_eval_sample(struct aug_ctx *c, const void *bytes, size_t len,
		    void *out, struct aug_stats *stats)
{
	const uint32_t R = c->p.eval_resize, C = c->p.eval_crop;
	struct aug_stats s = { 0 };
	struct aug_image_info info;
	struct aug_axis_key kx, ky;
	uint64_t t0 = aug_now_ns();
	uint32_t nw, nh, left, top;
	unsigned d;
	int err;

	err = aug_decoder_open(c->dec, bytes, len, &info);
	s.decode_ns = aug_now_ns() - t0;
	if (err)
		goto out;
	s.src_w = info.width;
	s.src_h = info.height;
	/* torchvision Resize(R): short side R, long side truncated */
	if (info.width <= info.height) {
		nw = R;
		nh = (uint32_t)((double)R * info.height / info.width);
	} else {
		nh = R;
		nw = (uint32_t)((double)R * info.width / info.height);
	}
	/* CenterCrop(C): int(round((n - C) / 2.0)) */
	left = round_half_even((nw - C) / 2.0);
	top = round_half_even((nh - C) / 2.0);
	s.crop = (struct aug_rect){ 0, 0, info.width, info.height };
	d = pick_denom(c, &info, info.width, info.height, nw, nh);
	kx = axis_key(0, info.width, info.width, d, nw, left, C,
		      AUG_HTAP_MULT);
	ky = axis_key(0, info.height, info.height, d, nh, top, C,
		      AUG_VTAP_MULT);
	err = run_sample(c, &kx, &ky, d, &info, false, out, &s, t0);
out:
	if (err)
		s.total_ns = aug_now_ns() - t0;
	if (stats)
		*stats = s;
	return err;
}
