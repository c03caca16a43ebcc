/*
 * bench_aug_vs_pil.c - writes feedrate's train and eval outputs (uint8
 * HWC, so no normalization rounding is involved) for a set of JPEGs, with
 * the crop and flip each sample used, for vs_pil.py to redo with PIL:
 *
 *   bench_aug_vs_pil OUTDIR DCT FILE...      (DCT: 0 or 1)
 *
 * Prints one line per sample on stdout:
 *   train FILE RAW X Y W H FLIP DENOM   or   eval FILE RAW DENOM
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augment.h"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else
		free(b), b = NULL;
	fclose(f);
	return b;
}

static int put(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n) {
		if (f)
			fclose(f);
		return -EIO;
	}
	return fclose(f) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	struct aug_params p;
	struct aug_ctx *c;
	unsigned char *out;
	char raw[4096];

	if (argc < 4) {
		fprintf(stderr, "usage: bench_aug_vs_pil OUTDIR DCT(0|1) FILE...\n");
		return 2;
	}
	aug_params_default(&p);
	p.dtype = AUG_DT_U8;
	p.layout = AUG_LAYOUT_HWC;
	p.dct_scale = atoi(argv[2]) != 0;
	if (aug_ctx_create(&p, &c))
		return 1;
	out = malloc(aug_ctx_sample_bytes(c, false));
	for (int a = 3; a < argc && out; a++) {
		size_t len = 0;
		unsigned char *b = slurp(argv[a], &len);
		struct aug_stats s;

		if (!b)
			continue;
		for (uint64_t id = 0; id < 4; id++) {
			if (aug_train_sample(c, b, len, 7, 0, id, out, &s))
				break;
			snprintf(raw, sizeof(raw), "%s/t%d_%llu.raw", argv[1], a,
				 (unsigned long long)id);
			if (put(raw, out, aug_ctx_sample_bytes(c, false)))
				return 1;
			printf("train %s %s %u %u %u %u %d %u\n", argv[a], raw,
			       s.crop.x, s.crop.y, s.crop.w, s.crop.h, s.flipped,
			       s.scale_denom);
		}
		if (!aug_eval_sample(c, b, len, out, &s)) {
			snprintf(raw, sizeof(raw), "%s/e%d.raw", argv[1], a);
			if (put(raw, out, aug_ctx_sample_bytes(c, true)))
				return 1;
			printf("eval %s %s %u\n", argv[a], raw, s.scale_denom);
		}
		free(b);
	}
	free(out);
	aug_ctx_destroy(c);
	return 0;
}
