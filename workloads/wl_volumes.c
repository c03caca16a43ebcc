/*
 * wl_volumes.c - the volume-crop and cosmoflow transforms as loader
 * transforms: a file's array located by the .npy / .npz row of formats/
 * (fmt_npy.h: wl_vol_open), then augment/'s crop and log1p.
 *
 * DESIGN: the loader calls ctx_create on each worker thread. Volume-crop
 * gives every worker its own wl_vol_reader (decompressor, inflate
 * buffer) and aug_vol (crop scratch); cosmoflow keeps nothing per worker
 * (its context is the shared parameters, only read). The parameters live
 * in the caller's wl_transform_state, written once by the constructor
 * before any run and only read after.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fmt_npy.h"
#include "loader.h"
#include "volumes.h"

#define VOL_MAX_SIDE 4096u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- volume-crop ---- */

struct vol_ctx {
	const struct wl_xform_params *xp;
	struct wl_vol_reader *r;
	struct aug_vol *v;
};

static int vol_ctx_create(void *arg, void **ctx)
{
	struct vol_ctx *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->xp = arg;
	err = wl_vol_reader_create(c->xp->max_inflate, &c->r);
	if (!err)
		err = aug_vol_create(&c->v);
	if (err) {
		wl_vol_reader_destroy(c->r);
		free(c);
		return err;
	}
	*ctx = c;
	return 0;
}

static void vol_ctx_destroy(void *ctx)
{
	struct vol_ctx *c = ctx;

	if (!c)
		return;
	wl_vol_reader_destroy(c->r);
	aug_vol_destroy(c->v);
	free(c);
}

static int vol_apply(void *ctx, const void *data, size_t len, uint64_t seed,
		     uint64_t epoch, uint64_t id, void *out,
		     struct ldr_step_times *st)
{
	struct vol_ctx *c = ctx;
	struct wl_vol_array a;
	struct aug_vol_crop crop;
	struct aug_vol_stats vs;
	struct wl_vol_err verr = { 0 };
	const uint64_t t0 = now_ns();
	uint64_t t1, t2;
	int err;

	err = wl_vol_open(c->r, data, len, c->xp->key, &a, &verr);
	if (err) {
		if (st && verr.fault != WL_VF_NONE) {
			st->err_kind = wl_vol_fault_name(verr.fault);
			st->err_at = true;
			st->err_off = verr.off;
		}
		return wl_transform_err(err);
	}
	t1 = now_ns();
	aug_vol_crop_draw(a.arr.dims, c->xp->vol_crop, c->xp->vol_flip, seed,
			  epoch, id, &crop);
	t2 = now_ns();
	err = aug_vol_crop_f32(c->v, &a.arr, &crop, out, &vs);
	if (err)
		return wl_transform_err(err);
	if (st) {
		st->decode_s = (double)(t1 - t0) * 1e-9;
		st->resize_s = (double)vs.crop_ns * 1e-9;
		st->other_s = (double)(vs.convert_ns + (t2 - t1)) * 1e-9;
		st->decompressed_bytes = a.inflated;
	}
	return 0;
}

int wl_volume_transform(struct wl_transform_state *st,
			struct ldr_transform *out, char *desc,
			size_t desc_len)
{
	struct wl_xform_params *xp = &st->xp;

	if (desc_len)
		desc[0] = '\0';
	for (unsigned k = 0; k < 3; k++) {
		if (!xp->vol_crop[k])
			xp->vol_crop[k] = WL_VOL_DEFAULT_CROP;
		if (xp->vol_crop[k] > VOL_MAX_SIDE)
			return -EINVAL;
	}
	*out = (struct ldr_transform){
		.name = "volume-crop",
		.out_bytes = (size_t)xp->vol_crop[0] * xp->vol_crop[1] *
			     xp->vol_crop[2] * sizeof(float),
		.arg = xp,
		.ctx_create = vol_ctx_create,
		.ctx_destroy = vol_ctx_destroy,
		.apply = vol_apply,
	};
	snprintf(desc, desc_len, "feedrate native: .npy/.npz (member \"%s\"; "
		 "DEFLATE via libdeflate, CRC-32 checked) -> random crop "
		 "%ux%ux%u (zero-padded where smaller)%s -> f32 DHW",
		 xp->key[0] ? xp->key : "x", xp->vol_crop[0], xp->vol_crop[1],
		 xp->vol_crop[2], xp->vol_flip ?
		 " -> flips p=0.5 on each axis" : "");
	return 0;
}

/* ---- cosmoflow ---- */

static int cosmo_ctx_create(void *arg, void **ctx)
{
	*ctx = arg;             /* the parameters: shared, read only */
	return 0;
}

static size_t cosmo_voxels(const struct wl_xform_params *xp)
{
	return (size_t)xp->cosmo_shape[0] * xp->cosmo_shape[1] *
	       xp->cosmo_shape[2] * xp->cosmo_shape[3];
}

static int cosmo_apply(void *ctx, const void *data, size_t len,
		       uint64_t seed, uint64_t epoch, uint64_t id, void *out,
		       struct ldr_step_times *st)
{
	const size_t n = cosmo_voxels(ctx);
	const uint64_t t0 = now_ns();

	(void)seed;
	(void)epoch;
	(void)id;
	if (len / 2 < n)
		return -LDR_ETRUNCATED;
	aug_log1p_i16(data, n, out);
	if (st)
		st->other_s = (double)(now_ns() - t0) * 1e-9;
	return 0;
}

int wl_cosmoflow_transform(struct wl_transform_state *st,
			   struct ldr_transform *out, char *desc,
			   size_t desc_len)
{
	static const uint32_t dflt[4] = { 70, 70, 72, 4 };
	struct wl_xform_params *xp = &st->xp;
	uint64_t n = 1;

	if (desc_len)
		desc[0] = '\0';
	if (!xp->cosmo_shape[0] && !xp->cosmo_shape[1] &&
	    !xp->cosmo_shape[2] && !xp->cosmo_shape[3])
		for (unsigned k = 0; k < 4; k++)
			xp->cosmo_shape[k] = dflt[k];
	for (unsigned k = 0; k < 4; k++)
		n *= xp->cosmo_shape[k] ? xp->cosmo_shape[k] : (1ull << 40);
	if (n > (1u << 28))
		return -EINVAL;
	*out = (struct ldr_transform){
		.name = "cosmoflow",
		.out_bytes = (size_t)n * sizeof(float),
		.arg = xp,
		.ctx_create = cosmo_ctx_create,
		.apply = cosmo_apply,
	};
	snprintf(desc, desc_len, "feedrate native: int16 %ux%ux%ux%u "
		 "(feature \"%s\") -> log(1 + x), x < 0 as 0 -> f32",
		 xp->cosmo_shape[0], xp->cosmo_shape[1], xp->cosmo_shape[2],
		 xp->cosmo_shape[3], xp->key[0] ? xp->key : "x");
	return 0;
}
