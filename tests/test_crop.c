/*
 * test_crop.c - RandomResizedCrop parameters against reference statistics
 * derived from torchvision's algorithm (docs/crop_reference.md, computed
 * by docs/crop_reference.py), the per-sample RNG, and determinism of the
 * train transform across thread counts.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "aug_testlib.h"

#define DRAWS 100000

/* Reference values: the table in docs/crop_reference.md. */
struct crop_ref {
	uint32_t w, h;
	double fallback, area, area_sd, logr, logr_sd;
	uint32_t fb_w, fb_h;
};

static const struct crop_ref refs[] = {
	{ 500, 375, 1.319432e-06, 0.432888, 0.216422, +0.030652, 0.164279, 500, 375 },
	{ 375, 500, 1.319432e-06, 0.432888, 0.216422, -0.030652, 0.164279, 375, 500 },
	{ 1000, 100, 7.797575e-01, 0.125169, 0.015890, +0.249226, 0.088170, 133, 100 },
	{ 100, 1000, 7.797575e-01, 0.125169, 0.015890, -0.249226, 0.088170, 100, 133 },
};

FR_TEST(crop, statistics_match_torchvision_reference)
{
	struct aug_rrc_opts o;

	aug_rrc_opts_default(&o);
	for (size_t k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
		const struct crop_ref *r = &refs[k];
		const double A = (double)r->w * r->h;
		/* loosest ratio rounding can make: smallest crop at r = 3/4 */
		const double a = sqrt(A * o.scale_min * o.ratio_min);
		const double b = sqrt(A * o.scale_min / o.ratio_min);
		const double rlo = (a - 0.5) / (b + 0.5), rhi = (b + 0.5) / (a - 0.5);
		double sa = 0, sl = 0, mn = 1e9, mx = 0;
		long fb = 0;

		for (uint64_t id = 0; id < DRAWS; id++) {
			struct aug_rng g;
			struct aug_rect c;
			int f;

			aug_rng_seed(&g, 42, k, id);
			f = aug_rrc_params(&o, r->w, r->h, &g, &c);
			cr_assert(c.w > 0 && c.h > 0 && c.x + c.w <= r->w &&
				  c.y + c.h <= r->h, "crop outside the image");
			sa += c.w * (double)c.h / A;
			sl += log((double)c.w / c.h);
			if (f) {
				fb++;
				cr_assert_eq(c.w, r->fb_w);
				cr_assert_eq(c.h, r->fb_h);
				cr_assert_eq(c.x, (r->w - c.w) / 2);
				cr_assert_eq(c.y, (r->h - c.h) / 2);
			} else {
				double q = (double)c.w / c.h;

				cr_assert(q >= rlo && q <= rhi,
					  "ratio %f outside [%f, %f]", q, rlo, rhi);
				mn = q < mn ? q : mn;
				mx = q > mx ? q : mx;
			}
		}
		double ma = sa / DRAWS, ml = sl / DRAWS, pf = (double)fb / DRAWS;
		double se_a = r->area_sd / sqrt(DRAWS), se_l = r->logr_sd / sqrt(DRAWS);
		double se_f = sqrt(r->fallback * (1 - r->fallback) / DRAWS);

		cr_assert(fabs(ma - r->area) <= 5 * se_a,
			  "%ux%u mean area %f, reference %f", r->w, r->h, ma, r->area);
		cr_assert(fabs(ml - r->logr) <= 5 * se_l,
			  "%ux%u mean log ratio %f, reference %f", r->w, r->h, ml,
			  r->logr);
		cr_assert(fabs(pf - r->fallback) <= 5 * se_f + 5.0 / DRAWS,
			  "%ux%u fallback rate %f, reference %f", r->w, r->h, pf,
			  r->fallback);
		/* the accepted ratios reach both ends of 3/4 .. 4/3 */
		if (r->fallback < 0.5) {
			cr_assert(mn < 0.76 && mx > 1.31, "ratios %f .. %f", mn, mx);
		}
	}
}

FR_TEST(crop, rng_is_a_function_of_seed_epoch_and_id)
{
	struct aug_rng a, b;
	int same = 0;

	aug_rng_seed(&a, 7, 3, 12345);
	aug_rng_seed(&b, 7, 3, 12345);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(aug_rng_next(&a), aug_rng_next(&b));
	/* changing any one input changes the stream */
	const uint64_t in[3][3] = { { 8, 3, 12345 }, { 7, 4, 12345 },
				    { 7, 3, 12346 } };
	for (int k = 0; k < 3; k++) {
		aug_rng_seed(&a, 7, 3, 12345);
		aug_rng_seed(&b, in[k][0], in[k][1], in[k][2]);
		for (int i = 0; i < 16; i++)
			same += aug_rng_next(&a) == aug_rng_next(&b);
	}
	cr_assert_eq(same, 0);
	/* uniform in [0, 1) with the right mean */
	double s = 0;

	aug_rng_seed(&a, 1, 0, 0);
	for (int i = 0; i < 100000; i++) {
		double u = aug_rng_uniform(&a);

		cr_assert(u >= 0 && u < 1);
		s += u;
	}
	cr_assert(fabs(s / 100000 - 0.5) < 0.005);
}

FR_TEST(crop, flip_probability_is_one_half)
{
	struct aug_params p;
	struct aug_ctx *c;
	struct aug_membuf j = { 0 };
	uint8_t *out;
	int flips = 0;

	aug_params_default(&p);
	p.dtype = AUG_DT_U8;
	p.layout = AUG_LAYOUT_HWC;
	p.out_w = p.out_h = 16;
	cr_assert_eq(aug_ctx_create(&p, &c), 0);
	out = malloc(aug_ctx_sample_bytes(c, false));
	cr_assert_eq(tl_make_jpeg(64, 48, 1, AUG_ENC_420, 80, false, &j), 0);
	for (uint64_t id = 0; id < 2000; id++) {
		struct aug_stats s;

		cr_assert_eq(aug_train_sample(c, j.data, j.len, 9, 0, id, out, &s), 0);
		flips += s.flipped;
	}
	/* 2000 fair coins: sd 22.4; 5 sd */
	cr_assert(abs(flips - 1000) < 112, "%d flips", flips);
	aug_ctx_destroy(c);
	aug_membuf_free(&j);
	free(out);
}

/* ---- determinism across thread counts ---- */

#define DET_FILES 6
#define DET_SAMPLES 48

struct det_job {
	const struct aug_membuf *files;
	uint32_t first, step;           /* samples first, first+step, ... */
	uint64_t *hash;                 /* [DET_SAMPLES] */
	int err;
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void *det_worker(void *arg)
{
	struct det_job *j = arg;
	struct aug_ctx *c;
	void *out;

	j->err = aug_ctx_create(NULL, &c);
	if (j->err)
		return NULL;
	out = malloc(aug_ctx_sample_bytes(c, false));
	for (uint32_t i = j->first; i < DET_SAMPLES && out; i += j->step) {
		const struct aug_membuf *f = &j->files[i % DET_FILES];
		int err = aug_train_sample(c, f->data, f->len, 2024, 3, i, out,
					   NULL);

		if (err) {
			j->err = err;
			break;
		}
		j->hash[i] = fnv1a(out, aug_ctx_sample_bytes(c, false));
	}
	free(out);
	aug_ctx_destroy(c);
	return NULL;
}

static void run_threads(const struct aug_membuf *files, uint32_t n,
			uint64_t *hash)
{
	pthread_t t[8];
	struct det_job jobs[8];

	for (uint32_t i = 0; i < n; i++) {
		/* odd thread counts interleave samples differently */
		jobs[i] = (struct det_job){ files, i, n, hash, 0 };
		cr_assert_eq(pthread_create(&t[i], NULL, det_worker, &jobs[i]), 0);
	}
	for (uint32_t i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(jobs[i].err, 0, "worker %u: %s", i,
			     aug_strerror(jobs[i].err));
	}
}

FR_TEST(crop, train_output_is_identical_for_1_2_and_3_threads)
{
	struct aug_membuf files[DET_FILES] = { { 0 } };
	uint64_t h1[DET_SAMPLES], h2[DET_SAMPLES], h3[DET_SAMPLES];
	static const uint32_t dims[DET_FILES][2] = {
		{ 500, 375 }, { 375, 500 }, { 1024, 683 }, { 160, 120 },
		{ 2000, 1500 }, { 333, 333 },
	};

	for (int i = 0; i < DET_FILES; i++)
		cr_assert_eq(tl_make_jpeg(dims[i][0], dims[i][1], (uint32_t)i,
					  i % 2 ? AUG_ENC_444 : AUG_ENC_420, 88,
					  i == 5, &files[i]), 0);
	run_threads(files, 1, h1);
	run_threads(files, 2, h2);
	run_threads(files, 3, h3);
	for (int i = 0; i < DET_SAMPLES; i++) {
		cr_assert_eq(h1[i], h2[i], "sample %d differs (2 threads)", i);
		cr_assert_eq(h1[i], h3[i], "sample %d differs (3 threads)", i);
	}
	/* and the samples are not all alike */
	cr_assert_neq(h1[0], h1[DET_FILES]);
	for (int i = 0; i < DET_FILES; i++)
		aug_membuf_free(&files[i]);
}

FR_TEST(crop, eval_transform_matches_torchvision_geometry)
{
	/* 500x375 -> Resize(256): 341x256 (int(256*500/375) = 341), centre
	 * crop 224: left round(58.5) = 58 (ties to even), top 16. */
	struct aug_params p;
	struct aug_ctx *c, *ref;
	struct aug_membuf j = { 0 };
	struct aug_stats s;
	uint8_t *out, *full, *want;
	struct aug_view v;

	aug_params_default(&p);
	p.dtype = AUG_DT_U8;
	p.layout = AUG_LAYOUT_HWC;
	cr_assert_eq(aug_ctx_create(&p, &c), 0);
	p.out_w = 341;
	p.out_h = 256;
	cr_assert_eq(aug_ctx_create(&p, &ref), 0);
	cr_assert_eq(tl_make_jpeg(500, 375, 4, AUG_ENC_420, 90, false, &j), 0);
	out = malloc(224 * 224 * 3);
	cr_assert_eq(aug_eval_sample(c, j.data, j.len, out, &s), 0);
	cr_assert_eq(s.scale_denom, 1);
	cr_assert(s.decoded.w < 500, "only the columns the crop needs");
	/* reference: full decode, resize the whole image to 341x256, crop */
	cr_assert_eq(aug_decoder_decode(aug_ctx_decoder(ref), j.data, j.len,
					NULL, 1, &v), 0);
	full = malloc(341 * 256 * 4);
	want = malloc(224 * 224 * 3);
	struct aug_view fv = { full, 341, 256, 341 * 4 };

	cr_assert_eq(aug_resize(ref, &v, 0, 0, 500, 375, &fv, false), 0);
	for (int y = 0; y < 224; y++)
		for (int x = 0; x < 224; x++)
			memcpy(want + (y * 224 + x) * 3,
			       full + ((y + 16) * 341 + (x + 58)) * 4, 3);
	cr_assert(memcmp(out, want, 224 * 224 * 3) == 0);
	free(out);
	free(full);
	free(want);
	aug_ctx_destroy(c);
	aug_ctx_destroy(ref);
	aug_membuf_free(&j);
}
