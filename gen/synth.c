/*
 * synth.c - renders synthetic photographs for the generated datasets.
 *
 * JPEG size and decode cost depend on what the picture holds: white noise
 * compresses to several times the size of a photograph and decodes slower,
 * a flat gradient to a fraction. So the renderer makes pictures with the
 * statistics photographs have:
 *   - a scene of occluding regions ("dead leaves": a ground/sky split and
 *     shapes whose sizes follow a power law, each covering the ones painted
 *     before it), with edges softened by 0.6-1.6 px like a lens and a
 *     downscaler do; occlusion alone gives a 1/f amplitude spectrum;
 *   - inside each region a 1/f texture: a pyramid of white noise, each level
 *     upsampled 2x bilinearly and added to the next (equal variance per
 *     octave, as in natural images), with a per-region gain so that sky-
 *     like regions stay smooth and grass-like ones are busy, and a per-image
 *     sharpness that damps the finest octaves;
 *   - colour correlated like photographs: luma carries the detail, chroma
 *     is a per-region colour plus smooth low-frequency variation;
 *   - a little sensor noise.
 * Deterministic in spec->content_seed. Not thread-safe per renderer: one
 * renderer per thread (it owns its scratch planes).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_write.h"
#include "stg_mix.h"

/* Most regions painted over the background. */
#define SYN_MAX_SHAPES 48

struct wl_synth {
	uint32_t max_w, max_h;
	size_t npix;        /* max_w * max_h */
	float *tex;         /* luma texture, full resolution */
	float *chr1, *chr2; /* chroma variation, half resolution */
	float *scratch;     /* pyramid ping-pong */
	float *row;         /* one row: pyramid pass, then the horizon */
	float *ry, *rcb, *rcr; /* the row being composed, YCbCr */
	int8_t *rnoise;     /* the row's sensor noise */
	uint8_t *out;       /* rendered pixels, up to 4 bytes each */
};

/* ---- random numbers ---- */

struct syn_rng {
	uint64_t s;
};

static uint64_t rng_u64(struct syn_rng *r)
{
	return stg_splitmix64(&r->s);
}

/* Uniform in [0, 1). */
static double rng_unit(struct syn_rng *r)
{
	return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_range(struct syn_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * rng_unit(r);
}

/* Roughly normal: the sum of four uniforms, unit variance. */
static double rng_normal(struct syn_rng *r)
{
	double s = rng_unit(r) + rng_unit(r) + rng_unit(r) + rng_unit(r);

	return (s - 2.0) * 1.7320508;
}

/* ---- renderer lifetime ---- */

struct wl_synth *wl_synth_create(uint32_t max_w, uint32_t max_h)
{
	struct wl_synth *s;
	size_t n, nh;

	if (max_w == 0 || max_h == 0 || max_w > WL_SYNTH_MAX_SIDE ||
	    max_h > WL_SYNTH_MAX_SIDE)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->max_w = max_w;
	s->max_h = max_h;
	n = (size_t)max_w * max_h;
	nh = (size_t)(max_w / 2 + 1) * (max_h / 2 + 1);
	s->npix = n;
	s->tex = malloc(n * sizeof(float));
	s->chr1 = malloc(nh * sizeof(float));
	s->chr2 = malloc(nh * sizeof(float));
	s->scratch = malloc(n * sizeof(float));
	s->row = malloc((size_t)(max_w + 2) * sizeof(float));
	s->ry = malloc((size_t)max_w * sizeof(float));
	s->rcb = malloc((size_t)max_w * sizeof(float));
	s->rcr = malloc((size_t)max_w * sizeof(float));
	s->rnoise = malloc((size_t)max_w + 8);
	s->out = malloc(n * 4);
	if (!s->tex || !s->chr1 || !s->chr2 || !s->scratch || !s->row ||
	    !s->ry || !s->rcb || !s->rcr || !s->rnoise || !s->out) {
		wl_synth_destroy(s);
		return NULL;
	}
	return s;
}

void wl_synth_destroy(struct wl_synth *s)
{
	if (!s)
		return;
	free(s->tex);
	free(s->chr1);
	free(s->chr2);
	free(s->scratch);
	free(s->row);
	free(s->ry);
	free(s->rcb);
	free(s->rcr);
	free(s->rnoise);
	free(s->out);
	free(s);
}

/* ---- 1/f texture: a noise pyramid ---- */

/* Adds uniform noise of standard deviation `sd` to n floats. */
static void add_noise(struct syn_rng *r, float *p, size_t n, float sd)
{
	/* 8-bit uniforms in [-128, 128) have sd 128/sqrt(3) */
	const float k = sd * 1.7320508f / 128.0f;
	int8_t b[64];

	for (size_t i = 0; i < n; i += 64) {
		const size_t m = n - i < 64 ? n - i : 64;

		for (size_t j = 0; j < 64; j += 8) {
			const uint64_t v = rng_u64(r);

			memcpy(b + j, &v, 8);
		}
		for (size_t j = 0; j < m; j++)
			p[i + j] += k * (float)b[j];
	}
}

/*
 * Bilinear 2x upsampling of src (sw x sh) into dst (dw x dh), where
 * dw is 2*sw or 2*sw-1 (likewise dh). Output pixel x samples the source at
 * x/2 - 1/4, so even outputs weigh (1/4, 3/4) and odd ones (3/4, 1/4).
 */
static void upsample2x(const float *src, uint32_t sw, uint32_t sh,
		       float *dst, uint32_t dw, uint32_t dh, float *row)
{
	for (uint32_t y = 0; y < dh; y++) {
		const uint32_t j = y >> 1;
		uint32_t j2;
		const float *a, *b;
		float *d = dst + (size_t)y * dw;

		if (y & 1)
			j2 = j + 1 < sh ? j + 1 : j;
		else
			j2 = j > 0 ? j - 1 : 0;
		a = src + (size_t)j * sw;
		b = src + (size_t)j2 * sw;
		for (uint32_t i = 0; i < sw; i++)
			row[i] = 0.75f * a[i] + 0.25f * b[i];
		row[sw] = row[sw - 1];
		/* even outputs: 3/4 row[i] + 1/4 row[i-1]; odd: + 1/4 row[i+1] */
		d[0] = row[0];
		for (uint32_t i = 1; 2 * i < dw; i++)
			d[2 * i] = 0.75f * row[i] + 0.25f * row[i - 1];
		for (uint32_t i = 0; 2 * i + 1 < dw; i++)
			d[2 * i + 1] = 0.75f * row[i] + 0.25f * row[i + 1];
	}
}

/*
 * Fills out (w x h) with a 1/f-like field: white noise added at every
 * octave from a ~4 px top level down, sd `amp` at the finest octave and
 * `amp * decay^k` k octaves coarser (decay 1: equal variance per octave,
 * a 1/f amplitude spectrum; below 1 the texture is finer-grained, the
 * large-scale variation being left to the regions and their shading). The
 * two finest octaves are scaled by `fine` (camera sharpness); octaves
 * finer than `stop` (counted from the finest, 0 = none) get no noise.
 * `buf` is scratch of w*h floats, `row` of w+2.
 */
static void field_1f(struct syn_rng *r, float *out, float *buf, float *row,
		     uint32_t w, uint32_t h, float amp, float fine,
		     float decay, unsigned stop)
{
	uint32_t ws[16], hs[16];
	unsigned nl = 0;
	float *cur, *nxt;

	ws[0] = w;
	hs[0] = h;
	while (nl + 1 < 16 && (ws[nl] > 4 || hs[nl] > 4)) {
		ws[nl + 1] = (ws[nl] + 1) / 2;
		hs[nl + 1] = (hs[nl] + 1) / 2;
		nl++;
	}
	/* level nl is the top; level 0 the output. Ping-pong so that level 0
	 * lands in `out`: level k lives in out when k is even. */
	cur = (nl & 1) ? buf : out;
	for (size_t i = 0; i < (size_t)ws[nl] * hs[nl]; i++)
		cur[i] = 0.0f;
	add_noise(r, cur, (size_t)ws[nl] * hs[nl],
		  amp * 1.4f * powf(decay, (float)nl));
	for (unsigned k = nl; k-- > 0;) {
		float a = amp * powf(decay, (float)k);

		nxt = (k & 1) ? buf : out;
		upsample2x(cur, ws[k + 1], hs[k + 1], nxt, ws[k], hs[k], row);
		if (k < 2)
			a *= fine;
		if (k >= stop)
			add_noise(r, nxt, (size_t)ws[k] * hs[k], a);
		cur = nxt;
	}
}

/* ---- the scene ---- */

enum shape_kind { SHAPE_ELLIPSE, SHAPE_BOX, SHAPE_GROUND };

struct layer {
	enum shape_kind kind;
	/* geometry: centre, half-axes, rotation (cos, sin) */
	float cx, cy, a, b, cs, sn;
	/* GROUND: horizon height and two waves */
	float h0, w1a, w1f, w1p, w2a, w2f, w2p;
	int x0, y0, x1, y1;  /* bounding box, inclusive-exclusive */
	/* appearance */
	float y, gx, gy;     /* base luma and its gradient per pixel */
	float t;             /* texture gain */
	int tox, toy;        /* where the layer reads the texture: an offset
	                        that keeps its box inside the texture, so
	                        regions differ in detail and no seam shows */
	float cb, cr, cg;    /* base chroma and chroma variation gain */
};

struct scene {
	uint32_t w, h;
	float blur;          /* edge half-width in pixels */
	float noise;         /* sensor noise sd */
	unsigned nlayers;
	struct layer l[SYN_MAX_SHAPES + 2];
};

static void layer_colour(struct syn_rng *r, struct layer *L, float size,
			 bool smooth)
{
	L->y = (float)rng_range(r, 25.0, 225.0);
	/* a shading gradient across the region: up to ~60 levels */
	L->gx = (float)(rng_normal(r) * 25.0 / size);
	L->gy = (float)(rng_normal(r) * 25.0 / size);
	/* texture: most regions moderate, some smooth, some busy */
	{
		double t = rng_unit(r);
		double gain = smooth ? rng_range(r, 0.05, 0.35) :
			t < 0.25 ? rng_range(r, 0.1, 0.45) :
			t < 0.80 ? rng_range(r, 0.45, 1.1) :
				   rng_range(r, 1.1, 2.0);

		L->t = (float)gain;
	}
	/* photographs are mostly low saturation, with some vivid objects */
	{
		const double sat = rng_unit(r) < 0.2 ? 38.0 : 12.0;

		L->cb = (float)(rng_normal(r) * sat);
		L->cr = (float)(rng_normal(r) * sat);
		L->cg = (float)rng_range(r, 0.3, 1.0);
	}
}

/* Picks where the layer's box reads the texture: anywhere the whole box
 * still lies inside it. */
static void layer_place_texture(struct syn_rng *r, struct layer *L,
				uint32_t w, uint32_t h)
{
	const int bw = L->x1 - L->x0, bh = L->y1 - L->y0;

	L->tox = (int)(rng_unit(r) * (double)((int)w - bw + 1)) - L->x0;
	L->toy = (int)(rng_unit(r) * (double)((int)h - bh + 1)) - L->y0;
}

static void scene_build(struct syn_rng *r, struct scene *sc, uint32_t w,
			uint32_t h)
{
	const float side = (float)(w < h ? w : h);
	const float diag = sqrtf((float)w * w + (float)h * h);
	unsigned nshapes;
	struct layer *L;

	sc->w = w;
	sc->h = h;
	sc->blur = (float)rng_range(r, 0.6, 1.6);
	sc->noise = (float)rng_range(r, 0.5, 1.5);

	/* background: the whole frame, often smooth (sky, wall) */
	L = &sc->l[0];
	memset(L, 0, sizeof(*L));
	L->kind = SHAPE_BOX;
	L->cx = w / 2.0f;
	L->cy = h / 2.0f;
	L->a = w;
	L->b = h;
	L->cs = 1.0f;
	L->x1 = (int)w;
	L->y1 = (int)h;
	layer_colour(r, L, diag, rng_unit(r) < 0.6);
	sc->nlayers = 1;

	/* a ground below a wavy horizon in most pictures */
	if (rng_unit(r) < 0.7) {
		L = &sc->l[sc->nlayers++];
		memset(L, 0, sizeof(*L));
		L->kind = SHAPE_GROUND;
		L->h0 = (float)rng_range(r, 0.3, 0.8) * h;
		L->w1a = (float)rng_range(r, 0.0, 0.08) * h;
		L->w1f = (float)(rng_range(r, 0.5, 3.0) * 2 * M_PI / w);
		L->w1p = (float)rng_range(r, 0.0, 6.3);
		L->w2a = (float)rng_range(r, 0.0, 0.006) * h;
		L->w2f = (float)(rng_range(r, 4.0, 20.0) * 2 * M_PI / w);
		L->w2p = (float)rng_range(r, 0.0, 6.3);
		L->x1 = (int)w;
		L->y0 = (int)fmaxf(0.0f, L->h0 - L->w1a - L->w2a - 3.0f);
		L->y1 = (int)h;
		layer_colour(r, L, diag, false);
		layer_place_texture(r, L, w, h);
	}

	/* shapes: sizes power-law between 2 % and 50 % of the short side,
	 * large ones first (they are behind) */
	nshapes = 16 + (unsigned)(rng_unit(r) * 32.0);
	if (nshapes > SYN_MAX_SHAPES)
		nshapes = SYN_MAX_SHAPES;
	{
		float radii[SYN_MAX_SHAPES];

		for (unsigned i = 0; i < nshapes; i++) {
			/* p(r) ~ r^-2 on [rmin, rmax]: inverse CDF */
			const double rmin = 0.02 * side, rmax = 0.5 * side;
			const double u = rng_unit(r);
			const double a = 1.0 / rmin, b = 1.0 / rmax;

			radii[i] = (float)(1.0 / (a - u * (a - b)));
		}
		/* sort descending (insertion sort, n <= 48) */
		for (unsigned i = 1; i < nshapes; i++) {
			float v = radii[i];
			unsigned j = i;

			while (j > 0 && radii[j - 1] < v) {
				radii[j] = radii[j - 1];
				j--;
			}
			radii[j] = v;
		}
		for (unsigned i = 0; i < nshapes; i++) {
			const float rad = radii[i];
			const float ang = (float)rng_range(r, 0.0, M_PI);
			/* some long thin ones: branches, poles, edges */
			const double la = rng_unit(r) < 0.2 ? 2.2 : 0.9;
			const float asp = (float)exp(rng_range(r, -la, la));
			float ext;

			L = &sc->l[sc->nlayers++];
			memset(L, 0, sizeof(*L));
			L->kind = rng_unit(r) < 0.65 ? SHAPE_ELLIPSE : SHAPE_BOX;
			L->cx = (float)rng_range(r, -0.1, 1.1) * w;
			L->cy = (float)rng_range(r, -0.1, 1.1) * h;
			L->a = rad * sqrtf(asp);
			L->b = rad / sqrtf(asp);
			L->cs = cosf(ang);
			L->sn = sinf(ang);
			ext = (L->kind == SHAPE_BOX ?
			       sqrtf(L->a * L->a + L->b * L->b) :
			       (L->a > L->b ? L->a : L->b)) + 3.0f;
			L->x0 = (int)fmaxf(0.0f, L->cx - ext);
			L->x1 = (int)fminf((float)w, L->cx + ext + 1.0f);
			L->y0 = (int)fmaxf(0.0f, L->cy - ext);
			L->y1 = (int)fminf((float)h, L->cy + ext + 1.0f);
			layer_colour(r, L, 2.0f * rad, rng_unit(r) < 0.2);
			if (L->x0 >= L->x1 || L->y0 >= L->y1)
				sc->nlayers--;
			else
				layer_place_texture(r, L, w, h);
		}
	}
}

/* Coverage of pixel (x, y) by a layer near its edge: 1 inside, 0 outside,
 * a ramp of half-width `blur` pixels across the edge. `hz` is the ground's
 * horizon per column. */
static inline float layer_cover(const struct layer *L, float x, float y,
				float inv_blur, const float *hz)
{
	float d;

	switch (L->kind) {
	case SHAPE_GROUND:
		d = hz[(int)x] - y;
		break;
	case SHAPE_BOX: {
		const float dx = x - L->cx, dy = y - L->cy;
		const float u = fabsf(dx * L->cs + dy * L->sn) - L->a;
		const float v = fabsf(-dx * L->sn + dy * L->cs) - L->b;

		d = u > v ? u : v;
		break;
	}
	default: {
		const float dx = x - L->cx, dy = y - L->cy;
		const float u = (dx * L->cs + dy * L->sn) / L->a;
		const float v = (-dx * L->sn + dy * L->cs) / L->b;
		const float q = u * u + v * v;
		const float gu = u / L->a, gv = v / L->b;
		const float g = 2.0f * sqrtf(gu * gu + gv * gv) + 1e-6f;

		d = (q - 1.0f) / g;
		break;
	}
	}
	d = 0.5f - 0.5f * d * inv_blur;
	return d < 0.0f ? 0.0f : d > 1.0f ? 1.0f : d;
}

/* Intersects [*lo, *hi] with {dx : |dx * k + c| <= e}. */
static void slab_clip(double k, double c, double e, double *lo, double *hi)
{
	if (fabs(k) < 1e-9) {
		if (fabs(c) > e)
			*lo = 1, *hi = 0;
		return;
	}
	{
		double p = (-e - c) / k, q = (e - c) / k;

		if (p > q) {
			const double t = p;

			p = q;
			q = t;
		}
		if (p > *lo)
			*lo = p;
		if (q < *hi)
			*hi = q;
	}
}

/*
 * The pixels of row y (pixel centre fy) that a layer touches: [*ol, *or_)
 * is every pixel with any coverage, [*il, *ir) those fully covered (a
 * sub-span, possibly empty). Computed analytically so that only edge
 * pixels pay for a coverage evaluation.
 */
static void layer_row_span(const struct layer *L, float fy, float margin,
			   int *ol, int *or_, int *il, int *ir)
{
	const double dy = fy - L->cy;
	double olo = -1e9, ohi = 1e9, ilo = -1e9, ihi = 1e9;

	if (L->kind == SHAPE_BOX) {
		slab_clip(L->cs, dy * L->sn, L->a + margin, &olo, &ohi);
		slab_clip(-L->sn, dy * L->cs, L->b + margin, &olo, &ohi);
		if (L->a > margin && L->b > margin) {
			slab_clip(L->cs, dy * L->sn, L->a - margin, &ilo, &ihi);
			slab_clip(-L->sn, dy * L->cs, L->b - margin, &ilo,
				  &ihi);
		} else {
			ilo = 1, ihi = 0;
		}
	} else {
		/* q(dx) = A dx^2 + B dx + C; solve q = t */
		const double ia2 = 1.0 / ((double)L->a * L->a);
		const double ib2 = 1.0 / ((double)L->b * L->b);
		const double A = L->cs * L->cs * ia2 + L->sn * L->sn * ib2;
		const double B = 2.0 * dy * L->cs * L->sn * (ia2 - ib2);
		const double C = dy * dy * (L->sn * L->sn * ia2 +
					    L->cs * L->cs * ib2);
		const double m = margin / fmin(L->a, L->b);
		const double to = (1 + m) * (1 + m);
		const double ti = m < 1 ? (1 - m) * (1 - m) : -1;
		double disc = B * B - 4 * A * (C - to);

		if (disc < 0) {
			olo = 1, ohi = 0;
		} else {
			olo = (-B - sqrt(disc)) / (2 * A);
			ohi = (-B + sqrt(disc)) / (2 * A);
		}
		disc = B * B - 4 * A * (C - ti);
		if (ti < 0 || disc < 0) {
			ilo = 1, ihi = 0;
		} else {
			ilo = (-B - sqrt(disc)) / (2 * A);
			ihi = (-B + sqrt(disc)) / (2 * A);
		}
	}
	/* dx -> pixel index x with centre x + 0.5 */
	*ol = (int)floor(olo + L->cx - 0.5) + 1;
	*or_ = (int)ceil(ohi + L->cx - 0.5);
	if (olo > ohi)
		*ol = *or_ = 0;
	*il = (int)ceil(ilo + L->cx - 0.5);
	*ir = (int)floor(ihi + L->cx - 0.5) + 1;
	if (ilo > ihi || *il >= *ir)
		*il = *ir = *ol;
}

/* One row being composed. Texture value at pixel x is tex[x + toff]. */
struct paint_row {
	const float *tex, *c1, *c2;
	float *py, *pb, *pr;
	float fy;
	int toff;
};

/* Writes the layer's own colour into pixels [x0, x1) of a row. */
static void paint_full(const struct layer *L, const struct paint_row *p,
		       float base, int x0, int x1)
{
	const float *t = p->tex + p->toff;

	for (int x = x0; x < x1; x++) {
		p->py[x] = base + L->gx * (float)x + L->t * t[x];
		p->pb[x] = L->cb + L->cg * p->c1[x >> 1];
		p->pr[x] = L->cr + L->cg * p->c2[x >> 1];
	}
}

/* Blends the layer over pixels [x0, x1) by their coverage. */
static void paint_edge(const struct layer *L, const struct paint_row *p,
		       float base, int x0, int x1, float inv_blur,
		       const float *hz)
{
	const float *t = p->tex + p->toff;

	for (int x = x0; x < x1; x++) {
		const float c = layer_cover(L, (float)x + 0.5f, p->fy,
					    inv_blur, hz);
		float vy, vb, vr;

		if (c <= 0.0f)
			continue;
		vy = base + L->gx * (float)x + L->t * t[x];
		vb = L->cb + L->cg * p->c1[x >> 1];
		vr = L->cr + L->cg * p->c2[x >> 1];
		p->py[x] += c * (vy - p->py[x]);
		p->pb[x] += c * (vb - p->pb[x]);
		p->pr[x] += c * (vr - p->pr[x]);
	}
}

/* Paints [x0, x1) fully or by coverage, reading the texture shifted by
 * the layer's offset. */
static void paint_span(const struct layer *L, struct paint_row *p,
		       float base, int x0, int x1, bool edge, float inv_blur,
		       const float *hz)
{
	if (x0 >= x1)
		return;
	p->toff = L->tox;
	if (edge)
		paint_edge(L, p, base, x0, x1, inv_blur, hz);
	else
		paint_full(L, p, base, x0, x1);
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Rounds and saturates to 0..255 with integer compares (cmov, no branch). */
static inline int sat8(float v)
{
	int i = (int)(v + 0.5f);

	i = i < 0 ? 0 : i;
	return i > 255 ? 255 : i;
}

/* One composed row (YCbCr + noise) -> the requested pixel format. */
static void row_store(const struct wl_synth *s, uint32_t w, float k,
		      enum aug_enc_pixfmt fmt, uint8_t *d)
{
	const float *py = s->ry, *pb = s->rcb, *pr = s->rcr;
	const int8_t *noise = s->rnoise;

	if (fmt == AUG_ENC_GRAY) {
		for (uint32_t x = 0; x < w; x++)
			d[x] = (uint8_t)sat8(py[x] + k * (float)noise[x]);
		return;
	}
	if (fmt == AUG_ENC_RGB) {
		uint32_t x = 0;

		for (; x < w; x++) {
			const float yy = py[x] + k * (float)noise[x];

			d[3 * x] = (uint8_t)sat8(yy + 1.402f * pr[x]);
			d[3 * x + 1] = (uint8_t)sat8(yy - 0.344136f * pb[x] -
						     0.714136f * pr[x]);
			d[3 * x + 2] = (uint8_t)sat8(yy + 1.772f * pb[x]);
		}
		return;
	}
	/* inverted CMYK, as Photoshop writes it: R = C*K/255 */
	for (uint32_t x = 0; x < w; x++) {
		const float yy = py[x] + k * (float)noise[x];
		const unsigned R = (unsigned)sat8(yy + 1.402f * pr[x]);
		const unsigned G = (unsigned)sat8(yy - 0.344136f * pb[x] -
						  0.714136f * pr[x]);
		const unsigned B = (unsigned)sat8(yy + 1.772f * pb[x]);
		const unsigned K = R > G ? (R > B ? R : B) : (G > B ? G : B);
		uint8_t *q = d + 4 * x;

		if (K == 0) {
			q[0] = q[1] = q[2] = 255;
			q[3] = 0;
		} else {
			q[0] = (uint8_t)((R * 255u + K / 2) / K);
			q[1] = (uint8_t)((G * 255u + K / 2) / K);
			q[2] = (uint8_t)((B * 255u + K / 2) / K);
			q[3] = (uint8_t)K;
		}
	}
}

/*
 * Composes the scene row by row (each row's layers are painted into three
 * row buffers that stay in cache, then converted), so no full-size YCbCr
 * planes are written and read back.
 */
static void scene_paint(struct wl_synth *s, const struct scene *sc,
			struct syn_rng *r, enum aug_enc_pixfmt fmt,
			unsigned bpp)
{
	const uint32_t w = sc->w, h = sc->h;
	const uint32_t hw = w / 2 + 1;
	const float inv_blur = 1.0f / sc->blur;
	const float margin = sc->blur + 1.0f;
	const float k = sc->noise * 1.7320508f / 128.0f;
	float *hz = s->row;  /* the ground's horizon, per column */
	float hmin = 1e9f, hmax = -1e9f;

	for (unsigned li = 0; li < sc->nlayers; li++) {
		const struct layer *L = &sc->l[li];

		if (L->kind != SHAPE_GROUND)
			continue;
		for (uint32_t x = 0; x < w; x++) {
			const float fx = (float)x + 0.5f;

			hz[x] = L->h0 + L->w1a * sinf(L->w1f * fx + L->w1p) +
				L->w2a * sinf(L->w2f * fx + L->w2p);
			hmin = fminf(hmin, hz[x]);
			hmax = fmaxf(hmax, hz[x]);
		}
	}
	for (uint32_t y = 0; y < h; y++) {
		struct paint_row p = {
			.c1 = s->chr1 + (size_t)(y >> 1) * hw,
			.c2 = s->chr2 + (size_t)(y >> 1) * hw,
			.py = s->ry, .pb = s->rcb, .pr = s->rcr,
			.fy = (float)y + 0.5f,
		};

		for (unsigned li = 0; li < sc->nlayers; li++) {
			const struct layer *L = &sc->l[li];
			const float ox = L->kind == SHAPE_GROUND ? 0.0f : L->cx;
			const float oy = L->kind == SHAPE_GROUND ? L->h0 : L->cy;
			const float base = L->y + L->gy * (p.fy - oy) +
				L->gx * (0.5f - ox);
			int ol, or_, il, ir;

			if ((int)y < L->y0 || (int)y >= L->y1)
				continue;
			p.tex = s->tex + (size_t)((int)y + L->toy) * w;
			if (li == 0) {
				paint_span(L, &p, base, 0, (int)w, false,
					   inv_blur, hz);
				continue;
			}
			if (L->kind == SHAPE_GROUND) {
				if (p.fy > hmax + margin)
					paint_span(L, &p, base, 0, (int)w, false,
						   inv_blur, hz);
				else if (p.fy >= hmin - margin)
					paint_span(L, &p, base, 0, (int)w, true,
						   inv_blur, hz);
				continue;
			}
			layer_row_span(L, p.fy, margin, &ol, &or_, &il, &ir);
			/* within the box, where the texture offset is valid */
			ol = clampi(ol, L->x0, L->x1);
			or_ = clampi(or_, ol, L->x1);
			il = clampi(il, ol, or_);
			ir = clampi(ir, il, or_);
			paint_span(L, &p, base, ol, il, true, inv_blur, hz);
			paint_span(L, &p, base, il, ir, false, inv_blur, hz);
			paint_span(L, &p, base, ir, or_, true, inv_blur, hz);
		}
		for (uint32_t x = 0; x < w; x += 8) {
			const uint64_t v = rng_u64(r);

			memcpy(s->rnoise + x, &v, 8);
		}
		row_store(s, w, k, fmt, s->out + (size_t)y * w * bpp);
	}
}

int wl_synth_render(struct wl_synth *s, const struct wl_image_spec *spec,
		    const uint8_t **pixels, size_t *stride)
{
	struct syn_rng r = { spec->content_seed };
	struct scene sc;
	const uint32_t w = spec->width, h = spec->height;
	unsigned bpp;
	float sharp, amp;

	if (!s || !spec || !pixels || !stride || w == 0 || h == 0 ||
	    w > s->max_w || h > s->max_h || (size_t)w * h > s->npix)
		return -EINVAL;
	switch (spec->fmt) {
	case AUG_ENC_RGB: bpp = 3; break;
	case AUG_ENC_GRAY: bpp = 1; break;
	case AUG_ENC_CMYK: bpp = 4; break;
	default: return -EINVAL;
	}
	rng_u64(&r);
	scene_build(&r, &sc, w, h);
	/* texture amplitude per octave (luma levels) and sharpness */
	amp = (float)rng_range(&r, 12.5, 20.0);
	sharp = (float)rng_range(&r, 0.35, 1.0);
	field_1f(&r, s->tex, s->scratch, s->row, w, h, amp, sharp, 0.8f, 0);
	/* chroma: smooth, no octave finer than 1/8 of the picture */
	field_1f(&r, s->chr1, s->scratch, s->row, w / 2 + 1, h / 2 + 1, 4.0f,
		 1.0f, 1.0f, 3);
	field_1f(&r, s->chr2, s->scratch, s->row, w / 2 + 1, h / 2 + 1, 4.0f,
		 1.0f, 1.0f, 3);
	scene_paint(s, &sc, &r, spec->fmt, bpp);
	*pixels = s->out;
	*stride = (size_t)w * bpp;
	return 0;
}

int wl_synth_jpeg(struct wl_synth *s, const struct wl_image_spec *spec,
		  struct aug_membuf *out)
{
	const uint8_t *px;
	size_t stride;
	struct aug_enc_params p = {
		.quality = spec->quality,
		.subsamp = spec->subsamp,
		.progressive = spec->progressive,
		.optimize = false,
	};
	int rc = wl_synth_render(s, spec, &px, &stride);

	if (rc)
		return rc;
	return aug_jpeg_encode(px, spec->width, spec->height, stride,
			       spec->fmt, &p, out);
}
