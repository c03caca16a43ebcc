/*
 * bench_gen_realism.c - are generated pictures like photographs to a JPEG
 * codec? Compares bits per pixel and decode speed of synthetic images with
 * real photographs, both encoded by the same encoder at the same settings.
 *
 *   bench_gen_realism [--quality Q] [--subsamp 420|444] [--reps N]
 *                     [--per-ref K] [--seed S] REF...
 *       REF: real photographs, JPEG or binary PPM/PGM (P6/P5). Each is
 *       decoded and re-encoded at Q; for each, K synthetic pictures of the
 *       same size are rendered and encoded at Q. Prints bpp and decode MP/s
 *       (libjpeg-turbo, JDCT_ISLOW, fancy upsampling, RGB output; median of
 *       N timed passes over each set, thread CPU time) and the ratios
 *       synthetic / real.
 *   bench_gen_realism --dir DIR [--reps N]
 *       Statistics of a generated dataset: files, mean size, mean
 *       dimensions, bpp, grayscale/CMYK/progressive counts, decode MP/s.
 *   bench_gen_realism --speed N [--seed S]
 *       Renders+encodes N ImageNet-like images in memory; prints MB/s.
 *
 * Single-threaded.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jpeglib.h>

#include "augment.h"
#include "gen_write.h"
#include "workloads.h"

struct img {
	unsigned char *jpg;  /* encoded bytes */
	size_t len;
	uint32_t w, h;
	int comps;
	bool progressive;
};

struct set {
	struct img *v;
	size_t n, cap;
};

/* CPU time of this thread: other work on a busy machine does not count
 * (every timing here is single-threaded). */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void set_add(struct set *s, const struct aug_membuf *b, uint32_t w,
		    uint32_t h)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("realloc");
			exit(1);
		}
	}
	s->v[s->n].jpg = malloc(b->len);
	if (!s->v[s->n].jpg) {
		perror("malloc");
		exit(1);
	}
	memcpy(s->v[s->n].jpg, b->data, b->len);
	s->v[s->n].len = b->len;
	s->v[s->n].w = w;
	s->v[s->n].h = h;
	s->n++;
}

static void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].jpg);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* Decodes to RGB (or CMYK as is) into *out (malloc'd); 0 or -1. */
static int decode(const unsigned char *p, size_t n, unsigned char **out,
		  uint32_t *w, uint32_t *h, int *comps, bool *prog)
{
	struct jpeg_decompress_struct d;
	struct jpeg_error_mgr em;
	unsigned char *buf;

	d.err = jpeg_std_error(&em);
	jpeg_create_decompress(&d);
	jpeg_mem_src(&d, p, (unsigned long)n);
	jpeg_read_header(&d, TRUE);
	if (d.jpeg_color_space != JCS_CMYK && d.jpeg_color_space != JCS_YCCK)
		d.out_color_space = JCS_RGB;
	d.dct_method = JDCT_ISLOW;
	d.do_fancy_upsampling = TRUE;
	jpeg_start_decompress(&d);
	*w = d.output_width;
	*h = d.output_height;
	*comps = d.num_components;  /* in the file: 1 gray, 3, 4 CMYK */
	if (prog)
		*prog = jpeg_has_multiple_scans(&d);
	{
		const size_t oc = (size_t)d.output_components;
		unsigned char *row = malloc((size_t)*w * oc);

		buf = out ? malloc((size_t)*w * *h * oc) : NULL;
		while (d.output_scanline < d.output_height) {
			JSAMPROW r = buf ? buf + (size_t)d.output_scanline *
				*w * oc : row;

			jpeg_read_scanlines(&d, &r, 1);
		}
		free(row);
	}
	jpeg_finish_decompress(&d);
	jpeg_destroy_decompress(&d);
	if (out)
		*out = buf;
	return 0;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return p;
}

/* Binary PPM (P6) or PGM (P5), maxval 255 -> RGB. */
static unsigned char *load_pnm(const unsigned char *p, size_t n,
			       uint32_t *w, uint32_t *h)
{
	unsigned vals[3];
	size_t i = 2;
	const int gray = p[1] == '5';
	unsigned char *rgb;

	for (int k = 0; k < 3; k++) {
		while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' ||
				 p[i] == '\t' || p[i] == '#')) {
			if (p[i] == '#')
				while (i < n && p[i] != '\n')
					i++;
			else
				i++;
		}
		vals[k] = 0;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			vals[k] = vals[k] * 10 + (unsigned)(p[i++] - '0');
	}
	i++;
	*w = vals[0];
	*h = vals[1];
	if (vals[2] != 255 || i + (size_t)*w * *h * (gray ? 1 : 3) > n)
		return NULL;
	rgb = malloc((size_t)*w * *h * 3);
	for (size_t k = 0; k < (size_t)*w * *h; k++)
		for (int c = 0; c < 3; c++)
			rgb[3 * k + c] = gray ? p[i + k] : p[i + 3 * k + c];
	return rgb;
}

static double median(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? (n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

struct setstat {
	double bpp;      /* total bits / total pixels */
	double mps;      /* decode megapixels per second, median of reps */
	double mean_kb;
	double mean_px;
};

static struct setstat set_measure(const struct set *s, int reps)
{
	struct setstat r = { 0 };
	double bytes = 0, px = 0;
	double *t = calloc((size_t)reps, sizeof(double));

	for (size_t i = 0; i < s->n; i++) {
		bytes += (double)s->v[i].len;
		px += (double)s->v[i].w * s->v[i].h;
	}
	for (int k = 0; k < reps; k++) {
		const double t0 = now_s();

		for (size_t i = 0; i < s->n; i++) {
			uint32_t w, h;
			int c;

			decode(s->v[i].jpg, s->v[i].len, NULL, &w, &h, &c, NULL);
		}
		t[k] = now_s() - t0;
	}
	r.bpp = bytes * 8 / px;
	r.mps = px / 1e6 / median(t, (size_t)reps);
	r.mean_kb = bytes / 1e3 / (double)s->n;
	r.mean_px = px / (double)s->n;
	free(t);
	return r;
}

/* Measures two sets with their timed passes interleaved (a, b, a, b...),
 * so that a change in the machine's load hits both alike. */
static void set_measure_pair(const struct set *a, const struct set *b,
			     int reps, struct setstat *ra, struct setstat *rb)
{
	double *ta = calloc((size_t)reps, sizeof(double));
	double *tb = calloc((size_t)reps, sizeof(double));
	const struct set *s[2] = { a, b };
	double *t[2] = { ta, tb };
	struct setstat *r[2] = { ra, rb };

	for (int k = 0; k < reps; k++)
		for (int j = 0; j < 2; j++) {
			const double t0 = now_s();

			for (size_t i = 0; i < s[j]->n; i++) {
				uint32_t w, h;
				int c;

				decode(s[j]->v[i].jpg, s[j]->v[i].len, NULL, &w,
				       &h, &c, NULL);
			}
			t[j][k] = now_s() - t0;
		}
	for (int j = 0; j < 2; j++) {
		*r[j] = set_measure(s[j], 1);  /* sizes; speed replaced */
		r[j]->mps = r[j]->mean_px * (double)s[j]->n / 1e6 /
			median(t[j], (size_t)reps);
	}
	free(ta);
	free(tb);
}

static int run_compare(int argc, char **argv, int quality,
		       enum aug_enc_subsamp ss, int reps, int per_ref,
		       uint64_t seed)
{
	struct set real = { 0 }, syn = { 0 };
	struct aug_membuf b = { 0 };
	struct aug_enc_params ep = { .quality = quality, .subsamp = ss };
	struct wl_synth *sy = wl_synth_create(WL_SYNTH_MAX_SIDE,
					      WL_SYNTH_MAX_SIDE);
	struct setstat a, g;

	printf("%-28s %9s %6s %8s   %6s %8s\n", "reference", "size",
	       "bpp", "MP/s", "syn bpp", "syn MP/s");
	for (int i = 0; i < argc; i++) {
		size_t n;
		unsigned char *raw = read_file(argv[i], &n), *rgb = NULL;
		uint32_t w = 0, h = 0;
		int comps = 3;
		struct set one = { 0 }, onesyn = { 0 };
		struct setstat sa, sg;
		const char *base = strrchr(argv[i], '/');

		if (!raw || n < 3) {
			fprintf(stderr, "cannot read %s\n", argv[i]);
			return 1;
		}
		if (raw[0] == 'P' && (raw[1] == '6' || raw[1] == '5'))
			rgb = load_pnm(raw, n, &w, &h);
		else if (raw[0] == 0xff && raw[1] == 0xd8)
			decode(raw, n, &rgb, &w, &h, &comps, NULL);
		free(raw);
		if (!rgb || comps != 3 || w > WL_SYNTH_MAX_SIDE ||
		    h > WL_SYNTH_MAX_SIDE) {
			fprintf(stderr, "skipping %s (not an 8-bit RGB "
				"picture up to %u px)\n", argv[i],
				WL_SYNTH_MAX_SIDE);
			free(rgb);
			continue;
		}
		if (aug_jpeg_encode(rgb, w, h, (size_t)w * 3, AUG_ENC_RGB, &ep,
				    &b)) {
			fprintf(stderr, "encode failed: %s\n", argv[i]);
			return 1;
		}
		free(rgb);
		set_add(&real, &b, w, h);
		set_add(&one, &b, w, h);
		for (int k = 0; k < per_ref; k++) {
			struct wl_image_spec sp = {
				.width = w, .height = h, .quality = quality,
				.subsamp = ss, .fmt = AUG_ENC_RGB,
				.content_seed = seed * 1000003u +
					(uint64_t)i * 101u + (uint64_t)k,
			};

			if (wl_synth_jpeg(sy, &sp, &b)) {
				fprintf(stderr, "synth failed\n");
				return 1;
			}
			set_add(&syn, &b, w, h);
			set_add(&onesyn, &b, w, h);
		}
		set_measure_pair(&one, &onesyn, reps, &sa, &sg);
		printf("%-28s %4ux%-4u %6.2f %8.1f   %6.2f %8.1f\n",
		       base ? base + 1 : argv[i], w, h, sa.bpp, sa.mps,
		       sg.bpp, sg.mps);
		set_free(&one);
		set_free(&onesyn);
	}
	if (!real.n) {
		fprintf(stderr, "no usable reference pictures\n");
		return 1;
	}
	set_measure_pair(&real, &syn, reps, &a, &g);
	printf("\nquality %d, %s, decode: libjpeg-turbo ISLOW, fancy "
	       "upsampling, RGB out, median of %d interleaved passes\n", quality,
	       ss == AUG_ENC_444 ? "4:4:4" : "4:2:0", reps);
	printf("real      %3zu pictures: bpp %.3f  decode %.1f MP/s\n",
	       real.n, a.bpp, a.mps);
	printf("synthetic %3zu pictures: bpp %.3f  decode %.1f MP/s\n",
	       syn.n, g.bpp, g.mps);
	printf("ratio synthetic/real: bpp %.3f  decode MP/s %.3f\n",
	       g.bpp / a.bpp, g.mps / a.mps);
	set_free(&real);
	set_free(&syn);
	aug_membuf_free(&b);
	wl_synth_destroy(sy);
	return 0;
}

static void scan_dir(const char *path, struct set *s, unsigned *gray,
		     unsigned *cmyk, unsigned *prog)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		if (stat(p, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			scan_dir(p, s, gray, cmyk, prog);
		} else {
			size_t n;
			unsigned char *raw = read_file(p, &n);
			struct aug_membuf b;
			uint32_t w, h;
			int c;
			bool pr;

			if (!raw)
				continue;
			decode(raw, n, NULL, &w, &h, &c, &pr);
			*gray += c == 1;
			*cmyk += c == 4;
			*prog += pr;
			b.data = raw;
			b.len = n;
			set_add(s, &b, w, h);
			free(raw);
		}
	}
	closedir(d);
}

static int run_dir(const char *dir, int reps)
{
	struct set s = { 0 };
	unsigned gray = 0, cmyk = 0, prog = 0;
	struct setstat r;
	double sw = 0, sh = 0;

	scan_dir(dir, &s, &gray, &cmyk, &prog);
	if (!s.n) {
		fprintf(stderr, "no files under %s\n", dir);
		return 1;
	}
	for (size_t i = 0; i < s.n; i++)
		sw += s.v[i].w, sh += s.v[i].h;
	r = set_measure(&s, reps);
	printf("files %zu  mean %.1f KB  mean %.0fx%.0f (%.0f px)  bpp %.3f  "
	       "decode %.1f MP/s (%.0f files/s)\n", s.n, r.mean_kb,
	       sw / s.n, sh / s.n, r.mean_px, r.bpp, r.mps,
	       r.mps * 1e6 / r.mean_px);
	printf("grayscale %u  cmyk %u  progressive %u\n", gray, cmyk, prog);
	set_free(&s);
	return 0;
}

static int run_speed(unsigned n, uint64_t seed)
{
	struct wl_synth *sy = wl_synth_create(2048, 2048);
	struct aug_membuf b = { 0 };
	double bytes = 0, px = 0, t0 = now_s(), t, trender = 0;

	for (unsigned i = 0; i < n; i++) {
		struct wl_image_spec sp;
		const uint8_t *pix;
		size_t stride;
		const double t1 = now_s();
		struct aug_enc_params ep;

		wl_imagenet_spec(seed, i, &sp);
		if (wl_synth_render(sy, &sp, &pix, &stride))
			return 1;
		trender += now_s() - t1;
		ep = (struct aug_enc_params){ .quality = sp.quality,
			.subsamp = sp.subsamp, .progressive = sp.progressive };
		if (aug_jpeg_encode(pix, sp.width, sp.height, stride, sp.fmt,
				    &ep, &b))
			return 1;
		bytes += (double)b.len;
		px += (double)sp.width * sp.height;
	}
	t = now_s() - t0;
	printf("rendered+encoded %u images: %.1f KB mean, %.0f px mean, "
	       "%.2f bpp, %.1f files/s, %.1f MB/s (1 GB in %.0f s per core); "
	       "render %.0f %%, encode %.0f %%\n", n,
	       bytes / 1e3 / n, px / n, bytes * 8 / px, n / t,
	       bytes / 1e6 / t, 1e9 / (bytes / t), 100 * trender / t,
	       100 * (t - trender) / t);
	aug_membuf_free(&b);
	wl_synth_destroy(sy);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quality", required_argument, NULL, 'q' },
		{ "subsamp", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "per-ref", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 'S' },
		{ "dir", required_argument, NULL, 'd' },
		{ "speed", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int quality = 90, reps = 5, per_ref = 4, c;
	enum aug_enc_subsamp ss = AUG_ENC_420;
	uint64_t seed = 1;
	const char *dir = NULL;
	unsigned speed = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'q': quality = atoi(optarg); break;
		case 's': ss = !strcmp(optarg, "444") ? AUG_ENC_444 :
			AUG_ENC_420; break;
		case 'r': reps = atoi(optarg); break;
		case 'k': per_ref = atoi(optarg); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'd': dir = optarg; break;
		case 'p': speed = (unsigned)atoi(optarg); break;
		default: return 2;
		}
	}
	if (reps < 1)
		reps = 1;
	if (speed)
		return run_speed(speed, seed);
	if (dir)
		return run_dir(dir, reps);
	if (optind >= argc) {
		fprintf(stderr, "usage: bench_gen_realism [options] REF...\n");
		return 2;
	}
	return run_compare(argc - optind, argv + optind, quality, ss, reps,
			   per_ref, seed);
}
