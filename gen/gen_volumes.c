/*
 * gen_volumes.c - `feedrate gen` for the 3-D workloads: .npy volumes
 * (volumes), .npz pairs of a volume and its label mask as MLPerf
 * Storage's unet3d reads them, and cosmoflow's TFRecords.
 *
 * Content: a CT-like phantom, not noise, so that a compressor (DEFLATE
 * in savez_compressed, zstd on a filesystem) meets ratios of the kind
 * real scans give: a body (elliptic cylinder along the long axis, soft
 * tissue 40 HU) in air (-1000 HU), a liver (60 HU), a spine (400 HU), two
 * kidneys (30 HU, label 1) and a tumour on one of them (70 HU, label 2),
 * each jittered per file; a smooth shading per row, and inside the body
 * hashed noise (a sum of two uniforms of +-12 HU: sd ~10 HU, the low end
 * of CT soft-tissue noise). Intensities then go through MLPerf unet3d's
 * preprocessing (mlcommons/training image_segmentation/pytorch
 * preprocess_dataset.py: clip to [-79, 304] HU, (x - 101) / 76.9) for the
 * f32 volumes, or the same window scaled to 0..255 for the u8 ones.
 * Cosmoflow's "x" is a density field's counts: a smooth background and
 * Gaussian halos, one field seen at 4 redshifts (channels), with
 * Poisson-like noise; "y" 4 cosmological parameters.
 *
 * Files: sizes are drawn per file index from a normal of the workload's
 * mean_file_bytes and sd_file_bytes (redrawn below the smallest file
 * holding a 128^3 crop or above mean + 5 sd); with --size the count is
 * the first prefix of those sizes that reaches it. A file's bytes depend
 * only on (seed, index). Written as numpy writes them, through the
 * .npy / .npz row of formats/ (fmt_npy.h): .npy headers as
 * numpy.lib.format (version 1.0, 64-byte aligned, the growth-axis
 * spaces), .npz as numpy.savez through Python's zipfile (force_zip64:
 * a zip64 extra field in each local header; zip64 in the central
 * directory and end records past ZIP64_LIMIT = 2^31 - 1, as zipfile
 * does). Safety and durability as gen_images.c: an empty folder, each
 * file under a hidden temporary name renamed once complete, one syncfs()
 * at the end.
 *
 * DESIGN (threads): opts->jobs workers, the caller's thread being one;
 * each claims the next file index under `lock` and writes that file on
 * its own (names are fixed by the index, so order does not matter).
 * The first error or a stop request sets rc under the lock; the others
 * stop at their next slab and remove their temporary file. Statistics
 * and the progress callback are updated under the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt_npy.h"
#include "formats.h"
#include "storage.h"
#include "gen_internal.h"

#define VG_SIDE 256u            /* H and W of an .npy volume, the two
                                   fixed sides of an .npz one */
#define VG_MIN_DEPTH 128u       /* the crop's side: every file holds one */
#define VG_BUF (4u << 20)       /* bytes per write */
#define VG_NOISE 12             /* +- HU per term, two terms */
#define VG_MAX_ROW 8192u        /* longest .npz axis n (a 1 GiB file) */
#define VG_NOBJ 7

/* MLPerf unet3d preprocessing window and normalisation. */
#define HU_MIN (-79)
#define HU_MAX 304
#define HU_MEAN 101.0
#define HU_STD 76.9

/* ---- the phantom ---- */

struct obj {
	double c[3], r[3];      /* centre and radii, array axes, [-1, 1] */
	int16_t hu;
	uint8_t label;
};

struct phantom {
	struct obj o[VG_NOBJ];
	uint64_t dims[3];
	uint64_t key;           /* noise */
	double phase;
};

static double jit(struct aug_rng *r, double v, double rel)
{
	return v * (1 + rel * (2 * aug_rng_uniform(r) - 1));
}

/*
 * The phantom of a file: objects in a frame of (long axis, front-back,
 * left-right), mapped to array axes with LONG_AXIS the long one.
 */
static void phantom_make(struct phantom *p, uint64_t seed, uint64_t i,
			 const uint64_t dims[3], unsigned long_axis)
{
	/* long, front-back, left-right; centre then radii; HU; label */
	static const struct {
		double c[3], r[3];
		int hu, label;
	} canon[VG_NOBJ] = {
		{ { 0, 0, 0 }, { 5, 0.7, 0.9 }, 40, 0 },          /* body */
		{ { -0.2, 0, -0.35 }, { 0.5, 0.4, 0.35 }, 60, 0 }, /* liver */
		{ { 0, 0.5, 0 }, { 5, 0.12, 0.1 }, 400, 0 },      /* spine */
		{ { 0.1, 0.3, -0.45 }, { 0.3, 0.15, 0.12 }, 30, 1 }, /* kidney */
		{ { 0.15, 0.3, 0.45 }, { 0.3, 0.15, 0.12 }, 30, 1 },
		{ { 0.2, 0.22, 0.5 }, { 0.08, 0.08, 0.08 }, 70, 2 }, /* tumour */
		{ { -0.5, -0.3, 0.2 }, { 0.2, 0.15, 0.25 }, 10, 0 }, /* bowel */
	};
	/* array axis of each frame axis */
	const unsigned ax[3] = { long_axis, long_axis == 0 ? 1 : 0,
				 long_axis == 2 ? 1 : 2 };
	struct aug_rng r;

	aug_rng_seed(&r, seed, 0x766f6c /* "vol" */, i);
	for (unsigned k = 0; k < 3; k++)
		p->dims[k] = dims[k];
	for (unsigned j = 0; j < VG_NOBJ; j++) {
		for (unsigned k = 0; k < 3; k++) {
			p->o[j].c[ax[k]] = canon[j].c[k] +
				0.05 * (2 * aug_rng_uniform(&r) - 1);
			p->o[j].r[ax[k]] = jit(&r, canon[j].r[k], 0.1);
		}
		p->o[j].hu = (int16_t)(canon[j].hu +
				       (int)(aug_rng_next(&r) % 11) - 5);
		p->o[j].label = (uint8_t)canon[j].label;
	}
	p->key = aug_rng_next(&r);
	p->phase = 6.283185307179586 * aug_rng_uniform(&r);
}

static uint64_t mix64(uint64_t h)
{
	h ^= h >> 31;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

/* Row (z, y): HU (clipped to the window) and labels, W voxels. */
static void phantom_row(const struct phantom *p, uint64_t z, uint64_t y,
			int16_t *hu, uint8_t *label)
{
	const uint64_t W = p->dims[2];
	const double zn = 2 * (z + 0.5) / (double)p->dims[0] - 1;
	const double yn = 2 * (y + 0.5) / (double)p->dims[1] - 1;
	const int shade = (int)lrint(12 * sin(3 * zn + 2 * yn + p->phase));
	const uint64_t rk = mix64(p->key ^ (z * 0x9e3779b97f4a7c15ull) ^
				  (y * 0xc2b2ae3d27d4eb4full));
	uint64_t body_lo = 1, body_hi = 0;

	for (uint64_t x = 0; x < W; x++) {
		hu[x] = -1000;
		label[x] = 0;
	}
	for (unsigned j = 0; j < VG_NOBJ; j++) {
		const struct obj *o = &p->o[j];
		const double a = (zn - o->c[0]) / o->r[0];
		const double b = (yn - o->c[1]) / o->r[1];
		const double t = 1 - a * a - b * b;
		double half, lo, hi;

		if (t <= 0)
			continue;
		half = o->r[2] * sqrt(t);
		lo = ceil((o->c[2] - half + 1) / 2 * (double)W - 0.5);
		hi = floor((o->c[2] + half + 1) / 2 * (double)W - 0.5);
		if (lo < 0)
			lo = 0;
		if (hi > (double)W - 1)
			hi = (double)W - 1;
		if (lo > hi)
			continue;
		if (j == 0) {
			body_lo = (uint64_t)lo;
			body_hi = (uint64_t)hi;
		}
		for (uint64_t x = (uint64_t)lo; x <= (uint64_t)hi; x++) {
			hu[x] = o->hu;
			label[x] = o->label;
		}
	}
	for (uint64_t x = body_lo; x <= body_hi && x < W; x++) {
		const uint64_t h = mix64(rk + x * 0x9e3779b97f4a7c15ull);
		const int n = (int)((h & 0xffff) % (2 * VG_NOISE + 1)) +
			      (int)((h >> 16 & 0xffff) % (2 * VG_NOISE + 1)) -
			      2 * VG_NOISE;

		hu[x] = (int16_t)(hu[x] + shade + n);
	}
	for (uint64_t x = 0; x < W; x++)
		hu[x] = hu[x] < HU_MIN ? HU_MIN : hu[x] > HU_MAX ? HU_MAX :
			hu[x];
}

/* ---- a file's bytes, buffered, with a running CRC-32 ---- */

struct vg_out {
	int fd;
	uint8_t *buf;
	size_t len;
	uint64_t pos;           /* bytes written to the file so far */
	uint32_t crc;
	bool crc_on;
	volatile sig_atomic_t *stop;
};

static int out_flush(struct vg_out *f)
{
	int rc;

	if (f->stop && *f->stop)
		return -EINTR;
	rc = wl_write_all(f->fd, f->buf, f->len);
	f->len = 0;
	return rc;
}

static int out_put(struct vg_out *f, const void *p, size_t n)
{
	const uint8_t *s = p;

	if (f->crc_on)
		f->crc = wl_zip_crc32(f->crc, p, n);
	f->pos += n;
	while (n) {
		size_t k = VG_BUF - f->len;
		int rc;

		if (k > n)
			k = n;
		memcpy(f->buf + f->len, s, k);
		f->len += k;
		s += k;
		n -= k;
		if (f->len == VG_BUF && (rc = out_flush(f)))
			return rc;
	}
	return 0;
}

/* ---- the three layouts ---- */

struct vg;

struct vg_layout {
	const char *prefix, *ext;   /* "case_", "_x.npy" / "img_", ".npz" */
	bool of_count;              /* the name says "_of_<count>" */
	/* Exact bytes of file I. */
	uint64_t (*bytes)(const struct vg *g, uint64_t i);
	/* Writes file I through F; 0 or -errno. */
	int (*write)(const struct vg *g, uint64_t i, struct vg_out *f,
		     void *scratch);
	size_t scratch;             /* per worker */
};

struct vg {
	const struct vg_layout *lay;
	const struct wl_workload *w;
	const struct wl_gen_opts *o;
	const char *dir;
	int dfd;
	uint64_t count;
	unsigned width;             /* digits of the index in names */
	uint64_t min_bytes;         /* the smallest file (a 128^3 crop) */
	uint32_t cshape[4];         /* cosmoflow's D, H, W, C */
	double t0;
	pthread_mutex_t lock;
	uint64_t next;
	int rc;
	struct wl_gen_stats *st;
};

/* File I's size before rounding to whole slices: a truncated normal. */
static double draw_bytes(const struct vg *g, uint64_t i)
{
	const double mean = g->w->mean_file_bytes, sd = g->w->sd_file_bytes;
	struct aug_rng r;

	if (!(sd > 0))
		return mean;
	aug_rng_seed(&r, g->o->seed, 0x73697a65 /* "size" */, i);
	for (unsigned tries = 0; tries < 1000; tries++) {
		/* Box-Muller */
		const double u = 1 - aug_rng_uniform(&r);
		const double v = aug_rng_uniform(&r);
		const double x = mean + sd * sqrt(-2 * log(u)) *
				 cos(6.283185307179586 * v);

		if (x >= (double)g->min_bytes && x <= mean + 5 * sd)
			return x;
	}
	return mean;
}

/* .npy: f32 (D, 256, 256), D from the drawn size. */
static uint64_t npy_depth(const struct vg *g, uint64_t i)
{
	const double slice = (double)VG_SIDE * VG_SIDE * 4;
	const double d = floor((draw_bytes(g, i) - 128) / slice + 0.5);

	return d < VG_MIN_DEPTH ? VG_MIN_DEPTH : (uint64_t)d;
}

static uint64_t npy_bytes(const struct vg *g, uint64_t i)
{
	const uint64_t shape[3] = { npy_depth(g, i), VG_SIDE, VG_SIDE };
	uint8_t h[WL_NPY_HEADER_MAX];

	return wl_npy_header(h, "<f4", shape, 3) + shape[0] * VG_SIDE * VG_SIDE * 4;
}

struct row_scratch {
	int16_t hu[VG_MAX_ROW];
	uint8_t label[VG_MAX_ROW];
	float lut_f32[HU_MAX - HU_MIN + 1];
	uint8_t lut_u8[HU_MAX - HU_MIN + 1];
	uint8_t row[VG_MAX_ROW * 4];
};

static void luts(struct row_scratch *s)
{
	for (int h = HU_MIN; h <= HU_MAX; h++) {
		s->lut_f32[h - HU_MIN] = (float)((h - HU_MEAN) / HU_STD);
		s->lut_u8[h - HU_MIN] = (uint8_t)lrint((h - HU_MIN) * 255.0 /
						       (HU_MAX - HU_MIN));
	}
}

static int npy_write(const struct vg *g, uint64_t i, struct vg_out *f,
		     void *scratch)
{
	struct row_scratch *s = scratch;
	const uint64_t shape[3] = { npy_depth(g, i), VG_SIDE, VG_SIDE };
	struct phantom p;
	uint8_t h[WL_NPY_HEADER_MAX];
	int rc;

	luts(s);
	phantom_make(&p, g->o->seed, i, shape, 0);
	rc = out_put(f, h, wl_npy_header(h, "<f4", shape, 3));
	for (uint64_t z = 0; !rc && z < shape[0]; z++)
		for (uint64_t y = 0; !rc && y < VG_SIDE; y++) {
			phantom_row(&p, z, y, s->hu, s->label);
			for (unsigned x = 0; x < VG_SIDE; x++)
				memcpy(s->row + 4 * x,
				       &s->lut_f32[s->hu[x] - HU_MIN], 4);
			rc = out_put(f, s->row, VG_SIDE * 4);
		}
	return rc;
}

/* .npz: x and y u8 (256, 256, n), n from the drawn size. */
#define NPZ_NAME_LEN 5          /* "x.npy" */
#define NPZ_LOCAL (30u + NPZ_NAME_LEN + 20u)
#define NPZ_CENTRAL (46u + NPZ_NAME_LEN)

static uint64_t npz_depth(const struct vg *g, uint64_t i)
{
	const double slab = 2.0 * VG_SIDE * VG_SIDE;
	const double overhead = 2.0 * (NPZ_LOCAL + 128 + NPZ_CENTRAL) + 22;
	const double n = floor((draw_bytes(g, i) - overhead) / slab + 0.5);

	return n < VG_MIN_DEPTH ? VG_MIN_DEPTH :
	       n > VG_MAX_ROW ? VG_MAX_ROW : (uint64_t)n;
}

static uint64_t npz_member_bytes(uint64_t n)
{
	const uint64_t shape[3] = { VG_SIDE, VG_SIDE, n };
	uint8_t h[WL_NPY_HEADER_MAX];

	return wl_npy_header(h, "|u1", shape, 3) + (uint64_t)VG_SIDE * VG_SIDE * n;
}

static int npz_member(const struct phantom *p, bool y, struct vg_out *f,
		      struct row_scratch *s, uint32_t *crc)
{
	const uint64_t n = p->dims[2], size = npz_member_bytes(n);
	const uint64_t shape[3] = { VG_SIDE, VG_SIDE, n };
	const uint64_t hoff = f->pos;
	uint8_t l[NPZ_LOCAL], h[WL_NPY_HEADER_MAX], c[4];
	int rc;

	wl_zip_local(l, y ? "y.npy" : "x.npy", NPZ_NAME_LEN, size);
	rc = out_put(f, l, sizeof(l));
	f->crc = 0;
	f->crc_on = true;
	if (!rc)
		rc = out_put(f, h, wl_npy_header(h, "|u1", shape, 3));
	for (uint64_t z = 0; !rc && z < VG_SIDE; z++)
		for (uint64_t r = 0; !rc && r < VG_SIDE; r++) {
			phantom_row(p, z, r, s->hu, s->label);
			if (y) {
				rc = out_put(f, s->label, n);
				continue;
			}
			for (uint64_t x = 0; x < n; x++)
				s->row[x] = s->lut_u8[s->hu[x] - HU_MIN];
			rc = out_put(f, s->row, n);
		}
	f->crc_on = false;
	*crc = f->crc;
	if (rc || (rc = out_flush(f)))
		return rc;
	wl_put_le(c, *crc, 4);
	{
		const ssize_t k = pwrite(f->fd, c, 4,
					 (off_t)(hoff + WL_ZIP_LOCAL_CRC_AT));

		if (k != 4)
			return k < 0 ? -errno : -EIO;
	}
	return 0;
}

static uint64_t npz_bytes(const struct vg *g, uint64_t i)
{
	const uint64_t m = npz_member_bytes(npz_depth(g, i));
	const uint64_t y_off = NPZ_LOCAL + m, cd_off = 2 * (NPZ_LOCAL + m);
	const uint64_t cd = wl_zip_central_len(NPZ_NAME_LEN, m, 0) +
			    wl_zip_central_len(NPZ_NAME_LEN, m, y_off);

	return cd_off + cd + 22 + (cd_off > WL_ZIP64_LIMIT ? 56 + 20 : 0);
}

static int npz_write(const struct vg *g, uint64_t i, struct vg_out *f,
		     void *scratch)
{
	struct row_scratch *s = scratch;
	const uint64_t n = npz_depth(g, i);
	const uint64_t dims[3] = { VG_SIDE, VG_SIDE, n };
	const uint64_t m = npz_member_bytes(n);
	uint8_t cd[2 * (NPZ_CENTRAL + 28)], end[WL_ZIP_END_MAX];
	uint32_t crc[2];
	uint64_t cd_off, cd_len = 0, y_off = NPZ_LOCAL + m;
	size_t el;
	struct phantom p;
	int rc;

	luts(s);
	phantom_make(&p, g->o->seed, i, dims, 2);
	rc = npz_member(&p, false, f, s, &crc[0]);
	if (!rc)
		rc = npz_member(&p, true, f, s, &crc[1]);
	if (rc)
		return rc;
	cd_off = f->pos;
	cd_len += wl_zip_central(cd, "x.npy", NPZ_NAME_LEN, crc[0], m, 0);
	cd_len += wl_zip_central(cd + cd_len, "y.npy", NPZ_NAME_LEN, crc[1],
				 m, y_off);
	el = wl_zip_end(end, 2, cd_off, cd_len);
	rc = out_put(f, cd, cd_len);
	if (!rc)
		rc = out_put(f, end, el);
	return rc;
}

/* cosmoflow: one Example per file (MLPerf Storage's cosmoflow config:
 * num_samples_per_file 1). */
#define PB_X_KEY "x"
#define PB_Y_KEY "y"

static uint64_t cosmo_x_bytes(const struct vg *g)
{
	return 2ull * g->cshape[0] * g->cshape[1] * g->cshape[2] *
	       g->cshape[3];
}

/* Lengths of the Example's nested messages (protobuf wire format):
 * Example{1: Features{1: entry{1: key, 2: Feature{1: BytesList{1: x}}},
 * 1: entry{1: key, 2: Feature{2: FloatList{1: packed 4 floats}}}}}. */
struct cosmo_lens {
	uint64_t xl, xf, xe, yl, yf, ye, feats, example;
};

static void cosmo_lens(const struct vg *g, struct cosmo_lens *L)
{
	const uint64_t x = cosmo_x_bytes(g);

	L->xl = 1 + wl_pb_vlen(x) + x;                 /* BytesList */
	L->xf = 1 + wl_pb_vlen(L->xl) + L->xl;         /* Feature */
	L->xe = 3 + 1 + wl_pb_vlen(L->xf) + L->xf;     /* entry: key "x" */
	L->yl = 1 + 1 + 16;                         /* FloatList, packed */
	L->yf = 1 + 1 + L->yl;
	L->ye = 3 + 1 + 1 + L->yf;
	L->feats = 1 + wl_pb_vlen(L->xe) + L->xe + 1 + wl_pb_vlen(L->ye) + L->ye;
	L->example = 1 + wl_pb_vlen(L->feats) + L->feats;
}

static uint64_t cosmo_bytes(const struct vg *g, uint64_t i)
{
	struct cosmo_lens L;

	(void)i;
	cosmo_lens(g, &L);
	return 12 + L.example + 4;
}

/* Separable Gaussian halos: amplitude and a profile per axis. */
#define COSMO_HALOS 16
#define COSMO_MAX_SIDE 4096u

struct cosmo_scratch {
	float prof[COSMO_HALOS][3][COSMO_MAX_SIDE];
	uint8_t row[COSMO_MAX_SIDE * 4 * 2];
};

static int cosmo_write(const struct vg *g, uint64_t i, struct vg_out *f,
		       void *scratch)
{
	const uint32_t D = g->cshape[0], H = g->cshape[1], W = g->cshape[2],
		       C = g->cshape[3];
	struct cosmo_scratch *s = scratch;
	struct cosmo_lens L;
	uint8_t head[64], *p = head, *row = s->row;
	float amp[COSMO_HALOS], ys[4];
	double growth[4];
	struct aug_rng r;
	uint64_t key;
	uint32_t crc;
	uint8_t tail[4];
	int rc;

	aug_rng_seed(&r, g->o->seed, 0x636f736d /* "cosm" */, i);
	/* halos: amplitude (counts) and a Gaussian profile on each axis */
	for (unsigned k = 0; k < COSMO_HALOS; k++) {
		const double sig = 1.5 + 4 * aug_rng_uniform(&r);
		const uint32_t n[3] = { D, H, W };

		amp[k] = (float)(30 * exp(4 * aug_rng_uniform(&r)));
		for (unsigned a = 0; a < 3; a++) {
			const double c = n[a] * aug_rng_uniform(&r);

			for (uint32_t x = 0; x < n[a]; x++)
				s->prof[k][a][x] = (float)exp(-(x - c) *
					(x - c) / (2 * sig * sig));
		}
	}
	for (unsigned c = 0; c < 4; c++)
		growth[c] = 1.0 / (1 + 0.35 * c);  /* earlier: less clustered */
	key = aug_rng_next(&r);
	/* Omega_m, sigma_8, n_s, H_0/100 around Planck's values */
	ys[0] = (float)(0.25 + 0.1 * aug_rng_uniform(&r));
	ys[1] = (float)(0.7 + 0.2 * aug_rng_uniform(&r));
	ys[2] = (float)(0.9 + 0.1 * aug_rng_uniform(&r));
	ys[3] = (float)(0.6 + 0.15 * aug_rng_uniform(&r));

	cosmo_lens(g, &L);
	wl_put_le(head, L.example, 8);
	wl_put_le(head + 8, wl_crc32c_mask(wl_crc32c(0, head, 8)), 4);
	rc = out_put(f, head, 12);
	/* the Example's bytes carry their own CRC-32C, kept as they go */
	crc = 0;
	p = head;
	*p++ = 0x0a;
	p = wl_pb_varint(p, L.feats);
	*p++ = 0x0a;                        /* entry "x" */
	p = wl_pb_varint(p, L.xe);
	*p++ = 0x0a;
	*p++ = 1;
	*p++ = 'x';
	*p++ = 0x12;
	p = wl_pb_varint(p, L.xf);
	*p++ = 0x0a;                        /* bytes_list */
	p = wl_pb_varint(p, L.xl);
	*p++ = 0x0a;
	p = wl_pb_varint(p, cosmo_x_bytes(g));
	crc = wl_crc32c(crc, head, (size_t)(p - head));
	if (!rc)
		rc = out_put(f, head, (size_t)(p - head));
	for (uint32_t z = 0; !rc && z < D; z++)
		for (uint32_t y = 0; !rc && y < H; y++) {
			float yz[COSMO_HALOS];
			const uint64_t rk = mix64(key ^ ((uint64_t)z << 32 | y));

			for (unsigned k = 0; k < COSMO_HALOS; k++)
				yz[k] = amp[k] * s->prof[k][0][z] *
					s->prof[k][1][y];
			for (uint32_t x = 0; x < W; x++) {
				const double bg = 4 + 2 * sin(0.21 * x +
					0.13 * y + 0.17 * z);
				double v = bg;
				const uint64_t h = mix64(rk + x);

				for (unsigned k = 0; k < COSMO_HALOS; k++)
					v += yz[k] * s->prof[k][2][x];
				for (uint32_t c = 0; c < C; c++) {
					const double m = v * growth[c];
					/* Poisson-like: +- sqrt(m) */
					const double nz = ((double)((h >> (16 * c)) &
						0xffff) / 32768.0 - 1) * sqrt(m);
					long q = lrint(m + nz);
					uint8_t *o = row + ((size_t)x * C + c) * 2;

					q = q < 0 ? 0 : q > 32767 ? 32767 : q;
					o[0] = (uint8_t)q;
					o[1] = (uint8_t)(q >> 8);
				}
			}
			crc = wl_crc32c(crc, row, (size_t)W * C * 2);
			rc = out_put(f, row, (size_t)W * C * 2);
		}
	p = head;
	*p++ = 0x0a;                        /* entry "y" */
	p = wl_pb_varint(p, L.ye);
	*p++ = 0x0a;
	*p++ = 1;
	*p++ = 'y';
	*p++ = 0x12;
	p = wl_pb_varint(p, L.yf);
	*p++ = 0x12;                        /* float_list */
	p = wl_pb_varint(p, L.yl);
	*p++ = 0x0a;                        /* packed */
	*p++ = 16;
	for (unsigned k = 0; k < 4; k++) {
		uint32_t b;

		memcpy(&b, &ys[k], 4);
		wl_put_le(p, b, 4);
		p += 4;
	}
	crc = wl_crc32c(crc, head, (size_t)(p - head));
	if (!rc)
		rc = out_put(f, head, (size_t)(p - head));
	wl_put_le(tail, wl_crc32c_mask(crc), 4);
	if (!rc)
		rc = out_put(f, tail, 4);
	return rc;
}

static const struct vg_layout lay_npy = {
	.prefix = "case_", .ext = "_x.npy", .bytes = npy_bytes,
	.write = npy_write, .scratch = sizeof(struct row_scratch),
};

static const struct vg_layout lay_npz = {
	.prefix = "img_", .ext = ".npz", .of_count = true,
	.bytes = npz_bytes, .write = npz_write,
	.scratch = sizeof(struct row_scratch),
};

static const struct vg_layout lay_cosmo = {
	.prefix = "img_", .ext = ".tfrecord", .of_count = true,
	.bytes = cosmo_bytes, .write = cosmo_write,
	.scratch = sizeof(struct cosmo_scratch),
};

/* ---- the runner ---- */

static void vg_name(const struct vg *g, uint64_t i, bool tmp, char *buf,
		    size_t len)
{
	if (g->lay->of_count)
		snprintf(buf, len, "%s%s%0*llu_of_%llu%s%s", tmp ? "." : "",
			 g->lay->prefix, (int)g->width, (unsigned long long)i,
			 (unsigned long long)g->count, g->lay->ext,
			 tmp ? ".tmp" : "");
	else
		snprintf(buf, len, "%s%s%0*llu%s%s", tmp ? "." : "",
			 g->lay->prefix, (int)g->width, (unsigned long long)i,
			 g->lay->ext, tmp ? ".tmp" : "");
}

static int vg_file(struct vg *g, uint64_t i, struct vg_out *f, void *scratch)
{
	char tmp[128], fin[128];
	int rc;

	vg_name(g, i, true, tmp, sizeof(tmp));
	vg_name(g, i, false, fin, sizeof(fin));
	f->fd = openat(g->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		       0644);
	if (f->fd < 0)
		rc = -errno;
	else {
		f->len = 0;
		f->pos = 0;
		f->crc_on = false;
		rc = g->lay->write(g, i, f, scratch);
		if (!rc)
			rc = out_flush(f);
		if (!rc && f->pos != g->lay->bytes(g, i))
			rc = -EIO;      /* the size plan and the bytes differ */
		if (close(f->fd) && !rc && errno != EINTR)
			rc = -errno;
		if (!rc && renameat(g->dfd, tmp, g->dfd, fin))
			rc = -errno;
		if (rc)
			unlinkat(g->dfd, tmp, 0);
	}
	if (rc && rc != -EINTR && g->o->err_path && g->o->err_path_len)
		snprintf(g->o->err_path, g->o->err_path_len, "%s/%s", g->dir,
			 fin);
	return rc;
}

static void *vg_worker(void *arg)
{
	struct vg *g = arg;
	struct vg_out f = { .fd = -1, .stop = g->o->stop };
	void *scratch = malloc(g->lay->scratch);
	int rc = 0;

	f.buf = malloc(VG_BUF);
	if (!f.buf || !scratch)
		rc = -ENOMEM;
	pthread_mutex_lock(&g->lock);
	while (!rc && !g->rc && g->next < g->count) {
		const uint64_t i = g->next++;

		if (g->o->stop && *g->o->stop) {
			rc = -EINTR;
			break;
		}
		pthread_mutex_unlock(&g->lock);
		rc = vg_file(g, i, &f, scratch);
		pthread_mutex_lock(&g->lock);
		if (rc)
			break;
		g->st->files++;
		g->st->bytes += f.pos;
		g->st->elapsed_s = stg_now() - g->t0;
		if (g->o->progress)
			g->o->progress(g->o->progress_arg, g->st, false);
	}
	if (rc && !g->rc)
		g->rc = rc;
	pthread_mutex_unlock(&g->lock);
	free(f.buf);
	free(scratch);
	return NULL;
}

static int vg_run(const struct vg_layout *lay, const struct wl_workload *w,
		  const char *dir, const struct wl_gen_opts *o,
		  struct wl_gen_stats *st)
{
	struct vg g = {
		.lay = lay, .w = w, .o = o, .dir = dir, .dfd = -1, .st = st,
		.lock = PTHREAD_MUTEX_INITIALIZER,
	};
	pthread_t tids[WL_GEN_MAX_JOBS];
	unsigned jobs = o->jobs ? o->jobs : 1, started = 0;
	uint64_t sum = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	if ((o->files == 0) == (o->size_bytes == 0) || !(w->mean_file_bytes > 0))
		return -EINVAL;
	if (jobs > WL_GEN_MAX_JOBS)
		jobs = WL_GEN_MAX_JOBS;
	g.t0 = stg_now();
	for (unsigned k = 0; k < 4; k++) {
		static const uint32_t dflt[4] = { 70, 70, 72, 4 };

		g.cshape[k] = w->xp.cosmo_shape[k] ? w->xp.cosmo_shape[k] :
			      dflt[k];
		if (g.cshape[k] > COSMO_MAX_SIDE ||
		    (k == 3 && g.cshape[k] > 4))
			return -EINVAL;
	}
	g.min_bytes = lay == &lay_npy ?
		128 + (uint64_t)VG_MIN_DEPTH * VG_SIDE * VG_SIDE * 4 :
		2 * (uint64_t)VG_MIN_DEPTH * VG_SIDE * VG_SIDE;
	if (o->files) {
		g.count = o->files;
	} else {
		while (sum < o->size_bytes)
			sum += lay->bytes(&g, g.count++);
	}
	g.width = (unsigned)snprintf(NULL, 0, "%llu",
				     (unsigned long long)(g.count - 1));
	if (g.width < 5)
		g.width = 5;
	st->files_target = g.count;
	st->bytes_target = o->size_bytes;

	rc = wl_gen_dir_prepare(dir);
	if (rc) {
		if (o->err_path && o->err_path_len)
			snprintf(o->err_path, o->err_path_len, "%s", dir);
		return rc;
	}
	g.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g.dfd < 0) {
		rc = -errno;
		goto out;
	}
	for (unsigned j = 1; j < jobs; j++) {
		if (pthread_create(&tids[started], NULL, vg_worker, &g))
			break;  /* fewer workers; the files are the same */
		started++;
	}
	vg_worker(&g);
	for (unsigned j = 0; j < started; j++)
		pthread_join(tids[j], NULL);
	rc = g.rc;
	if (!rc && syncfs(g.dfd)) {
		rc = -errno;
		if (o->err_path && o->err_path_len)
			snprintf(o->err_path, o->err_path_len, "%s", dir);
	}
out:
	st->elapsed_s = stg_now() - g.t0;
	if (o->progress)
		o->progress(o->progress_arg, st, true);
	if (g.dfd >= 0)
		close(g.dfd);
	pthread_mutex_destroy(&g.lock);
	return rc;
}

static int gen_npy(const struct wl_workload *w, const char *dir,
		   const struct wl_gen_opts *o, struct wl_gen_stats *st)
{
	return vg_run(&lay_npy, w, dir, o, st);
}

static int gen_npz(const struct wl_workload *w, const char *dir,
		   const struct wl_gen_opts *o, struct wl_gen_stats *st)
{
	return vg_run(&lay_npz, w, dir, o, st);
}

static int gen_cosmo(const struct wl_workload *w, const char *dir,
		     const struct wl_gen_opts *o, struct wl_gen_stats *st)
{
	return vg_run(&lay_cosmo, w, dir, o, st);
}

const struct wl_gen_ops wl_gen_npy_volumes = {
	.layout = "npy-f32-volumes", .generate = gen_npy,
};

const struct wl_gen_ops wl_gen_npz_volumes = {
	.layout = "npz-u8-volume-and-label", .generate = gen_npz,
};

const struct wl_gen_ops wl_gen_cosmoflow = {
	.layout = "tfrecord-cosmoflow", .generate = gen_cosmo,
};
