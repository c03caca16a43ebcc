/*
 * bench_aug_steps.c - per-step cost of the augment pipeline on a folder
 * of JPEGs: full decode, ROI decode, ROI + DCT-scaled decode, resize and
 * normalize, per kernel set. Single-threaded; pin it with taskset.
 *
 *   bench_aug_steps [--repeats N] DIR
 *
 * Every *.JPEG / *.jpg under DIR is read into memory first. Then
 * `repeats` passes (after one untimed warm-up pass that grows every
 * scratch buffer) run each file through every configuration back to
 * back, so a noisy machine slows them alike. Per-image times come from
 * aug_stats (CLOCK_MONOTONIC) and, for the full decode, from timing
 * aug_decoder_decode(). Prints the median, mean and p90 ms/image of each
 * step, the decoded area relative to the image area, and each
 * configuration's images/s against the full decode's.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "augment.h"

struct files {
	uint8_t **data;
	size_t *len;
	size_t n, cap;
};

static int add_file(struct files *f, const char *path)
{
	FILE *fp = fopen(path, "rb");
	struct stat st;
	uint8_t *b;

	if (!fp)
		return -errno;
	if (fstat(fileno(fp), &st) || !(b = malloc((size_t)st.st_size + 1)) ||
	    fread(b, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
		fclose(fp);
		return -EIO;
	}
	fclose(fp);
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->data = realloc(f->data, f->cap * sizeof(*f->data));
		f->len = realloc(f->len, f->cap * sizeof(*f->len));
		if (!f->data || !f->len)
			return -ENOMEM;
	}
	f->data[f->n] = b;
	f->len[f->n++] = (size_t)st.st_size;
	return 0;
}

static int walk(struct files *f, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(f, path);
		else if (dot && (!strcasecmp(dot, ".jpeg") || !strcasecmp(dot, ".jpg")))
			add_file(f, path);
	}
	closedir(d);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *v, size_t n)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	printf("  %-28s median %7.3f ms   mean %7.3f ms   p90 %7.3f ms\n",
	       what, v[n / 2] / 1e6, sum / n / 1e6, v[n * 9 / 10] / 1e6);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Configurations, run back to back on every file so that a noisy
 * machine slows all of them alike. */
struct config {
	const char *name;
	bool roi, dct;
	enum aug_isa isa;
	struct aug_ctx *c;
	uint64_t *dec, *rs, *post, *tot;
	double area, dec_area, sum_tot, sum_dec;
	size_t k;
};

static struct config configs[] = {
	{ .name = "train, full decode", .isa = AUG_ISA_AUTO },
	{ .name = "train, ROI decode", .roi = true, .isa = AUG_ISA_AUTO },
	{ .name = "train, ROI + DCT-scaled", .roi = true, .dct = true,
	  .isa = AUG_ISA_AUTO },
	{ .name = "train, ROI + DCT, sse4.1", .roi = true, .dct = true,
	  .isa = AUG_ISA_SSE41 },
	{ .name = "train, ROI + DCT, portable", .roi = true, .dct = true,
	  .isa = AUG_ISA_PORTABLE },
};
#define NCONFIG (sizeof(configs) / sizeof(configs[0]))

static void config_run(struct config *g, const struct files *f, size_t i,
		       unsigned epoch, void *out, bool record)
{
	struct aug_stats s;

	if (aug_train_sample(g->c, f->data[i], f->len[i], 1, epoch, i, out, &s))
		return;
	if (!record)
		return;
	g->dec[g->k] = s.decode_ns;
	g->rs[g->k] = s.resize_ns;
	g->post[g->k] = s.post_ns;
	g->tot[g->k++] = s.total_ns;
	g->sum_tot += (double)s.total_ns;
	g->sum_dec += (double)s.decode_ns;
	g->area += (double)s.src_w * s.src_h;
	g->dec_area += (double)s.decoded.w * s.decoded.h * s.scale_denom *
		       s.scale_denom;
}

int main(int argc, char **argv)
{
	struct files f = { 0 };
	unsigned repeats = 3;
	struct aug_decoder *d;
	double full_sum = 0;
	uint64_t *v;
	size_t k = 0;
	void *out;
	int opt;

	while ((opt = getopt(argc, argv, "r:")) != -1)
		if (opt == 'r')
			repeats = (unsigned)strtoul(optarg, NULL, 10);
	if (optind >= argc || repeats == 0) {
		fprintf(stderr, "usage: bench_aug_steps [-r repeats] DIR\n");
		return 2;
	}
	walk(&f, argv[optind]);
	if (f.n == 0) {
		fprintf(stderr, "bench_aug_steps: no JPEG under %s\n", argv[optind]);
		return 1;
	}
	printf("%zu files, %u repeats; decoder: JDCT_ISLOW, fancy upsampling\n",
	       f.n, repeats);

	/* full decode with the same decoder settings, then every train
	 * configuration, on each file in turn */
	aug_decoder_create(NULL, &d);
	v = calloc(f.n * repeats, 8);
	for (size_t g = 0; g < NCONFIG; g++) {
		struct aug_params p;

		aug_params_default(&p);
		p.roi_decode = configs[g].roi;
		p.dct_scale = configs[g].dct;
		p.isa = configs[g].isa;
		if (aug_ctx_create(&p, &configs[g].c)) {
			fprintf(stderr, "%s: cannot create\n", configs[g].name);
			return 1;
		}
		configs[g].dec = calloc(f.n * repeats, 8);
		configs[g].rs = calloc(f.n * repeats, 8);
		configs[g].post = calloc(f.n * repeats, 8);
		configs[g].tot = calloc(f.n * repeats, 8);
	}
	out = malloc(aug_ctx_sample_bytes(configs[0].c, false));
	for (unsigned r = 0; r <= repeats; r++)      /* r = 0: warm-up */
		for (size_t i = 0; i < f.n; i++) {
			struct aug_view view;
			uint64_t t0 = now_ns();

			if (!aug_decoder_decode(d, f.data[i], f.len[i], NULL, 1,
						&view) && r > 0) {
				v[k] = now_ns() - t0;
				full_sum += (double)v[k++];
			}
			for (size_t g = 0; g < NCONFIG; g++)
				config_run(&configs[g], &f, i, r, out, r > 0);
		}
	printf("full decode (aug_decoder_decode, whole image, RGBX):\n");
	report("decode-full", v, k);
	free(v);
	aug_decoder_destroy(d);
	for (size_t g = 0; g < NCONFIG; g++) {
		struct config *c = &configs[g];

		printf("%s (isa %s): %zu samples, decoded area %.1f%% of the "
		       "image area\n", c->name, aug_isa_name(aug_ctx_isa(c->c)),
		       c->k, 100.0 * c->dec_area / c->area);
		report("decode", c->dec, c->k);
		report("resize (+flip)", c->rs, c->k);
		report("normalize (f32 CHW)", c->post, c->k);
		report("total", c->tot, c->k);
		printf("  images/s %.0f; decode time %.1f%% of full decode; "
		       "rate %.2fx full decode\n", c->k / (c->sum_tot / 1e9),
		       100.0 * c->sum_dec / full_sum, full_sum / c->sum_tot);
		free(c->dec), free(c->rs), free(c->post), free(c->tot);
		aug_ctx_destroy(c->c);
	}
	printf("full decode: images/s %.0f\n", k / (full_sum / 1e9));
	free(out);
	for (size_t i = 0; i < f.n; i++)
		free(f.data[i]);
	free(f.data);
	free(f.len);
	return 0;
}
