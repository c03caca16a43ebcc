/*
 * aug_crop.c - the per-sample random stream and torchvision's
 * RandomResizedCrop parameter draw.
 *
 * The stream is a pure function of (run seed, epoch, sample id): the
 * three are mixed with splitmix64 into the state of a xoshiro256**
 * generator. No state is shared, so the crops of a run do not depend on
 * how many threads draw them or in which order.
 */
#include <math.h>

#include "aug_internal.h"
#include "stg_mix.h"

void aug_rng_seed(struct aug_rng *r, uint64_t seed, uint64_t epoch,
		  uint64_t id)
{
	uint64_t a = seed, b = epoch ^ 0x6a09e667f3bcc908ull,
		 c = id ^ 0xbb67ae8584caa73bull, h;

	/* each input goes through its own mixer before they are combined */
	h = stg_splitmix64(&a);
	h ^= stg_splitmix64(&b) * 0xd1342543de82ef95ull;
	h = (h << 23 | h >> 41) ^ stg_splitmix64(&c);
	for (int i = 0; i < 4; i++)
		r->s[i] = stg_splitmix64(&h);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t aug_rng_next(struct aug_rng *r)
{
	uint64_t *s = r->s;
	const uint64_t out = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

double aug_rng_uniform(struct aug_rng *r)
{
	return (double)(aug_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n >= 1 (multiply-high; bias < n / 2^64). */
static uint32_t rng_below(struct aug_rng *r, uint32_t n)
{
	return (uint32_t)(((unsigned __int128)aug_rng_next(r) * n) >> 64);
}

void aug_rrc_opts_default(struct aug_rrc_opts *o)
{
	o->scale_min = 0.08;
	o->scale_max = 1.0;
	o->ratio_min = 3.0 / 4.0;
	o->ratio_max = 4.0 / 3.0;
	o->tries = 10;
}

/* Python's round(): nearest, ties to even (nearbyint in the default mode). */
static double py_round(double x)
{
	return nearbyint(x);
}

int aug_rrc_params(const struct aug_rrc_opts *o, uint32_t width,
		   uint32_t height, struct aug_rng *rng,
		   struct aug_rect *crop)
{
	const double area = (double)width * height;
	const double lr0 = log(o->ratio_min), lr1 = log(o->ratio_max);
	double in_ratio;
	uint32_t w, h;

	for (unsigned t = 0; t < o->tries; t++) {
		double target = area * (o->scale_min + (o->scale_max -
				o->scale_min) * aug_rng_uniform(rng));
		double ar = exp(lr0 + (lr1 - lr0) * aug_rng_uniform(rng));
		double fw = py_round(sqrt(target * ar));
		double fh = py_round(sqrt(target / ar));

		if (fw > 0 && fw <= width && fh > 0 && fh <= height) {
			w = (uint32_t)fw;
			h = (uint32_t)fh;
			crop->y = rng_below(rng, height - h + 1);
			crop->x = rng_below(rng, width - w + 1);
			crop->w = w;
			crop->h = h;
			return 0;
		}
	}
	/* centre crop, clamped to the ratio range */
	in_ratio = (double)width / height;
	if (in_ratio < o->ratio_min) {
		w = width;
		h = (uint32_t)py_round(w / o->ratio_min);
	} else if (in_ratio > o->ratio_max) {
		h = height;
		w = (uint32_t)py_round(h * o->ratio_max);
	} else {
		w = width;
		h = height;
	}
	if (w > width)
		w = width;
	if (h > height)
		h = height;
	if (w == 0)
		w = 1;
	if (h == 0)
		h = 1;
	crop->x = (width - w) / 2;
	crop->y = (height - h) / 2;
	crop->w = w;
	crop->h = h;
	return 1;
}
