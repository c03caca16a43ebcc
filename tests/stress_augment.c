/*
 * stress_augment.c - the augment module under threads, for
 * ThreadSanitizer: several workers, each with its own aug_ctx, run the
 * train and eval transforms over the same in-memory JPEGs (good and
 * damaged) and must produce the bytes a single thread produces.
 *
 * DESIGN: threads: NTHREADS workers claim sample ids from one atomic
 * counter; the JPEG bytes are shared read-only; each worker owns its
 * context and output buffer and writes only its claimed slots of the
 * hash array, which the main thread reads after joining.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augment.h"
#include "stress.h"

#define NTHREADS 4
#define NFILES 5
#define NSAMPLES 120

struct shared {
	struct aug_membuf files[NFILES];
	atomic_uint next;
	uint64_t hash[NSAMPLES];
	int err[NSAMPLES];
	int failures;             /* written by each worker before exit */
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* A smooth picture with an edge, as RGB. */
static int make_file(struct aug_membuf *out, uint32_t w, uint32_t h,
		     enum aug_enc_subsamp ss, bool progressive)
{
	struct aug_enc_params ep = { .quality = 88, .subsamp = ss,
				     .progressive = progressive };
	uint8_t *rgb = malloc((size_t)w * h * 3);
	int err;

	if (!rgb)
		return -1;
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint8_t *p = rgb + ((size_t)y * w + x) * 3;

			p[0] = (uint8_t)(x * 255 / w);
			p[1] = (uint8_t)(y * 255 / h);
			p[2] = (uint8_t)((x + y) % 64 < 32 ? 40 : 200);
		}
	err = aug_jpeg_encode(rgb, w, h, (size_t)w * 3, AUG_ENC_RGB, &ep, out);
	free(rgb);
	return err;
}

/* Sample i: train or eval on file i % NFILES; file 4 is cut short. */
static int one_sample(struct aug_ctx *c, const struct shared *s, unsigned i,
		      void *out)
{
	const struct aug_membuf *f = &s->files[i % NFILES];

	if (i % 3 == 2)
		return aug_eval_sample(c, f->data, f->len, out, NULL);
	return aug_train_sample(c, f->data, f->len, 99, i / NFILES, i, out,
				NULL);
}

static void *worker(void *arg)
{
	struct shared *s = arg;
	struct aug_ctx *c;
	uint8_t *out;
	unsigned i;

	if (aug_ctx_create(NULL, &c))
		return NULL;
	out = malloc(aug_ctx_sample_bytes(c, false));
	while (out && (i = atomic_fetch_add(&s->next, 1)) < NSAMPLES) {
		s->err[i] = one_sample(c, s, i, out);
		s->hash[i] = s->err[i] ? 0 :
			fnv1a(out, aug_ctx_sample_bytes(c, i % 3 == 2));
	}
	free(out);
	aug_ctx_destroy(c);
	return NULL;
}

int stress_augment(void)
{
	static struct shared s;
	uint64_t want[NSAMPLES];
	int werr[NSAMPLES], failed = 0;
	pthread_t t[NTHREADS];
	struct aug_ctx *c;
	uint8_t *out;

	memset(&s, 0, sizeof(s));
	if (make_file(&s.files[0], 500, 375, AUG_ENC_420, false) ||
	    make_file(&s.files[1], 375, 500, AUG_ENC_444, false) ||
	    make_file(&s.files[2], 1200, 900, AUG_ENC_420, true) ||
	    make_file(&s.files[3], 97, 61, AUG_ENC_422, false) ||
	    make_file(&s.files[4], 640, 480, AUG_ENC_420, false)) {
		printf("FAIL augment: cannot encode the inputs\n");
		return 1;
	}
	s.files[4].len = s.files[4].len * 2 / 3;     /* truncated */

	/* single-threaded reference */
	if (aug_ctx_create(NULL, &c)) {
		printf("FAIL augment: no context\n");
		return 1;
	}
	out = malloc(aug_ctx_sample_bytes(c, false));
	for (unsigned i = 0; i < NSAMPLES; i++) {
		werr[i] = one_sample(c, &s, i, out);
		want[i] = werr[i] ? 0 :
			fnv1a(out, aug_ctx_sample_bytes(c, i % 3 == 2));
	}
	free(out);
	aug_ctx_destroy(c);

	atomic_store(&s.next, 0);
	for (int k = 0; k < NTHREADS; k++)
		pthread_create(&t[k], NULL, worker, &s);
	for (int k = 0; k < NTHREADS; k++)
		pthread_join(t[k], NULL);
	for (unsigned i = 0; i < NSAMPLES; i++)
		if (s.err[i] != werr[i] || s.hash[i] != want[i])
			failed++;
	printf("%s augment: %d threads reproduce %d single-threaded samples "
	       "(%d differ)\n", failed ? "FAIL" : "ok  ", NTHREADS, NSAMPLES,
	       failed);
	if (werr[4] == 0) {
		printf("FAIL augment: the truncated file decoded\n");
		failed++;
	}
	for (int k = 0; k < NFILES; k++)
		aug_membuf_free(&s.files[k]);
	return failed;
}
